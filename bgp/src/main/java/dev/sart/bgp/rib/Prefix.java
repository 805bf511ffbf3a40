package dev.sart.bgp.rib;

import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Ip;

/**
 * A unicast prefix of either family as primitives: IPv4 in the low 32 bits of {@code high}, IPv6 as
 * two 64-bit halves. Host bits are zero.
 */
public record Prefix(Family family, long high, long low, int length) implements Comparable<Prefix> {

  public Prefix {
    boolean v4 = family.equals(Family.IPV4_UNICAST);
    int max = v4 ? 32 : 128;
    if (length < 0 || length > max) {
      throw new IllegalArgumentException("prefix length " + length + " out of range for " + family);
    }
    if (v4) {
      long mask = length == 0 ? 0 : (0xffff_ffffL << (32 - length)) & 0xffff_ffffL;
      high &= mask;
      low = 0;
    } else {
      high &= length == 0 ? 0 : length >= 64 ? -1L : -1L << (64 - length);
      low &= length <= 64 ? 0 : length == 128 ? -1L : -1L << (128 - length);
    }
  }

  public static Prefix v4(int address, int length) {
    return new Prefix(Family.IPV4_UNICAST, address & 0xffff_ffffL, 0, length);
  }

  public static Prefix v6(long high, long low, int length) {
    return new Prefix(Family.IPV6_UNICAST, high, low, length);
  }

  /** Parses "192.0.2.0/24" or "2001:db8::/32"; an address alone is a host route. */
  public static Prefix parse(String text) {
    String s = text.strip();
    int slash = s.indexOf('/');
    String addr = slash < 0 ? s : s.substring(0, slash);
    try {
      if (addr.indexOf(':') >= 0) {
        long[] a = Ip.parseV6(addr);
        return v6(a[0], a[1], slash < 0 ? 128 : Integer.parseInt(s.substring(slash + 1)));
      }
      return v4(Ip.parseV4(addr), slash < 0 ? 32 : Integer.parseInt(s.substring(slash + 1)));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("not a prefix: '" + text + "'", e);
    }
  }

  public boolean isIpv4() {
    return family.equals(Family.IPV4_UNICAST);
  }

  /** The IPv4 address as an int (only for IPv4). */
  public int v4Address() {
    return (int) high;
  }

  // written out, like Family's: the generated ones go through a method handle (a hot frame in
  // profiles of the Adj-RIB-Out's pending maps, which compare prefixes)
  @Override
  public boolean equals(Object o) {
    return this == o
        || (o instanceof Prefix p
            && high == p.high
            && low == p.low
            && length == p.length
            && family.equals(p.family));
  }

  @Override
  public int hashCode() {
    return (Long.hashCode(high * 0x9E3779B97F4A7C15L + low) * 31 + length) * 31 + family.hashCode();
  }

  @Override
  public int compareTo(Prefix o) {
    if (isIpv4() != o.isIpv4()) {
      return isIpv4() ? -1 : 1;
    }
    int c = Long.compareUnsigned(high, o.high);
    if (c == 0) {
      c = Long.compareUnsigned(low, o.low);
    }
    return c != 0 ? c : Integer.compare(length, o.length);
  }

  @Override
  public String toString() {
    return (isIpv4() ? Ip.formatV4((int) high) : Ip.formatV6(high, low)) + "/" + length;
  }
}
