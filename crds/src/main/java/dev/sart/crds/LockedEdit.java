package dev.sart.crds;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * A read-change-write of one object under optimistic concurrency: the change is applied to the
 * object as read and written back with its {@code resourceVersion}, so that a concurrent writer
 * makes the API server answer 409 Conflict and the change is applied again to the newer object.
 *
 * <p>fabric8's {@code edit} sends a JSON Patch computed from the copy it read, without a
 * precondition: a list edited by two writers at once (a NodeBGP's {@code spec.peers}, any object's
 * {@code metadata.finalizers}) is patched by index, and an index from a stale read removes or
 * replaces the wrong element, or fails. Every edit of a list another writer also edits goes through
 * here.
 */
public final class LockedEdit {
  /** Conflicts in a row before giving up (the caller's loop retries later). */
  static final int ATTEMPTS = 8;

  private LockedEdit() {}

  /**
   * Applies {@code change} to the current object and writes it, again on each conflict.
   *
   * @return the object as written, the current one when the change left it as it was, or null when
   *     there is no such object
   */
  public static <T extends HasMetadata> T edit(
      KubernetesClient client, Resource<T> resource, UnaryOperator<T> change) {
    return edit(client, resource, change, false);
  }

  /**
   * The same for the status subresource: a map in {@code status} that two writers edit by key (a
   * BGPAdvertisement's {@code status.peers}: the controller and each node's agent). fabric8's
   * {@code editStatus} patches the keys it changed, and a real API server refuses (422) a JSON
   * Patch that removes or replaces a key another writer removed meanwhile; here the status is
   * written whole with the resourceVersion it was decided from ({@link #wholeStatus}).
   */
  public static <T extends HasMetadata> T editStatus(
      KubernetesClient client, Resource<T> resource, UnaryOperator<T> change) {
    return edit(client, resource, change, true);
  }

  private static <T extends HasMetadata> T edit(
      KubernetesClient client, Resource<T> resource, UnaryOperator<T> change, boolean status) {
    var json = client.getKubernetesSerialization();
    for (int attempt = 1; ; attempt++) {
      T current = resource.get();
      if (current == null) {
        return null;
      }
      String before = json.asJson(current);
      String version = current.getMetadata().getResourceVersion();
      T changed = change.apply(current);
      if (json.asJson(changed).equals(before)) {
        return changed;
      }
      try {
        // both write with the object's resourceVersion: 409 when someone wrote meanwhile
        return status
            ? client
                .resource(changed)
                .subresource("status")
                .patch(PatchContext.of(PatchType.JSON), wholeStatus(json, changed, version))
            : client.resource(changed).update();
      } catch (KubernetesClientException e) {
        if (e.getCode() == 404) {
          return null;
        }
        if (e.getCode() != 409 || attempt == ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  /**
   * A JSON Patch (RFC 6902) of the status subresource that sets the whole status ("add" sets a
   * member whether or not it exists, §4.1) under the resourceVersion it was decided from: the API
   * server answers 409 when the object changed since. Not a PUT of the status: fabric8's mock
   * server takes a stale resourceVersion there.
   */
  private static String wholeStatus(
      KubernetesSerialization json, HasMetadata changed, String version) {
    Object status = json.convertValue(changed, Map.class).get("status");
    var set = new HashMap<String, Object>(); // Map.of takes no null: a status set to none
    set.put("op", "add");
    set.put("path", "/status");
    set.put("value", status);
    return json.asJson(
        List.of(
            Map.of("op", "replace", "path", "/metadata/resourceVersion", "value", version), set));
  }

  /**
   * Puts {@code finalizer} on the object as the API server has it. Nothing of an object may be set
   * up before it holds its controller's finalizer: only then does its deletion come back to be
   * undone. One being deleted already gets none (the API server refuses new finalizers then).
   *
   * @return the object as the API server has it, with the finalizer unless it is being deleted; or
   *     null when there is no such object (it was deleted before it held the finalizer, though a
   *     cache may still show it)
   */
  public static <T extends HasMetadata> T holdFinalizer(
      KubernetesClient client, Resource<T> resource, String finalizer) {
    return edit(
        client,
        resource,
        cur -> {
          var meta = cur.getMetadata();
          List<String> held = meta.getFinalizers() == null ? List.of() : meta.getFinalizers();
          if (meta.getDeletionTimestamp() == null && !held.contains(finalizer)) {
            var finalizers = new ArrayList<>(held);
            finalizers.add(finalizer);
            meta.setFinalizers(finalizers);
          }
          return cur;
        });
  }
}
