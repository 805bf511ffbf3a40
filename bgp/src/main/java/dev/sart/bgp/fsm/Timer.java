package dev.sart.bgp.fsm;

/**
 * The timers the FSM starts and stops through {@link Action.StartTimer} / {@link Action.StopTimer};
 * the I/O layer owns the clocks and feeds the matching expiry event back.
 */
public enum Timer {
  /** RFC 4271 §8: ConnectRetryTimer → {@link Event.ConnectRetryTimerExpires}. */
  CONNECT_RETRY,
  /** RFC 4271 §8: HoldTimer → {@link Event.HoldTimerExpires}. */
  HOLD,
  /** RFC 4271 §8: KeepaliveTimer → {@link Event.KeepaliveTimerExpires}. */
  KEEPALIVE,
  /** RFC 4271 §8 (optional): DelayOpenTimer → {@link Event.DelayOpenTimerExpires}. */
  DELAY_OPEN,
  /** RFC 4271 §8 (optional): IdleHoldTimer → {@link Event.IdleHoldTimerExpires}. */
  IDLE_HOLD,
  /**
   * RFC 9687: SendHoldTimer → {@link Event.SendHoldTimerExpires}; restarted by the I/O layer
   * whenever bytes leave.
   */
  SEND_HOLD,
  /**
   * Ours: a session that stays Established this long forgets its oscillation history, so the
   * IdleHoldTime back-off starts from the initial value again → {@link Event.StableTimerExpires}.
   */
  STABLE
}
