package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

/** The node speaker's ASN and router id, how to reach it, and its peers. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodeBGPSpec(
    @Required @Min(1) @Max(4294967295.0) Long asn,
    @ValidationRule(
            value = "isIP(self) && ip(self).family() == 4",
            message = "routerId must be an IPv4 address (RFC 6286: a 4-octet BGP Identifier)")
        @Required
        @Size(max = 15)
        String routerId,
    @Required SpeakerConfig speaker,
    @Size(max = Limits.NODE_PEERS) List<NodeBGPPeer> peers) {}
