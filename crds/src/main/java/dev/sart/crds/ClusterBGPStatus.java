package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * {@code desiredNodes}: the nodes the selector matches; {@code nodes}: those that got their
 * NodeBGP; {@code conditions} (ours): warnings about the ClusterBGP, such as {@link
 * #SART_SELECTOR_DIFFERS}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ClusterBGPStatus(
    List<String> desiredNodes, List<String> nodes, List<ClusterBGPCondition> conditions) {

  /**
   * Condition type, status True while sart's rule for {@code nodeSelector} (a node matches when any
   * one label matches) would select nodes that Kubernetes' rule (every label matches), which this
   * implementation follows, does not; the message names them.
   */
  public static final String SART_SELECTOR_DIFFERS = "SartSelectorDiffers";

  public ClusterBGPStatus(List<String> desiredNodes, List<String> nodes) {
    this(desiredNodes, nodes, null);
  }
}
