package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.model.annotation.LabelSelector;
import io.fabric8.kubernetes.model.annotation.StatusReplicas;

/**
 * {@code replicas} and {@code selector} (coil's, for the scale subresource); ours: {@code
 * sourceAddress} (the static address claimed), {@code gateway} and {@code gatewayNode} (the one pod
 * that holds it, and its node, which announces it), {@code message} (why there is no address, or
 * which reverse-path mapping cannot be applied).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record EgressStatus(
    @StatusReplicas Integer replicas,
    @LabelSelector String selector,
    String sourceAddress,
    String gateway,
    String gatewayNode,
    String message) {}
