package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;

/**
 * Graceful restart (RFC 4724) of one BGP peer, an addition of sart (Java): {@code helper} (default
 * true) keeps the peer's routes, stale, while it restarts (§4.2); {@code restartTime} (seconds,
 * 0..4095, default 120) is the restart time the speaker advertises to it (§3, 12 bits).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record GracefulRestartSpec(Boolean helper, @Min(0) @Max(4095) Long restartTime) {}
