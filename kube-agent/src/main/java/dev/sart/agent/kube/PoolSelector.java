package dev.sart.agent.kube;

import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressType;
import dev.sart.crds.Sart;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;

/**
 * The pod AddressPool of a pod (sart.md §6.2, §7): the pod's {@code sart.terassyi.net/addresspool}
 * annotation, else its namespace's, else the pod pool with {@code autoAssign: true}; null when
 * there is none (the CNI ADD is told to try again later: the pool may be created later).
 */
public final class PoolSelector {
  /** CNI_ARGS keys the runtime sets for a pod (kubelet's dockershim/CRI convention). */
  static final String POD_NAMESPACE = "K8S_POD_NAMESPACE";

  static final String POD_NAME = "K8S_POD_NAME";

  private final KubernetesClient client;

  public PoolSelector(KubernetesClient client) {
    this.client = client;
  }

  /**
   * @param cniArgs CNI_ARGS as key/value pairs
   * @param configured the pool named in the network configuration, or null
   */
  public String pool(Map<String, String> cniArgs, String configured) {
    String ns = cniArgs.get(POD_NAMESPACE);
    String name = cniArgs.get(POD_NAME);
    if (ns != null && name != null) {
      Pod pod = client.pods().inNamespace(ns).withName(name).get();
      String a = annotation(pod == null ? null : pod.getMetadata().getAnnotations());
      if (a != null) {
        return a;
      }
      Namespace n = client.namespaces().withName(ns).get();
      a = annotation(n == null ? null : n.getMetadata().getAnnotations());
      if (a != null) {
        return a;
      }
    }
    return configured != null ? configured : autoAssign();
  }

  /** The pod pool with autoAssign (the webhook allows one per type), or null. */
  public String autoAssign() {
    List<AddressPool> auto =
        client.resources(AddressPool.class).list().getItems().stream()
            .filter(
                p ->
                    p.getSpec() != null
                        && p.getSpec().type() == AddressType.POD
                        && p.getSpec().autoAssignOrFalse())
            .toList();
    return auto.isEmpty() ? null : auto.getFirst().getMetadata().getName();
  }

  /** Whether {@code name} is a pod AddressPool (this node may ask for a block of it). */
  public boolean isPodPool(String name) {
    AddressPool p = client.resources(AddressPool.class).withName(name).get();
    return p != null && p.getSpec() != null && p.getSpec().type() == AddressType.POD;
  }

  private static String annotation(Map<String, String> annotations) {
    if (annotations == null) {
      return null;
    }
    String v = annotations.get(Sart.ADDRESS_POOL_ANNOTATION);
    return v == null || v.isBlank() ? null : v.strip();
  }
}
