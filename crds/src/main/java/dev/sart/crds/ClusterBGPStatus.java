package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * {@code desiredNodes}: the nodes the selector matches; {@code nodes}: those that got their
 * NodeBGP.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ClusterBGPStatus(List<String> desiredNodes, List<String> nodes) {}
