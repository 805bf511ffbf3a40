package dev.sart.bgp.peer;

import dev.sart.bgp.fsm.Event;
import dev.sart.bgp.policy.MaxPrefix;
import dev.sart.bgp.rib.RibPeer;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Iana;
import java.nio.ByteBuffer;

/** A peer that sent more prefixes than its limit allows is stopped (RFC 4486 §4). */
final class MaxPrefixStop {
  private MaxPrefixStop() {}

  /**
   * The RIB counted more accepted prefixes than the limit (on a RIB shard's thread): RFC 4486 §4
   * Cease / Maximum Number of Prefixes Reached, with AFI, SAFI and the upper bound as data. The
   * session stays in Idle until the restart timer (if any) fires (RFC 4271 §8.1.2 event 8).
   */
  static void exceeded(Peer peer, RibPeer rp, Family family, long accepted, MaxPrefix limit) {
    peer.loop.execute(
        () -> {
          if (peer.ribPeer != rp) {
            return; // that session is gone already
          }
          ByteBuffer data =
              ByteBuffer.allocate(7)
                  .putShort((short) family.afi())
                  .put((byte) family.safi())
                  .putInt((int) limit.limit())
                  .flip();
          Peer.LOG.info(
              () ->
                  "peer="
                      + peer.name()
                      + " event=max-prefix family="
                      + family
                      + " accepted="
                      + accepted
                      + " limit="
                      + limit.limit()
                      + " restart="
                      + (limit.restart() == null ? "never" : limit.restart()));
          peer.primary.handle(
              new Event.AutomaticStop(
                  Iana.ErrorSubcode.MAXIMUM_NUMBER_OF_PREFIXES_REACHED,
                  data,
                  limit.restart() != null,
                  limit.restart()));
        });
  }
}
