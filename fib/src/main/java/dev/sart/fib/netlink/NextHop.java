package dev.sart.fib.netlink;

import dev.sart.net.Ip;
import java.net.InetAddress;
import java.util.Set;

/**
 * Where a route sends packets: a gateway, an interface, or both. An IPv4 route may have an IPv6
 * gateway (sent as RTA_VIA, RFC 5549). Within a multipath route each next hop has a weight (struct
 * rtnexthop: rtnh_hops is the weight minus one).
 *
 * @param gateway the gateway, or null for a directly connected destination
 * @param index the outgoing interface's index, or 0 to let the kernel find it from the gateway
 * @param weight 1..256; meaningful only in a route with several next hops
 * @param flags RTNH_F_* (ONLINK when asked; DEAD, LINKDOWN as the kernel reports them)
 */
public record NextHop(InetAddress gateway, int index, int weight, Set<NextHopFlag> flags) {

  public NextHop {
    if (gateway == null && index == 0) {
      throw new IllegalArgumentException("a next hop needs a gateway or an interface");
    }
    if (weight < 1 || weight > 256) {
      throw new IllegalArgumentException("weight " + weight + " outside 1..256");
    }
    flags = BitFlag.copy(NextHopFlag.class, flags);
  }

  /** Via a gateway; the kernel finds the interface. */
  public static NextHop via(InetAddress gateway) {
    return new NextHop(gateway, 0, 1, Set.of());
  }

  public static NextHop via(String gateway) {
    return via(Ip.parse(gateway));
  }

  /** Via a gateway on interface {@code index}. */
  public static NextHop via(String gateway, int index) {
    return new NextHop(Ip.parse(gateway), index, 1, Set.of());
  }

  /** Straight out of interface {@code index}. */
  public static NextHop dev(int index) {
    return new NextHop(null, index, 1, Set.of());
  }

  /** Via a gateway that is taken to be on interface {@code index} (RTNH_F_ONLINK). */
  public static NextHop onlink(String gateway, int index) {
    return new NextHop(Ip.parse(gateway), index, 1, Set.of(NextHopFlag.ONLINK));
  }

  public NextHop withWeight(int w) {
    return new NextHop(gateway, index, w, flags);
  }

  public NextHop withFlags(Set<NextHopFlag> f) {
    return new NextHop(gateway, index, weight, f);
  }

  /** The flags a request may carry (the kernel sets the others). */
  int requestFlags() {
    return flags.contains(NextHopFlag.ONLINK) ? Rtnl.RTNH_F_ONLINK : 0;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    if (gateway != null) {
      sb.append("via ").append(Ip.format(gateway));
    }
    if (index != 0) {
      sb.append(sb.isEmpty() ? "" : " ").append("dev #").append(index);
    }
    if (weight != 1) {
      sb.append(" weight ").append(weight);
    }
    for (NextHopFlag f : flags) {
      sb.append(' ').append(f.name().toLowerCase(java.util.Locale.ROOT));
    }
    return sb.toString();
  }
}
