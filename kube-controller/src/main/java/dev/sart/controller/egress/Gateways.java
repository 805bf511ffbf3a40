package dev.sart.controller.egress;

import dev.sart.crds.Sart;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Collection;
import java.util.Comparator;
import java.util.Optional;

/**
 * Which egress pod holds an Egress's static address (pure): the pod already labelled {@link
 * Sart#EGRESS_GATEWAY_LABEL} while it is Ready, scheduled and not being deleted (a gateway is not
 * moved while it works, so flows through it survive); otherwise the oldest such pod (name breaks
 * ties). None while no pod is Ready: the address is then held by nobody and announced by no node.
 */
public final class Gateways {
  private Gateways() {}

  public static Optional<Pod> choose(Collection<Pod> pods) {
    var usable = pods.stream().filter(Gateways::usable).toList();
    var current = usable.stream().filter(Gateways::labelled).findFirst();
    if (current.isPresent()) {
      return current;
    }
    return usable.stream()
        .min(
            Comparator.comparing(
                    (Pod p) ->
                        p.getMetadata().getCreationTimestamp() == null
                            ? ""
                            : p.getMetadata().getCreationTimestamp())
                .thenComparing(p -> p.getMetadata().getName()));
  }

  static boolean labelled(Pod pod) {
    var labels = pod.getMetadata().getLabels();
    return labels != null && "true".equals(labels.get(Sart.EGRESS_GATEWAY_LABEL));
  }

  /** Ready, on a node, with an address, not being deleted. */
  public static boolean usable(Pod pod) {
    if (pod.getMetadata().getDeletionTimestamp() != null
        || pod.getSpec() == null
        || pod.getSpec().getNodeName() == null
        || pod.getStatus() == null
        || pod.getStatus().getPodIP() == null
        || pod.getStatus().getConditions() == null) {
      return false;
    }
    return pod.getStatus().getConditions().stream()
        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }
}
