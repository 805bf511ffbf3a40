package dev.sart.bgp.api;

import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.wire.Family;
import dev.sart.proto.v1.AddressFamily;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The data-centre fabric fields of {@code sart.v1} (issue 28): ADD-PATH (RFC 7911), the cluster id
 * (RFC 4456).
 */
final class FabricMapping {
  private FabricMapping() {}

  /** AddPeer: the peer's {@code add_path} into the builder (absent: none). */
  static void addPath(dev.sart.proto.v1.Peer p, PeerConfig.Builder b) {
    if (p.hasAddPath()) {
      dev.sart.proto.v1.AddPath a = p.getAddPath();
      b.addPath(
          new PeerConfig.AddPath(
              families(a.getReceiveList()), families(a.getSendList()), a.getSendMax()));
    }
  }

  /** GetNeighbor: the configured {@code add_path}, when there is one. */
  static void addPath(PeerConfig c, dev.sart.proto.v1.Peer.Builder b) {
    PeerConfig.AddPath a = c.addPath();
    if (a.isNone()) {
      return;
    }
    dev.sart.proto.v1.AddPath.Builder ab =
        dev.sart.proto.v1.AddPath.newBuilder().setSendMax(a.sendMax());
    a.receive().stream()
        .sorted(FabricMapping::order)
        .forEach(f -> ab.addReceive(ProtoMapping.family(f)));
    a.send().stream().sorted(FabricMapping::order).forEach(f -> ab.addSend(ProtoMapping.family(f)));
    b.setAddPath(ab);
  }

  /** SetRouterId's {@code cluster_id} (RFC 4456 §7), when given. */
  static void clusterId(dev.sart.proto.v1.SetRouterIdRequest r, dev.sart.bgp.server.BgpServer s) {
    if (r.getClusterId().isEmpty()) {
      return;
    }
    java.net.InetAddress a = java.net.InetAddress.ofLiteral(r.getClusterId());
    if (a.getAddress().length != 4) {
      throw new IllegalArgumentException("a cluster id is an IPv4 address: " + r.getClusterId());
    }
    s.setClusterId(dev.sart.bgp.wire.Ip.parseV4(r.getClusterId()));
  }

  /**
   * A link-local next hop with the zone of the session it came over ({@code fe80::1%5}, the
   * interface index), for whoever installs it ({@code sartd fib}: a link-local gateway needs its
   * interface); null when the next hop is not link-local or the session has no zone. With a global
   * and a link-local address (RFC 2545 §3) the global one is used unless it is unspecified or
   * link-local itself (unnumbered peers send the link-local in both, RFC 8950).
   */
  static String linkLocalNextHop(dev.sart.bgp.wire.MpNextHop nh, java.net.InetAddress source) {
    if (!(source instanceof java.net.Inet6Address s) || s.getScopeId() == 0) {
      return null;
    }
    long high;
    long low;
    switch (nh) {
      case dev.sart.bgp.wire.MpNextHop.V6 v -> {
        high = v.high();
        low = v.low();
      }
      case dev.sart.bgp.wire.MpNextHop.V6WithLinkLocal v -> {
        boolean globalUsable = (v.high() != 0 || v.low() != 0) && !linkLocal(v.high());
        if (globalUsable) {
          return null;
        }
        high = v.linkLocalHigh();
        low = v.linkLocalLow();
      }
      case null, default -> {
        return null;
      }
    }
    return linkLocal(high) ? dev.sart.bgp.wire.Ip.formatV6(high, low) + "%" + s.getScopeId() : null;
  }

  /** fe80::/10 (RFC 4291 §2.5.6). */
  private static boolean linkLocal(long high) {
    return (high >>> 54) == 0x3fa;
  }

  /** AddPeer: {@code interface} and {@code remote_as}. */
  static void unnumbered(dev.sart.proto.v1.Peer p, PeerConfig.Builder b) {
    if (!p.getInterface().isEmpty()) {
      b.interfaceName(p.getInterface());
    }
    switch (p.getRemoteAs()) {
      case "" -> {}
      case "external" -> b.remoteAs(PeerConfig.RemoteAs.EXTERNAL);
      case "internal" -> b.remoteAs(PeerConfig.RemoteAs.INTERNAL);
      default ->
          throw io.grpc.Status.INVALID_ARGUMENT
              .withDescription(
                  "remote_as: '" + p.getRemoteAs() + "' (external, internal, or empty)")
              .asRuntimeException();
    }
  }

  /** GetNeighbor: the interface, the kind of remote AS, and the AS the OPEN named. */
  static void unnumbered(dev.sart.bgp.peer.Peer peer, dev.sart.proto.v1.Peer.Builder b) {
    PeerConfig c = peer.config();
    if (c.interfaceName() != null) {
      b.setInterface(c.interfaceName());
    }
    if (c.remoteAs() != PeerConfig.RemoteAs.NUMBER) {
      b.setRemoteAs(c.remoteAs().name().toLowerCase(java.util.Locale.ROOT));
      dev.sart.bgp.fsm.Negotiation n = peer.negotiation();
      if (n != null) {
        b.setAsn((int) n.peerAs());
      }
    }
  }

  /** The peer made for the unnumbered neighbour on interface {@code name}, or null. */
  static dev.sart.bgp.peer.Peer peerOnInterface(dev.sart.bgp.server.BgpServer s, String name) {
    for (dev.sart.bgp.peer.Peer p : s.peers()) {
      if (name.equals(p.config().interfaceName())) {
        return p;
      }
    }
    return null;
  }

  private static int order(Family x, Family y) {
    return x.afi() != y.afi() ? x.afi() - y.afi() : x.safi() - y.safi();
  }

  private static Set<Family> families(List<AddressFamily> list) {
    Set<Family> out = new HashSet<>();
    for (AddressFamily f : list) {
      Family fam = ProtoMapping.family(f);
      if (fam == null) {
        throw io.grpc.Status.INVALID_ARGUMENT
            .withDescription("add_path: unknown address family " + f)
            .asRuntimeException();
      }
      out.add(fam);
    }
    return out;
  }
}
