package dev.sart.bgp.fsm;

import java.time.Duration;

/**
 * The session attributes of RFC 4271 §8 that are configuration, not state.
 *
 * @param connectRetryTime ConnectRetryTime (§8, §10: "120 seconds" suggested; data centres use
 *     less): the wait after the first failed connect
 * @param maxConnectRetryTime the ceiling of the back-off of the ConnectRetryTimer: with
 *     DampPeerOscillations each connect that fails in a row doubles the wait up to this
 * @param largeHoldTime the HoldTimer value while waiting for the peer's OPEN (§8.2.2 suggests 4
 *     minutes)
 * @param delayOpenTime DelayOpenTime; zero turns the optional DelayOpen attribute off
 * @param idleHoldTime IdleHoldTime: how long Idle waits before restarting the session by itself
 * @param maxIdleHoldTime the ceiling of the exponential back-off of {@code idleHoldTime}
 * @param dampPeerOscillations DampPeerOscillations: double the IdleHoldTime after each error
 * @param stableTime after this long in Established the back-off is forgotten
 * @param passive PassiveTcpEstablishment: wait for the peer to connect, never connect
 * @param sendNotificationWithoutOpen SendNOTIFICATIONwithoutOPEN
 * @param sendHoldTime RFC 9687 SendHoldTime; zero picks the recommended max(8 min, 2 × HoldTime)
 */
public record FsmConfig(
    Duration connectRetryTime,
    Duration maxConnectRetryTime,
    Duration largeHoldTime,
    Duration delayOpenTime,
    Duration idleHoldTime,
    Duration maxIdleHoldTime,
    boolean dampPeerOscillations,
    Duration stableTime,
    boolean passive,
    boolean sendNotificationWithoutOpen,
    Duration sendHoldTime) {

  /** Defaults for a data-centre peer: quick retries, damping on, active. */
  public static FsmConfig defaults() {
    return new FsmConfig(
        Duration.ofSeconds(10),
        Duration.ofMinutes(2),
        Duration.ofMinutes(4),
        Duration.ZERO,
        Duration.ofSeconds(5),
        Duration.ofMinutes(2),
        true,
        Duration.ofMinutes(5),
        false,
        false,
        Duration.ZERO);
  }

  public boolean delayOpen() {
    return !delayOpenTime.isZero();
  }

  public FsmConfig withPassive(boolean p) {
    return new FsmConfig(
        connectRetryTime,
        maxConnectRetryTime,
        largeHoldTime,
        delayOpenTime,
        idleHoldTime,
        maxIdleHoldTime,
        dampPeerOscillations,
        stableTime,
        p,
        sendNotificationWithoutOpen,
        sendHoldTime);
  }

  public FsmConfig withDelayOpenTime(Duration d) {
    return new FsmConfig(
        connectRetryTime,
        maxConnectRetryTime,
        largeHoldTime,
        d,
        idleHoldTime,
        maxIdleHoldTime,
        dampPeerOscillations,
        stableTime,
        passive,
        sendNotificationWithoutOpen,
        sendHoldTime);
  }

  public FsmConfig withDampPeerOscillations(boolean d) {
    return new FsmConfig(
        connectRetryTime,
        maxConnectRetryTime,
        largeHoldTime,
        delayOpenTime,
        idleHoldTime,
        maxIdleHoldTime,
        d,
        stableTime,
        passive,
        sendNotificationWithoutOpen,
        sendHoldTime);
  }

  public FsmConfig withSendNotificationWithoutOpen(boolean s) {
    return new FsmConfig(
        connectRetryTime,
        maxConnectRetryTime,
        largeHoldTime,
        delayOpenTime,
        idleHoldTime,
        maxIdleHoldTime,
        dampPeerOscillations,
        stableTime,
        passive,
        s,
        sendHoldTime);
  }

  public FsmConfig withConnectRetryTime(Duration d) {
    return new FsmConfig(
        d,
        maxConnectRetryTime.compareTo(d) < 0 ? d : maxConnectRetryTime,
        largeHoldTime,
        delayOpenTime,
        idleHoldTime,
        maxIdleHoldTime,
        dampPeerOscillations,
        stableTime,
        passive,
        sendNotificationWithoutOpen,
        sendHoldTime);
  }

  public FsmConfig withIdleHoldTime(Duration initial, Duration max) {
    return new FsmConfig(
        connectRetryTime,
        maxConnectRetryTime,
        largeHoldTime,
        delayOpenTime,
        initial,
        max,
        dampPeerOscillations,
        stableTime,
        passive,
        sendNotificationWithoutOpen,
        sendHoldTime);
  }

  /** The ceiling of the ConnectRetryTimer's back-off (at least the ConnectRetryTime). */
  public FsmConfig withMaxConnectRetryTime(Duration max) {
    return new FsmConfig(
        connectRetryTime,
        max.compareTo(connectRetryTime) < 0 ? connectRetryTime : max,
        largeHoldTime,
        delayOpenTime,
        idleHoldTime,
        maxIdleHoldTime,
        dampPeerOscillations,
        stableTime,
        passive,
        sendNotificationWithoutOpen,
        sendHoldTime);
  }

  /**
   * The ConnectRetryTimer after {@code failures} connects failed in a row: the ConnectRetryTime,
   * doubled for each failure after the first (§8.1.1 DampPeerOscillations: "the BGP peer [...]
   * use[s] mechanisms to prevent BGP peer oscillation"; the RFC leaves the method open) up to
   * {@link #maxConnectRetryTime}. Without damping always the ConnectRetryTime.
   */
  public Duration connectRetryTimeAfter(int failures) {
    if (!dampPeerOscillations || failures <= 1) {
      return connectRetryTime;
    }
    int shift = Math.min(failures - 1, 20);
    Duration d = connectRetryTime.multipliedBy(1L << shift);
    return d.compareTo(maxConnectRetryTime) > 0 ? maxConnectRetryTime : d;
  }

  /**
   * RFC 9687 §4: "8 minutes or 2 times the negotiated HoldTime, whichever is greater", unless
   * configured.
   */
  Duration sendHoldTimeFor(Duration negotiatedHoldTime) {
    if (!sendHoldTime.isZero()) {
      return sendHoldTime;
    }
    Duration twice = negotiatedHoldTime.multipliedBy(2);
    return twice.compareTo(Duration.ofMinutes(8)) > 0 ? twice : Duration.ofMinutes(8);
  }
}
