package dev.sart.bgp.peer;

import dev.sart.bgp.fsm.Negotiation;
import dev.sart.bgp.rib.AddPathSend;
import dev.sart.bgp.wire.Capability;
import dev.sart.bgp.wire.Family;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The capabilities of a data-centre fabric that a neighbour's configuration adds to our OPEN, and
 * what the RIB must know of them once negotiated: ADD-PATH (RFC 7911).
 */
final class FabricCapabilities {
  private FabricCapabilities() {}

  /**
   * RFC 7911 §4: one entry per family we offer both ways or one way, in the families of the
   * session; null when there is none.
   */
  static Capability.AddPath addPath(PeerConfig config) {
    PeerConfig.AddPath a = config.addPath();
    List<Capability.AddPath.Entry> entries = new ArrayList<>();
    List<Family> families = new ArrayList<>(config.families());
    families.sort((x, y) -> x.afi() != y.afi() ? x.afi() - y.afi() : x.safi() - y.safi());
    for (Family f : families) {
      int mode =
          (a.receive().contains(f) ? Capability.AddPath.RECEIVE : 0)
              | (a.send().contains(f) ? Capability.AddPath.SEND : 0);
      if (mode != 0) {
        entries.add(new Capability.AddPath.Entry(f, mode));
      }
    }
    return entries.isEmpty() ? null : new Capability.AddPath(entries);
  }

  /**
   * RFC 4456 towards the peer: client or not, next hop self, and the speaker's CLUSTER_ID and BGP
   * Identifier for the loop checks of §8.
   */
  static dev.sart.bgp.rib.Reflection reflection(PeerConfig config, Peer.Speaker speaker) {
    return new dev.sart.bgp.rib.Reflection(
        config.routeReflectorClient(),
        config.nextHopSelf(),
        speaker.clusterId(),
        speaker.routerId());
  }

  /**
   * What the RIB sends the peer with Path Identifiers: the families negotiated for us to send in
   * (RFC 7911 §4, in the codec's options), or null when there is none.
   */
  static AddPathSend addPathSend(PeerConfig config, Negotiation n) {
    Set<Family> send = n.options().addPathSend();
    return send.isEmpty() ? null : new AddPathSend(send, config.addPath().sendMax());
  }
}
