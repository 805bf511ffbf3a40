package dev.sart.bgp.peer;

import dev.sart.bgp.fsm.Event;
import dev.sart.bgp.fsm.Negotiation;
import dev.sart.bgp.fsm.State;
import java.util.logging.Logger;

/**
 * RFC 4271 §6.8, connection collision detection, and RFC 4724 §4.2 (a restarted peer's new
 * connection replaces its Established one): when an OPEN arrives on one of a peer's two
 * connections, which of them goes on. Runs on the peer's event loop, as every {@link Connection}
 * step does.
 */
final class Collisions {
  private static final Logger LOG = Logger.getLogger(Peer.class.getName());

  private Collisions() {}

  /**
   * Decides between {@code self}, whose OPEN was just accepted as {@code n}, and the peer's other
   * connection, closing the loser (event 23, OpenCollisionDump) and leaving the winner as the
   * peer's primary.
   *
   * @return whether {@code self} goes on with its OPEN; false when it was the one closed
   */
  static boolean resolve(Peer peer, Connection self, Negotiation n) {
    // RFC 4271 §6.8: connection collision detection
    Connection other = self == peer.primary ? peer.secondary : peer.primary;
    if (other != null) {
      State os = other.session.state();
      Connection loser = null;
      boolean replaced = false;
      if (os == State.ESTABLISHED && other.channel != null && Peer.restartable(other)) {
        // RFC 4724 §4.2: an OPEN from a peer that can restart gracefully, while its session is
        // Established, means that it restarted and we missed the end of the old session ("the
        // previous TCP session MUST be closed, and the new one retained"): the old one ends as if
        // its connection had failed (no NOTIFICATION: its routes stay, stale) and this one goes on
        LOG.info(
            () -> "peer=" + peer.name() + " event=restarted-peer-reconnected closing=established");
        other.handle(new Event.TcpConnectionFails());
        other.cancelTimers();
        peer.promote(self);
      } else if (os == State.ESTABLISHED && other.channel != null) {
        loser = self;
      } else if (os == State.OPEN_SENT && other.channel != null && other.silentLongerThanHold()) {
        // §6.8 lets a speaker examine a connection in OpenSent only by what it knows of the peer;
        // one that has waited for the peer's OPEN longer than a hold time while the peer opens
        // connections of its own is dead (half-open after a link loss: the peer lost its end),
        // and keeping it would refuse the peer's live connection until its 4-minute OpenSent
        // hold timer (§8.2.2) expires
        loser = other;
        replaced = true;
      } else if ((os == State.OPEN_SENT || os == State.OPEN_CONFIRM) && other.channel != null) {
        boolean keepIncoming = Integer.compareUnsigned(peer.speaker.routerId(), n.peerId()) < 0;
        loser = keepIncoming ? (self.outgoing() ? self : other) : (self.outgoing() ? other : self);
      } else if (self == peer.secondary) {
        // no collision with a connection in Idle, Connect or Active: the primary's attempt failed
        // meanwhile, so this connection carries the session (it would otherwise become
        // Established unseen, while the primary kept retrying)
        loser = other;
        replaced = true;
      }
      if (loser != null) {
        Connection l = loser;
        String event = replaced ? "connection-replaced" : "collision";
        LOG.info(
            () ->
                "peer="
                    + peer.name()
                    + " event="
                    + event
                    + " closing="
                    + (l.outgoing() ? "outgoing" : "incoming"));
        l.handle(new Event.OpenCollisionDump());
        l.cancelTimers();
        if (l == self) {
          if (os == State.OPEN_SENT) {
            // the connection kept has shown no OPEN yet; the peer, alive on the one just closed,
            // may never send one on it (it can have left it: SpeakerCollisionTest once waited on
            // FRR's that way), so it waits no longer than the hold time that OPEN negotiated
            other.awaitOpenWithin(n.fsm().holdTime());
          }
          if (self == peer.secondary) {
            peer.dropSecondary(self);
          } else {
            // the primary lost on its own OPEN: the second connection carries the session, and
            // the peer's state is its state (left as the secondary, the peer said Idle meanwhile)
            peer.promote(other);
            State was = peer.state;
            State now = other.session.state();
            if (was != now) {
              LOG.info(
                  () ->
                      "peer="
                          + peer.name()
                          + " state="
                          + now
                          + " from="
                          + was
                          + " event=connection-kept");
              peer.stateIs(now);
            }
          }
          return false;
        }
        // the primary lost: the second connection takes its place
        peer.promote(self);
      }
    }
    return true;
  }
}
