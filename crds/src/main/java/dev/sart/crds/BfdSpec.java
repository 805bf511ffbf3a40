package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;

/**
 * Single-hop BFD (RFC 5880, RFC 5881) for a BGP peer, an addition of sart (Java): the session goes
 * down when BFD does (RFC 5882). Milliseconds; absent fields take the speaker's defaults (300 ms,
 * 300 ms, 3). Schema bounds only (no CEL rule), as the speaker checks them (RFC 5880 §6.8.1: {@code
 * minTx} above zero).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BfdSpec(
    @Min(1) @Max(60000) Long minTx,
    @Min(1) @Max(60000) Long minRx,
    @Min(1) @Max(255) Long multiplier) {}
