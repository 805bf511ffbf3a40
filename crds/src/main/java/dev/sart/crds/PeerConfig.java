package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.Map;

/**
 * One peer of a ClusterBGP: a BGPPeerTemplate by name, inline settings ({@code peerConfig}, which
 * override the template's), or both; {@code nodeBGPSelector} limits it to the nodes whose labels
 * all match.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value =
        "has(self.peerTemplateRef) || (has(self.peerConfig) && has(self.peerConfig.asn) && (has(self.peerConfig.addr) || has(self.peerConfig.interface)))",
    message = "a peer needs peerTemplateRef, or a peerConfig with asn and addr or interface",
    fieldPath = ".peerTemplateRef",
    reason = "FieldValueRequired")
public record PeerConfig(
    @Size(min = 1, max = Limits.NAME) String peerTemplateRef,
    BGPPeerTemplateSpec peerConfig,
    @Size(max = Limits.SELECTOR)
        Map<String, @Size(max = Limits.LABEL_VALUE) String> nodeBGPSelector) {}
