package dev.sart.controller.runtime;

import io.fabric8.kubernetes.client.utils.Serialization;

/**
 * RFC 6902 JSON Patch bodies. Status fields are written with "add" (which replaces an existing
 * member, lists as a whole) rather than a JSON merge patch, whose list handling differs between
 * servers (fabric8's mock appends list items).
 */
public final class Patches {
  private Patches() {}

  /** Sets {@code /status} to {@code status} as a whole. */
  public static String setStatus(Object status) {
    return "[{\"op\":\"add\",\"path\":\"/status\",\"value\":" + Serialization.asJson(status) + "}]";
  }

  /** Sets one field of the status, creating the status when there is none yet. */
  public static String setStatusField(boolean hasStatus, String field, Object value) {
    var json = Serialization.asJson(value);
    return hasStatus
        ? "[{\"op\":\"add\",\"path\":\"/status/" + field + "\",\"value\":" + json + "}]"
        : "[{\"op\":\"add\",\"path\":\"/status\",\"value\":{\"" + field + "\":" + json + "}}]";
  }
}
