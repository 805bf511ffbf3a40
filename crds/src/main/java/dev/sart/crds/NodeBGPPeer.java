package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/** A peer of a NodeBGP: the name of its BGPPeer and a copy of the BGPPeer's spec. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodeBGPPeer(
    @Required @Size(max = Limits.NAME) String name, @Required BGPPeerSpec spec) {}
