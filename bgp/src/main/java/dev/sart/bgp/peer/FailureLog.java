package dev.sart.bgp.peer;

import dev.sart.bgp.fsm.State;
import java.time.Duration;

/**
 * Failures in a row of one peer (connects that failed, connections rejected), so that a session
 * that keeps failing is logged once with the reason and then at a falling rate, not one INFO line
 * per attempt (issue 23 §1). On the peer's loop.
 */
final class FailureLog {
  private final Peer peer;
  int connectFailuresInARow;
  int rejectedInARow;

  FailureLog(Peer peer) {
    this.peer = peer;
  }

  /**
   * Whether the {@code n}th failure in a row is one too many to log at INFO: the first is logged
   * with its reason, then the 2nd, 4th, 8th, ... (a falling rate), the others at FINE.
   */
  static boolean oftenRepeated(int n) {
    return n > 1 && Integer.bitCount(n) != 1;
  }

  /**
   * Our connect failed (refused, unreachable, timed out); on the loop, after the FSM went to
   * Active. Logged the first time with the reason and when the next attempt is, then at a falling
   * rate ({@link #oftenRepeated}); every attempt at FINE.
   */
  void connectFailed(String cause, Duration nextAttempt) {
    int n = ++connectFailuresInARow;
    peer.error("connect failed: " + cause);
    Peer.LOG.log(
        oftenRepeated(n) ? java.util.logging.Level.FINE : java.util.logging.Level.INFO,
        () ->
            "peer="
                + peer.name()
                + " event=connect-failed cause=\""
                + cause
                + "\" failed-in-a-row="
                + n
                + " next-attempt-in="
                + nextAttempt.toMillis()
                + "ms"
                + (n == 1 ? " (repeats are logged at the 2nd, 4th, 8th, ... failure)" : ""));
  }

  /**
   * Whether a state change is part of a retry cycle already reported ({@link #connectFailed}): the
   * moves between Idle, Connect and Active while connects keep failing.
   */
  boolean quietStateChange(State from, State to) {
    return connectFailuresInARow > 0 && !sessionState(from) && !sessionState(to);
  }

  private static boolean sessionState(State s) {
    return s == State.OPEN_SENT || s == State.OPEN_CONFIRM || s == State.ESTABLISHED;
  }

  /** The session came up: the failure counts start again. */
  void resetFailureCounts() {
    connectFailuresInARow = 0;
    rejectedInARow = 0;
  }
}
