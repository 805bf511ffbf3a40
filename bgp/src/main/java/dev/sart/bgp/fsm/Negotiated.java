package dev.sart.bgp.fsm;

import java.time.Duration;

/**
 * What the FSM needs of a valid OPEN once it has been checked against ours (RFC 4271 §4.2, §6.2).
 *
 * @param holdTime the negotiated hold time: the smaller of ours and the peer's; zero disables the
 *     Hold and Keepalive timers
 * @param keepaliveTime the keepalive interval (a third of the hold time unless configured)
 * @param internal whether the peer's AS equals ours (an iBGP session)
 */
public record Negotiated(Duration holdTime, Duration keepaliveTime, boolean internal) {
  public Negotiated {
    if (holdTime.isNegative() || (!holdTime.isZero() && holdTime.toSeconds() < 3)) {
      throw new IllegalArgumentException(
          "hold time must be 0 or at least 3 s (RFC 4271 §4.2): " + holdTime);
    }
  }
}
