package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Map;

/** {@code peers}: BGPPeer name to its state for this prefix. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BGPAdvertisementStatus(Map<String, AdvertiseStatus> peers) {}
