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
