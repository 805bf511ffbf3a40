package dev.sart.bgp.api;

import com.google.protobuf.Timestamp;
import dev.sart.bgp.fsm.State;
import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.peer.PeerStatus;
import dev.sart.bgp.rib.Attrs;
import dev.sart.bgp.rib.Path;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.wire.AsPath;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Iana;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.MpNextHop;
import dev.sart.proto.ApiErrors;
import dev.sart.proto.v1.AddressFamily;
import dev.sart.proto.v1.AsSegment;
import dev.sart.proto.v1.MessageCounter;
import io.grpc.Status;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;

/** Domain values → sart.v1 messages, in one place. */
final class ProtoMapping {
  private ProtoMapping() {}

  static AddressFamily family(Family f) {
    return AddressFamily.newBuilder()
        .setAfi(f.afi() == Iana.Afi.IPV6 ? AddressFamily.Afi.AFI_IP6 : AddressFamily.Afi.AFI_IP4)
        .setSafi(
            f.safi() == Iana.Safi.MULTICAST
                ? AddressFamily.Safi.SAFI_MULTICAST
                : AddressFamily.Safi.SAFI_UNICAST)
        .build();
  }

  /** sart's AddressFamily; UNKNOWN AFI means "from the prefix", returned as null. */
  static Family family(AddressFamily f) {
    return switch (f.getAfi()) {
      case AFI_IP4 -> Family.IPV4_UNICAST;
      case AFI_IP6 -> Family.IPV6_UNICAST;
      default -> null;
    };
  }

  static dev.sart.proto.v1.Peer.State state(State s) {
    return switch (s) {
      case IDLE -> dev.sart.proto.v1.Peer.State.IDLE;
      case CONNECT -> dev.sart.proto.v1.Peer.State.CONNECT;
      case ACTIVE -> dev.sart.proto.v1.Peer.State.ACTIVE;
      case OPEN_SENT -> dev.sart.proto.v1.Peer.State.OPEN_SENT;
      case OPEN_CONFIRM -> dev.sart.proto.v1.Peer.State.OPEN_CONFIRM;
      case ESTABLISHED -> dev.sart.proto.v1.Peer.State.ESTABLISHED;
    };
  }

  static dev.sart.proto.v1.Peer peer(Peer p) {
    PeerStatus s = p.status();
    dev.sart.proto.v1.Peer.Builder b =
        dev.sart.proto.v1.Peer.newBuilder()
            .setName(p.config().name())
            .setAsn((int) p.config().asn())
            .setAddress(address(p.config().address()))
            .setRouterId(s.peerRouterId() == 0 ? "" : Ip.formatV4(s.peerRouterId()))
            .setHoldTime((int) s.holdTime().toSeconds())
            .setKeepaliveTime((int) s.keepaliveTime().toSeconds())
            .setState(state(s.state()))
            .setPassiveOpen(p.config().passive())
            .setPort(p.config().port())
            .setMultihopTtl(p.config().multihopTtl())
            .setTtlSecurity(p.config().ttlSecurity())
            .setConnectRetryTime((int) p.config().connectRetryTime().toSeconds())
            .setSendCounter(counter(s.sent()))
            .setRecvCounter(counter(s.received()))
            .setImportPolicy(PolicyMapping.name(p.policy().importPolicy()))
            .setExportPolicy(PolicyMapping.name(p.policy().exportPolicy()))
            .setMaxPrefix(PolicyMapping.maxPrefix(p.policy().maxPrefix()))
            .setSoftReconfigurationInbound(p.policy().softReconfigurationInbound())
            .setAdvertisePeerAs(p.policy().advertisePeerAs())
            .setUpdateGroup(p.updateGroup())
            .setUpdateGroupMembers(p.updateGroupMembers())
            .setGracefulRestart(
                dev.sart.proto.v1.GracefulRestart.newBuilder()
                    .setHelperDisabled(!p.config().gracefulRestart().helper())
                    .setRestartTime((int) p.config().gracefulRestart().restartTime().toSeconds())
                    .setNotification(p.config().gracefulRestart().notification()));
    if (p.config().localAddress() != null) {
      b.setLocalAddress(address(p.config().localAddress()));
    }
    if (p.config().bfd() != null) {
      b.setBfd(bfd(p.config().bfd(), p.bfdStatus()));
    }
    FabricMapping.addPath(p.config(), b);
    b.setRouteReflectorClient(p.config().routeReflectorClient())
        .setNextHopSelf(p.config().nextHopSelf());
    FabricMapping.unnumbered(p, b);
    s.families().stream()
        .sorted((x, y) -> Integer.compare(x.afi(), y.afi()))
        .forEach(f -> b.addFamilies(family(f)));
    if (s.establishedSince() != null) {
      b.setUptime(timestamp(s.establishedSince()));
    }
    b.setFlaps((int) Math.min(s.flaps(), 0xffff_ffffL));
    if (s.lastError() != null) {
      b.setLastError(s.lastError());
    }
    if (s.lastReset() != null) {
      b.setLastReset(s.lastReset()).setLastResetTime(timestamp(s.lastResetAt()));
    }
    dev.sart.bgp.fsm.Negotiation n = p.negotiation();
    if (n != null) {
      b.addAllCapabilities(NeighborMapping.capabilities(n));
    }
    b.addAllPrefixes(NeighborMapping.prefixes(p.prefixCounters(), s.families()));
    return b.build();
  }

  /** A peer's BFD timers and, once it runs, its session (RFC 5880). */
  static dev.sart.proto.v1.Bfd bfd(dev.sart.bgp.bfd.BfdConfig c, dev.sart.bgp.bfd.BfdStatus st) {
    dev.sart.proto.v1.Bfd.Builder b =
        dev.sart.proto.v1.Bfd.newBuilder()
            .setMinTx((int) c.minTx().toMillis())
            .setMinRx((int) c.minRx().toMillis())
            .setMultiplier(c.multiplier());
    if (st != null) {
      b.setState(bfdState(st.state()))
          .setRemoteState(bfdState(st.remoteState()))
          .setDiagnostic(st.localDiag())
          .setTransmitIntervalMs((int) (st.transmitIntervalMicros() / 1000))
          .setDetectionTimeMs((int) (st.detectionTimeMicros() / 1000))
          .setDowns(st.downs());
    }
    return b.build();
  }

  private static String bfdState(dev.sart.bgp.bfd.BfdState s) {
    return switch (s) {
      case ADMIN_DOWN -> "admin-down";
      case DOWN -> "down";
      case INIT -> "init";
      case UP -> "up";
    };
  }

  /** AddPeer's BFD timers, 0 meaning the default (300 ms × 3); null without the message. */
  static dev.sart.bgp.bfd.BfdConfig bfdConfig(dev.sart.proto.v1.Peer p) {
    if (!p.hasBfd()) {
      return null;
    }
    dev.sart.proto.v1.Bfd b = p.getBfd();
    dev.sart.bgp.bfd.BfdConfig d = dev.sart.bgp.bfd.BfdConfig.DEFAULT;
    return dev.sart.bgp.bfd.BfdConfig.ofMillis(
        b.getMinTx() == 0 ? d.minTx().toMillis() : b.getMinTx(),
        b.getMinRx() == 0 ? d.minRx().toMillis() : b.getMinRx(),
        b.getMultiplier() == 0 ? d.multiplier() : b.getMultiplier());
  }

  private static MessageCounter counter(long[] c) {
    // RFC 4271 §4.1 message types: 1 OPEN, 2 UPDATE, 3 NOTIFICATION, 4 KEEPALIVE, 5 ROUTE-REFRESH
    return MessageCounter.newBuilder()
        .setOpen((int) c[1])
        .setUpdate((int) c[2])
        .setNotification((int) c[3])
        .setKeepalive((int) c[4])
        .setRouteRefresh((int) c[5])
        .build();
  }

  static Timestamp timestamp(Instant i) {
    return Timestamp.newBuilder().setSeconds(i.getEpochSecond()).setNanos(i.getNano()).build();
  }

  static dev.sart.proto.v1.Path path(Prefix prefix, Path p, boolean best) {
    return path(prefix, p, best, false);
  }

  /** {@code stale}: a path kept for a restarting peer (RFC 4724 §4.2). */
  static dev.sart.proto.v1.Path path(Prefix prefix, Path p, boolean best, boolean stale) {
    dev.sart.proto.v1.Path.Builder b =
        attrs(prefix, p.attrs())
            .setBest(best)
            .setStale(stale)
            .setTimestamp(timestamp(Instant.ofEpochMilli(p.receivedAtMillis())));
    if (!p.isLocal()) {
      b.setPeerAsn((int) p.source().asn()).setPeerAddr(address(p.source().address()));
      b.setPathId(p.pathId()); // RFC 7911 §3: 0 unless received with ADD-PATH
      String zoned = FabricMapping.linkLocalNextHop(p.attrs().nextHop(), p.source().address());
      if (zoned != null && b.getNextHopsCount() > 0) {
        b.setNextHops(0, zoned);
      }
    }
    return b.build();
  }

  static dev.sart.proto.v1.Path.Builder attrs(Prefix prefix, Attrs a) {
    dev.sart.proto.v1.Path.Builder b =
        dev.sart.proto.v1.Path.newBuilder()
            .setNlri(prefix.toString())
            .setFamily(family(prefix.family()))
            .setOrigin(a.origin());
    if (a.localPref() >= 0) {
      b.setLocalPref((int) a.localPref());
    }
    if (a.med() >= 0) {
      b.setMed((int) a.med());
    }
    String nh = nextHop(a.nextHop());
    if (nh != null) {
      b.addNextHops(nh);
    }
    for (AsPath.Segment seg : a.asPath().segments()) {
      AsSegment.Builder s =
          AsSegment.newBuilder()
              .setType(
                  seg.type() == Iana.AsPathSegmentType.AS_SET
                      ? AsSegment.Type.AS_SET
                      : AsSegment.Type.AS_SEQUENCE);
      seg.asns().forEach(as -> s.addElm(as.intValue()));
      b.addSegments(s);
    }
    return b;
  }

  /** Dotted quad or RFC 5952 text. */
  static String address(java.net.InetAddress a) {
    byte[] b = a.getAddress();
    if (b.length == 4) {
      return a.getHostAddress();
    }
    java.nio.ByteBuffer bb = java.nio.ByteBuffer.wrap(b);
    return Ip.formatV6(bb.getLong(), bb.getLong());
  }

  static String nextHop(MpNextHop nh) {
    return switch (nh) {
      case null -> null;
      case MpNextHop.V4 v4 -> v4.address() == 0 ? "0.0.0.0" : Ip.formatV4(v4.address());
      case MpNextHop.V6 v6 -> Ip.formatV6(v6.high(), v6.low());
      case MpNextHop.V6WithLinkLocal v6 -> Ip.formatV6(v6.high(), v6.low());
      case MpNextHop.Opaque o -> o.toString();
    };
  }

  /** An IP address the API was given; INVALID_ARGUMENT naming it otherwise. */
  static InetAddress address(String text) {
    try {
      return InetAddress.ofLiteral(text.strip());
    } catch (IllegalArgumentException e) {
      throw new ApiErrors.RequestException(
          Status.Code.INVALID_ARGUMENT, "not an IP address: '" + text + "'");
    }
  }

  /** The peer's session configuration (proto3: 0 and "" are "not given": the defaults stand). */
  static PeerConfig peerConfig(dev.sart.proto.v1.Peer p) {
    InetAddress address =
        p.getInterface().isEmpty() ? address(p.getAddress()) : PeerConfig.UNNUMBERED;
    Set<Family> families = new HashSet<>();
    for (AddressFamily f : p.getFamiliesList()) {
      Family fam = ProtoMapping.family(f);
      if (fam != null) {
        families.add(fam);
      }
    }
    PeerConfig.Builder b =
        PeerConfig.builder(address, Integer.toUnsignedLong(p.getAsn()))
            .name(p.getName())
            .passive(p.getPassiveOpen())
            .multihopTtl(p.getMultihopTtl())
            .ttlSecurity(p.getTtlSecurity())
            .families(families)
            .bfd(ProtoMapping.bfdConfig(p));
    if (p.getPort() != 0) {
      b.port(p.getPort());
    }
    if (!p.getLocalAddress().isEmpty()) {
      b.localAddress(address(p.getLocalAddress()));
    }
    if (!p.getPassword().isEmpty()) {
      b.password(p.getPassword());
    }
    if (p.getHoldTime() != 0) {
      b.holdTime(Duration.ofSeconds(p.getHoldTime()));
    }
    if (p.getKeepaliveTime() != 0) {
      b.keepaliveTime(Duration.ofSeconds(p.getKeepaliveTime()));
    }
    if (p.getConnectRetryTime() != 0) {
      b.connectRetryTime(Duration.ofSeconds(p.getConnectRetryTime()));
    }
    if (p.hasGracefulRestart()) {
      b.gracefulRestart(
          new PeerConfig.GracefulRestart(
              !p.getGracefulRestart().getHelperDisabled(),
              p.getGracefulRestart().getRestartTime() == 0
                  ? PeerConfig.GracefulRestart.DEFAULT.restartTime()
                  : Duration.ofSeconds(p.getGracefulRestart().getRestartTime()),
              p.getGracefulRestart().getNotification()));
    }
    FabricMapping.addPath(p, b);
    b.routeReflectorClient(p.getRouteReflectorClient()).nextHopSelf(p.getNextHopSelf());
    FabricMapping.unnumbered(p, b);
    return b.build();
  }
}
