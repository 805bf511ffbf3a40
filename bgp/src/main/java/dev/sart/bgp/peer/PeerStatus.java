package dev.sart.bgp.peer;

import dev.sart.bgp.fsm.State;
import dev.sart.bgp.wire.Family;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;

/**
 * A consistent snapshot of a peer for the API and metrics.
 *
 * @param state the FSM state of the session (of the primary connection)
 * @param establishedSince when the session last became Established, or null
 * @param peerRouterId the peer's BGP Identifier once an OPEN was accepted, else 0
 * @param holdTime the negotiated hold time (the configured one before negotiation)
 * @param keepaliveTime the keepalive interval in use
 * @param families the negotiated families (the configured ones before negotiation)
 * @param sent messages sent, by type (index = BGP message type, 1..5)
 * @param received messages received, by type
 * @param flaps how often the session left Established
 * @param lastError since the session was last up: the last NOTIFICATION sent or received, a
 *     malformed message, or why a connection failed; or null
 * @param lastReset why the session last left Established (the last error then), kept while it is up
 *     again; or null
 * @param lastResetAt when it did, or null
 */
public record PeerStatus(
    State state,
    Instant establishedSince,
    int peerRouterId,
    Duration holdTime,
    Duration keepaliveTime,
    Set<Family> families,
    long[] sent,
    long[] received,
    long flaps,
    String lastError,
    String lastReset,
    Instant lastResetAt) {

  /** A snapshot of {@code peer} (any thread). */
  static PeerStatus of(Peer peer) {
    dev.sart.bgp.fsm.Negotiation n = peer.negotiated;
    return new PeerStatus(
        peer.state,
        peer.establishedSince,
        n == null ? 0 : n.peerId(),
        n == null ? peer.config.holdTime() : n.fsm().holdTime(),
        n == null
            ? (peer.config.keepaliveTime() != null
                ? peer.config.keepaliveTime()
                : peer.config.holdTime().dividedBy(3))
            : n.fsm().keepaliveTime(),
        n == null ? peer.config.families() : n.families(),
        copy(peer.sent),
        copy(peer.received),
        peer.flaps,
        peer.lastError,
        peer.lastReset,
        peer.lastResetAt);
  }

  private static long[] copy(java.util.concurrent.atomic.AtomicLongArray a) {
    long[] c = new long[a.length()];
    for (int i = 0; i < c.length; i++) {
      c[i] = a.getAcquire(i);
    }
    return c;
  }
}
