package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;

/** Empty, as in sart. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BGPPeerTemplateStatus() {}
