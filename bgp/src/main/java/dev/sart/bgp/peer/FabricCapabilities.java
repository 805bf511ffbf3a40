package dev.sart.bgp.peer;

import dev.sart.bgp.fsm.Negotiation;
import dev.sart.bgp.rib.AddPathSend;
import dev.sart.bgp.wire.Capability;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.MpNextHop;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The capabilities of a data-centre fabric that a neighbour's configuration adds to our OPEN, and
 * what the RIB must know of them once negotiated: ADD-PATH (RFC 7911), extended next hop (RFC
 * 8950), route reflection (RFC 4456).
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
   * The AS the peer's OPEN must carry (RFC 4271 §6.2): the configured one, or with {@code remote-as
   * external} the one it names if that is not ours, with {@code internal} ours.
   */
  static long expectedPeerAs(PeerConfig config, dev.sart.bgp.wire.Open received, long localAs) {
    return switch (config.remoteAs()) {
      case NUMBER -> config.asn();
      case INTERNAL -> localAs;
      case EXTERNAL -> received.as() != localAs ? received.as() : -1;
    };
  }

  /**
   * RFC 8950 §4: on a session over IPv6 that carries IPv4 unicast, we offer IPv4 NLRI with IPv6
   * next hops; null otherwise.
   */
  static Capability.ExtendedNextHop extendedNextHop(PeerConfig config) {
    if (config.address() instanceof java.net.Inet4Address
        || !config.families().contains(Family.IPV4_UNICAST)) {
      return null;
    }
    return new Capability.ExtendedNextHop(
        List.of(
            new Capability.ExtendedNextHop.Entry(
                dev.sart.bgp.wire.Iana.Afi.IPV4,
                dev.sart.bgp.wire.Iana.Safi.UNICAST,
                dev.sart.bgp.wire.Iana.Afi.IPV6)));
  }

  /**
   * Our IPv6 next hop on a session whose local address is link-local (unnumbered): RFC 2545 §3
   * wants a global address first and the link-local second; with no global address on the link the
   * link-local goes in both (as FRR sends it), and the peer uses the link-local with the interface
   * the session runs on.
   */
  static MpNextHop linkLocal(java.net.Inet6Address local, MpNextHop global) {
    if (!local.isLinkLocalAddress() || !(global instanceof MpNextHop.V6 g)) {
      return global;
    }
    return new MpNextHop.V6WithLinkLocal(g.high(), g.low(), g.high(), g.low());
  }

  /**
   * The next hop of IPv4 NLRI towards the peer: our IPv6 one when extended next hop is negotiated
   * for IPv4 unicast (RFC 8950 §4), else what it was (null on an IPv6 session: not announced).
   */
  static MpNextHop ipv4NextHop(Negotiation n, MpNextHop v4, MpNextHop v6) {
    return v4 == null && n.options().extendedNextHop().contains(Family.IPV4_UNICAST) ? v6 : v4;
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
