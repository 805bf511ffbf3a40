package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A condition of a ClusterBGP (ours; sart's status had none), shaped as Kubernetes' conditions:
 * {@code type}, {@code status} ("True", "False", "Unknown"), a CamelCase {@code reason} and a human
 * {@code message}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ClusterBGPCondition(String type, String status, String reason, String message) {}
