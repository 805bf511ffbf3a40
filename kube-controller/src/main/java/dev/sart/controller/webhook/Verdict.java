package dev.sart.controller.webhook;

import java.util.List;

/**
 * The answer to one admission request: allowed or denied with a message, and for a mutating webhook
 * the RFC 6902 JSON Patch operations to apply (as JSON strings).
 */
public record Verdict(boolean allowed, String message, List<String> patch) {
  public static Verdict allow() {
    return new Verdict(true, null, List.of());
  }

  public static Verdict deny(String message) {
    return new Verdict(false, message, List.of());
  }

  public static Verdict patch(List<String> operations) {
    return new Verdict(true, null, operations);
  }
}
