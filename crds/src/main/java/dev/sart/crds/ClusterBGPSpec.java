package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.List;
import java.util.Map;

/**
 * {@code nodeSelector}: the nodes (all of its labels must match; absent = every node); {@code
 * asnSelector}/{@code routerIdSelector}: where each node's ASN and router id come from; {@code
 * speaker}: copied into each NodeBGP; {@code peers}: the BGPPeers each node gets.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ClusterBGPSpec(
    @Size(max = Limits.SELECTOR) Map<String, @Size(max = Limits.LABEL_VALUE) String> nodeSelector,
    @Required AsnSelector asnSelector,
    @Required RouterIdSelector routerIdSelector,
    @Required SpeakerConfig speaker,
    @Size(max = Limits.CLUSTER_PEERS) List<PeerConfig> peers) {}
