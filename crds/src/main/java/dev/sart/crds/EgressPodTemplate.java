package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.crd.generator.annotation.PreserveUnknownFields;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.kubernetes.api.model.PodSpec;
import java.util.Map;

/**
 * What the egress pods get besides what the controller sets (coil's {@code template}): labels and
 * annotations, and a pod spec merged into the controller's (its {@code egress} container is the
 * controller's; other containers, affinity, tolerations, resources of the {@code egress} container
 * are the user's). The spec's schema is the API server's PodSpec, not repeated here.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record EgressPodTemplate(
    Metadata metadata, @PreserveUnknownFields @SchemaFrom(type = Opaque.class) PodSpec spec) {

  /** The template's labels and annotations. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Metadata(Map<String, String> labels, Map<String, String> annotations) {}

  /** The schema of {@code spec}: an object whose fields the API server checks as a PodSpec. */
  static final class Opaque {}
}
