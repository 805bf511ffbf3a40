package dev.sart.bgp.fsm;

import java.time.Duration;

/**
 * The state of one BGP connection's FSM (RFC 4271 §8): immutable; {@link Fsm#step} returns the
 * next.
 *
 * @param state the FSM state
 * @param connectRetryCounter ConnectRetryCounter
 * @param delayOpenTimerRunning whether the DelayOpenTimer runs (an OPEN then counts as event 20)
 * @param idleHoldTime the IdleHoldTime the next automatic restart waits (grows with damping)
 * @param automaticRestart whether the session restarts by itself after an error (false after
 *     ManualStop)
 * @param negotiated the OPEN negotiation once an OPEN was accepted, else null
 * @param connectFailures our connects that failed or that the peer refused (Cease / Connection
 *     Rejected) in a row, since the peer last connected to us or sent its OPEN: the
 *     ConnectRetryTimer backs off with it ({@link FsmConfig#connectRetryTimeAfter})
 */
public record Session(
    State state,
    int connectRetryCounter,
    boolean delayOpenTimerRunning,
    Duration idleHoldTime,
    boolean automaticRestart,
    Negotiated negotiated,
    int connectFailures) {

  public Session(
      State state,
      int connectRetryCounter,
      boolean delayOpenTimerRunning,
      Duration idleHoldTime,
      boolean automaticRestart,
      Negotiated negotiated) {
    this(
        state,
        connectRetryCounter,
        delayOpenTimerRunning,
        idleHoldTime,
        automaticRestart,
        negotiated,
        0);
  }

  /** A new FSM: Idle, not started. */
  public static Session initial(FsmConfig config) {
    return new Session(State.IDLE, 0, false, config.idleHoldTime(), false, null);
  }

  Session with(State s) {
    return new Session(
        s,
        connectRetryCounter,
        delayOpenTimerRunning,
        idleHoldTime,
        automaticRestart,
        negotiated,
        connectFailures);
  }

  Session withCounter(int c) {
    return new Session(
        state,
        c,
        delayOpenTimerRunning,
        idleHoldTime,
        automaticRestart,
        negotiated,
        connectFailures);
  }

  Session withDelayOpenTimerRunning(boolean r) {
    return new Session(
        state, connectRetryCounter, r, idleHoldTime, automaticRestart, negotiated, connectFailures);
  }

  Session withIdleHoldTime(Duration d) {
    return new Session(
        state,
        connectRetryCounter,
        delayOpenTimerRunning,
        d,
        automaticRestart,
        negotiated,
        connectFailures);
  }

  Session withAutomaticRestart(boolean a) {
    return new Session(
        state,
        connectRetryCounter,
        delayOpenTimerRunning,
        idleHoldTime,
        a,
        negotiated,
        connectFailures);
  }

  Session withNegotiated(Negotiated n) {
    return new Session(
        state,
        connectRetryCounter,
        delayOpenTimerRunning,
        idleHoldTime,
        automaticRestart,
        n,
        connectFailures);
  }

  Session withConnectFailures(int f) {
    return new Session(
        state,
        connectRetryCounter,
        delayOpenTimerRunning,
        idleHoldTime,
        automaticRestart,
        negotiated,
        f);
  }

  /**
   * Whether an incoming TCP connection for this peer may be handed to this FSM (Idle refuses all).
   */
  public boolean acceptsConnection() {
    return state == State.CONNECT || state == State.ACTIVE;
  }
}
