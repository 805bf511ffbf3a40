package dev.sart.fib.netlink;

import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A route of a kernel routing table (RTM_NEWROUTE: struct rtmsg and RTA_*).
 *
 * <p>A route with several next hops is one multipath (ECMP) route, IPv4 or IPv6. A single next hop
 * always has weight 1: the kernel keeps no weight for it. IPv6 routes always have scope universe
 * and a metric (1024 when none is given), as the kernel reports them.
 *
 * @param destination RTA_DST and rtm_dst_len
 * @param table the table id, 1..2^32-1 (RTA_TABLE; rtm_table only holds 8 bits)
 * @param protocol who installed the route (rtm_protocol, e.g. {@link Rtnl#RTPROT_BGP}); an open
 *     registry
 * @param scope rtm_scope
 * @param type rtm_type
 * @param metric RTA_PRIORITY
 * @param preferredSource RTA_PREFSRC, or null
 * @param nextHops the next hops; empty for blackhole, unreachable, prohibit and throw routes
 */
public record Route(
    IpPrefix destination,
    int table,
    int protocol,
    Scope scope,
    RouteType type,
    int metric,
    InetAddress preferredSource,
    List<NextHop> nextHops) {

  /** The metric the kernel gives an IPv6 route added without one (IP6_RT_PRIO_USER). */
  public static final int IPV6_DEFAULT_METRIC = 1024;

  public Route {
    Objects.requireNonNull(destination, "destination");
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(type, "type");
    if (protocol < 0 || protocol > 255) {
      throw new IllegalArgumentException("protocol " + protocol + " outside 0..255");
    }
    nextHops = List.copyOf(nextHops);
    if (nextHops.size() == 1 && nextHops.getFirst().weight() != 1) {
      nextHops = List.of(nextHops.getFirst().withWeight(1));
    }
    if (preferredSource != null && Family.of(preferredSource) != Family.of(destination)) {
      throw new IllegalArgumentException(
          "preferred source "
              + Ip.format(preferredSource)
              + " is not in the family of "
              + destination);
    }
    for (NextHop h : nextHops) {
      if (h.gateway() != null
          && Family.of(destination) == Family.INET6
          && Family.of(h.gateway()) == Family.INET) {
        throw new IllegalArgumentException("an IPv6 route cannot have an IPv4 gateway: " + h);
      }
    }
  }

  /** A builder for a unicast route to {@code destination} in the main table. */
  public static Builder of(IpPrefix destination) {
    return new Builder(destination);
  }

  /** A builder for a unicast route to {@code destination} ("192.0.2.0/24") in the main table. */
  public static Builder of(String destination) {
    return new Builder(IpPrefix.parse(destination));
  }

  public Family family() {
    return Family.of(destination);
  }

  /** Whether the route has more than one next hop (RTA_MULTIPATH). */
  public boolean isMultipath() {
    return nextHops.size() > 1;
  }

  /** A builder starting from this route. */
  public Builder toBuilder() {
    Builder b =
        new Builder(destination)
            .table(table)
            .protocol(protocol)
            .scope(scope)
            .type(type)
            .metric(metric);
    b.preferredSource = preferredSource;
    b.nextHops.addAll(nextHops);
    return b;
  }

  /** "192.0.2.0/24 table 120", how errors name the route. */
  String describe() {
    return destination + " table " + table;
  }

  /** Builds a {@link Route}; unset fields get the defaults {@code ip route add} would give. */
  public static final class Builder {
    private final IpPrefix destination;
    private int table = Rtnl.RT_TABLE_MAIN;
    private int protocol = Rtnl.RTPROT_BOOT;
    private Scope scope;
    private RouteType type = RouteType.UNICAST;
    private Integer metric;
    private InetAddress preferredSource;
    private final List<NextHop> nextHops = new ArrayList<>();

    private Builder(IpPrefix destination) {
      this.destination = destination;
    }

    public Builder table(int t) {
      this.table = t;
      return this;
    }

    public Builder protocol(int p) {
      this.protocol = p;
      return this;
    }

    public Builder scope(Scope s) {
      this.scope = s;
      return this;
    }

    public Builder type(RouteType t) {
      this.type = t;
      return this;
    }

    public Builder metric(int m) {
      this.metric = m;
      return this;
    }

    public Builder preferredSource(String a) {
      this.preferredSource = Ip.parse(a);
      return this;
    }

    public Builder preferredSource(InetAddress a) {
      this.preferredSource = a;
      return this;
    }

    /** Adds a next hop via {@code gateway}. */
    public Builder via(String gateway) {
      return nextHop(NextHop.via(gateway));
    }

    /** Adds a next hop via {@code gateway} on interface {@code index}. */
    public Builder via(String gateway, int index) {
      return nextHop(NextHop.via(gateway, index));
    }

    /** Adds a next hop straight out of interface {@code index}. */
    public Builder dev(int index) {
      return nextHop(NextHop.dev(index));
    }

    public Builder nextHop(NextHop h) {
      nextHops.add(h);
      return this;
    }

    public Builder nextHops(List<NextHop> hops) {
      nextHops.clear();
      nextHops.addAll(hops);
      return this;
    }

    /**
     * The route. Without an explicit scope: IPv6 routes get universe; IPv4 local routes host,
     * routes whose next hops are all bare interfaces link, the others universe. Without an explicit
     * metric, IPv6 routes get 1024 and IPv4 ones 0.
     */
    public Route build() {
      Scope s = scope;
      if (s == null) {
        if (Family.of(destination) == Family.INET6) {
          s = Scope.UNIVERSE;
        } else if (type == RouteType.LOCAL) {
          s = Scope.HOST;
        } else if (type == RouteType.UNICAST
            && !nextHops.isEmpty()
            && nextHops.stream().allMatch(h -> h.gateway() == null)) {
          s = Scope.LINK;
        } else {
          s = Scope.UNIVERSE;
        }
      }
      int m =
          metric != null
              ? metric
              : Family.of(destination) == Family.INET6 ? IPV6_DEFAULT_METRIC : 0;
      return new Route(destination, table, protocol, s, type, m, preferredSource, nextHops);
    }
  }
}
