package dev.sart.testbed.cluster;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;
import java.util.stream.Collectors;

/** The Kubernetes objects the scenarios read and edit, as an operator would with kubectl. */
final class ClusterObjects {
  private ClusterObjects() {}

  /** Sets ({@code value} null: removes) a label of the node's Node object. */
  static void label(KubernetesClient client, ClusterNode n, String key, String value) {
    client
        .nodes()
        .withName(n.name())
        .edit(
            node -> {
              var labels = new java.util.HashMap<>(node.getMetadata().getLabels());
              if (value == null) {
                labels.remove(key);
              } else {
                labels.put(key, value);
              }
              node.getMetadata().setLabels(labels);
              return node;
            });
  }

  /** The node's NodeBGP {@code status.backoff} (0 when none). */
  static long nodeBgpBackoff(KubernetesClient client, ClusterNode n) {
    var nb = client.resources(dev.sart.crds.NodeBGP.class).withName(n.name()).get();
    return nb.getStatus() == null || nb.getStatus().backoff() == null
        ? 0
        : nb.getStatus().backoff();
  }

  /** Every LoadBalancer Service's addresses in {@code namespace}, by name. */
  static Map<String, String> addresses(KubernetesClient client, String namespace) {
    Map<String, String> out = new java.util.TreeMap<>();
    for (var s : client.services().inNamespace(namespace).list().getItems()) {
      if (s.getStatus() != null
          && s.getStatus().getLoadBalancer() != null
          && s.getStatus().getLoadBalancer().getIngress() != null) {
        out.put(
            s.getMetadata().getName(),
            s.getStatus().getLoadBalancer().getIngress().stream()
                .map(i -> i.getIp())
                .collect(Collectors.joining(",")));
      }
    }
    return out;
  }
}
