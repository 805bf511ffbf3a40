package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;

/**
 * Graceful restart (RFC 4724) of one BGP peer, an addition of sart (Java): {@code helper} (default
 * true) keeps the peer's routes, stale, while it restarts (§4.2); {@code restartTime} (seconds,
 * 0..4095, default 120) is the restart time the speaker advertises to it (§3, 12 bits); {@code
 * notification} (default false) sends RFC 8538's N bit: with a peer that sends it too, a session
 * that ends with a NOTIFICATION other than a Hard Reset — a hold timer expiry too — is a restart.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record GracefulRestartSpec(
    Boolean helper, @Min(0) @Max(4095) Long restartTime, Boolean notification) {

  /** Without {@code notification}. */
  public GracefulRestartSpec(Boolean helper, Long restartTime) {
    this(helper, restartTime, null);
  }
}
