package dev.sart.bgp.bfd;

import java.time.Duration;

/**
 * A BFD session's timers as configured (RFC 5880 §6.8.1: bfd.DesiredMinTxInterval,
 * bfd.RequiredMinRxInterval, bfd.DetectMult).
 *
 * @param minTx the interval at which we would like to send (Desired Min TX Interval)
 * @param minRx the shortest interval at which we can receive (Required Min RX Interval)
 * @param multiplier the Detect Mult: packets missed before the session is declared down
 */
public record BfdConfig(Duration minTx, Duration minRx, int multiplier) {
  /** FRR's defaults: 300 ms × 3. */
  public static final BfdConfig DEFAULT =
      new BfdConfig(Duration.ofMillis(300), Duration.ofMillis(300), 3);

  public BfdConfig {
    // the wire fields are 32-bit microseconds; a Desired Min TX of 0 is not allowed (§4.1)
    if (minTx.toNanos() < 1_000 || minTx.toMillis() > 60_000) {
      throw new IllegalArgumentException("BFD min_tx must be 1 µs..60 s: " + minTx.toMillis());
    }
    if (minRx.isNegative() || minRx.toMillis() > 60_000) {
      throw new IllegalArgumentException("BFD min_rx must be 0..60 s: " + minRx.toMillis());
    }
    // §4.1: Detect Mult, one octet, never 0
    if (multiplier < 1 || multiplier > 255) {
      throw new IllegalArgumentException("BFD multiplier must be 1..255: " + multiplier);
    }
  }

  /** In milliseconds, as the configuration file and the API give them. */
  public static BfdConfig ofMillis(long minTx, long minRx, int multiplier) {
    return new BfdConfig(Duration.ofMillis(minTx), Duration.ofMillis(minRx), multiplier);
  }

  long minTxMicros() {
    return minTx.toNanos() / 1_000;
  }

  long minRxMicros() {
    return minRx.toNanos() / 1_000;
  }
}
