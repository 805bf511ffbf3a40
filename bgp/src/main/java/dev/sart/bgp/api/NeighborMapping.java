package dev.sart.bgp.api;

import dev.sart.bgp.fsm.Negotiation;
import dev.sart.bgp.rib.PrefixCounters;
import dev.sart.bgp.wire.Capability;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Iana;
import dev.sart.bgp.wire.Open;
import dev.sart.proto.v1.NeighborCapability;
import dev.sart.proto.v1.PrefixCount;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What GetNeighbor reports of a session beyond its configuration: the capabilities of both OPENs
 * (RFC 5492) and the prefix counts per family.
 */
final class NeighborMapping {
  private NeighborMapping() {}

  /** One row: a capability code, with the family for Multiprotocol (one row per family). */
  private record Key(int code, int afi, int safi) {}

  private static final Comparator<Key> ORDER =
      Comparator.comparingInt(Key::code).thenComparingInt(Key::afi).thenComparingInt(Key::safi);

  /**
   * Every capability of our OPEN and of the neighbour's, in code order: which side sent it and what
   * it held. A capability sent twice in one OPEN (RFC 5492 §4 allows it) shows its values joined by
   * "; ".
   */
  static List<NeighborCapability> capabilities(Negotiation n) {
    Map<Key, String[]> rows = new TreeMap<>(ORDER);
    collect(n.sent(), 0, rows);
    collect(n.received(), 1, rows);
    List<NeighborCapability> out = new ArrayList<>(rows.size());
    for (Map.Entry<Key, String[]> e : rows.entrySet()) {
      Key k = e.getKey();
      String[] v = e.getValue();
      out.add(
          NeighborCapability.newBuilder()
              .setCode(k.code())
              .setName(name(k))
              .setAdvertised(v[0] != null)
              .setReceived(v[1] != null)
              .setAdvertisedValue(Objects.requireNonNullElse(v[0], ""))
              .setReceivedValue(Objects.requireNonNullElse(v[1], ""))
              .build());
    }
    return out;
  }

  private static void collect(Open open, int side, Map<Key, String[]> rows) {
    for (Capability c : open.capabilities()) {
      Key k =
          c instanceof Capability.Multiprotocol mp
              ? new Key(c.code(), mp.family().afi(), mp.family().safi())
              : new Key(c.code(), 0, 0);
      String[] v = rows.computeIfAbsent(k, x -> new String[2]);
      String value = value(c);
      v[side] = v[side] == null || v[side].equals(value) ? value : v[side] + "; " + value;
    }
  }

  private static String name(Key k) {
    return switch (k.code()) {
      case Iana.CapabilityCode.MULTIPROTOCOL ->
          "multiprotocol " + family(Family.of(k.afi(), k.safi()));
      case Iana.CapabilityCode.ROUTE_REFRESH -> "route refresh";
      case Iana.CapabilityCode.EXTENDED_NEXT_HOP -> "extended next hop";
      case Iana.CapabilityCode.EXTENDED_MESSAGE -> "extended message";
      case Iana.CapabilityCode.ROLE -> "BGP role";
      case Iana.CapabilityCode.GRACEFUL_RESTART -> "graceful restart";
      case Iana.CapabilityCode.FOUR_OCTET_AS -> "4-octet AS";
      case Iana.CapabilityCode.ADD_PATH -> "ADD-PATH";
      case Iana.CapabilityCode.ENHANCED_ROUTE_REFRESH -> "enhanced route refresh";
      case Iana.CapabilityCode.LONG_LIVED_GRACEFUL_RESTART -> "long-lived graceful restart";
      case Iana.CapabilityCode.FQDN -> "hostname";
      // IANA: "Route Refresh Capability for BGP-4 (Cisco)", the code before RFC 2918 had one
      case 128 -> "route refresh (pre-standard)";
      default -> "capability " + k.code();
    };
  }

  /** What one capability holds, readably; empty for one without a value. */
  private static String value(Capability c) {
    return switch (c) {
      case Capability.Multiprotocol mp -> "";
      case Capability.RouteRefresh rr -> "";
      case Capability.EnhancedRouteRefresh err -> "";
      case Capability.ExtendedMessage em -> "";
      case Capability.FourOctetAs as -> "AS " + as.as();
      case Capability.GracefulRestart gr -> gracefulRestart(gr);
      case Capability.AddPath ap ->
          ap.families().stream()
              .map(e -> family(e.family()) + " " + sendReceive(e))
              .collect(Collectors.joining(", "));
      case Capability.ExtendedNextHop nh ->
          nh.entries().stream()
              .map(e -> family(e.family()) + " via " + afi(e.nextHopAfi()))
              .collect(Collectors.joining(", "));
      case Capability.LongLivedGracefulRestart ll ->
          ll.families().stream()
              .map(
                  e ->
                      family(e.family())
                          + ((e.flags() & 0x80) != 0 ? " F" : "")
                          + " stale time "
                          + e.staleTime()
                          + " s")
              .collect(Collectors.joining(", "));
      case Capability.Role r -> role(r.role());
      case Capability.Fqdn f ->
          f.domain().isEmpty() ? f.hostname() : f.hostname() + "." + f.domain();
      case Capability.Unknown u -> u.value().length() == 0 ? "" : u.value().length() + " octet(s)";
    };
  }

  /** "restart time 120 s, R N, ipv4/unicast F": RFC 4724 §3's flags and families, RFC 8538's N. */
  private static String gracefulRestart(Capability.GracefulRestart gr) {
    StringBuilder sb = new StringBuilder("restart time ").append(gr.restartTime()).append(" s");
    if (gr.restarting()) {
      sb.append(", R");
    }
    if (gr.notificationSupported()) {
      sb.append(gr.restarting() ? " N" : ", N");
    }
    for (Capability.GracefulRestart.Entry e : gr.families()) {
      sb.append(", ").append(family(e.family())).append(e.forwardingPreserved() ? " F" : "");
    }
    return sb.toString();
  }

  private static String sendReceive(Capability.AddPath.Entry e) {
    return e.send() && e.receive()
        ? "send/receive"
        : e.send() ? "send" : e.receive() ? "receive" : "none";
  }

  private static String role(int role) {
    return switch (role) {
      case Iana.Role.PROVIDER -> "provider";
      case Iana.Role.ROUTE_SERVER -> "route server";
      case Iana.Role.ROUTE_SERVER_CLIENT -> "route server client";
      case Iana.Role.CUSTOMER -> "customer";
      case Iana.Role.PEER -> "peer";
      default -> "role " + role;
    };
  }

  private static String afi(int afi) {
    return switch (afi) {
      case Iana.Afi.IPV4 -> "ipv4";
      case Iana.Afi.IPV6 -> "ipv6";
      default -> "afi " + afi;
    };
  }

  /** "ipv4/unicast", as the CLI writes a family. */
  static String family(Family f) {
    return f.toString().replace('-', '/');
  }

  /** The prefix counts of each of {@code families}, in AFI order. */
  static List<PrefixCount> prefixes(PrefixCounters c, Set<Family> families) {
    return families.stream()
        .sorted(Comparator.comparingInt(Family::afi).thenComparingInt(Family::safi))
        .map(
            f ->
                PrefixCount.newBuilder()
                    .setFamily(ProtoMapping.family(f))
                    .setReceived(c.received(f))
                    .setAccepted(c.accepted(f))
                    .setAdvertised(c.advertised(f))
                    .build())
        .toList();
  }
}
