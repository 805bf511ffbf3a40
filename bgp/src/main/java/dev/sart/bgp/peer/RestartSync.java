package dev.sart.bgp.peer;

import dev.sart.bgp.fsm.State;
import dev.sart.bgp.wire.Capability;
import dev.sart.bgp.wire.Family;
import java.util.HashSet;
import java.util.Set;

/**
 * RFC 4724 §4.1 for one peer while the speaker restarts ({@link RestartingSpeaker}): which
 * families' End-of-RIB its session still owes. Written on the peer's loop, read by the restart's
 * check on any thread.
 */
final class RestartSync {
  private final Peer peer;

  /**
   * The families whose End-of-RIB the session has not sent yet; null: no session of the restart.
   */
  private volatile Set<Family> awaitingEndOfRib;

  RestartSync(Peer peer) {
    this.peer = peer;
  }

  /**
   * A session came up (on the loop): while the speaker restarts, the End-of-RIB of which families
   * it waits for from it.
   */
  void sessionUp(Set<Family> families, Capability.GracefulRestart received) {
    RestartingSpeaker restart = peer.speaker.restart();
    if (restart == null || restart.complete()) {
      return;
    }
    awaitingEndOfRib = RestartingSpeaker.awaitedEndOfRib(families, received);
    restart.check();
  }

  /** The session ended (on the loop): it has to come up again for the restart. */
  void sessionDown() {
    awaitingEndOfRib = null;
  }

  /** The peer's End-of-RIB of {@code f} while the speaker restarts (on the loop). */
  void endOfRib(Family f) {
    Set<Family> awaiting = awaitingEndOfRib;
    RestartingSpeaker restart = peer.speaker.restart();
    if (awaiting == null || !awaiting.contains(f) || restart == null) {
      return;
    }
    Set<Family> left = new HashSet<>(awaiting);
    left.remove(f);
    awaitingEndOfRib = Set.copyOf(left);
    if (left.isEmpty()) {
      restart.check();
    }
  }

  /** Established, and every End-of-RIB it was to send is in (any thread). */
  boolean synced() {
    Set<Family> awaiting = awaitingEndOfRib;
    return peer.state == State.ESTABLISHED && awaiting != null && awaiting.isEmpty();
  }
}
