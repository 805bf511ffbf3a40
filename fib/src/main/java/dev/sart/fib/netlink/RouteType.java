package dev.sart.fib.netlink;

/**
 * What a route does with a packet: RTN_* in linux/rtnetlink.h (rtm_type); the ordinal is the code.
 */
public enum RouteType {
  UNSPEC,
  /** Forward through the next hops. */
  UNICAST,
  /** Deliver locally. */
  LOCAL,
  BROADCAST,
  ANYCAST,
  MULTICAST,
  /** Drop silently. */
  BLACKHOLE,
  /** Drop with ICMP destination unreachable. */
  UNREACHABLE,
  /** Drop with ICMP administratively prohibited. */
  PROHIBIT,
  /** Continue the lookup in the next table (policy routing). */
  THROW,
  NAT,
  XRESOLVE;

  public int code() {
    return ordinal();
  }

  static RouteType of(int code) {
    if (code < 0 || code >= values().length) {
      throw new IllegalArgumentException("unknown route type " + code);
    }
    return values()[code];
  }
}
