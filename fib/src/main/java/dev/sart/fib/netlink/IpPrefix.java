package dev.sart.fib.netlink;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * An IP prefix such as {@code 203.0.113.0/24} or {@code 2001:db8:1::/48}, normalised to its network
 * address (host bits cleared), so equal prefixes compare equal.
 */
public record IpPrefix(InetAddress address, int length) implements Comparable<IpPrefix> {

  public IpPrefix {
    int max = address.getAddress().length * 8;
    if (length < 0 || length > max) {
      throw new IllegalArgumentException(
          "prefix length " + length + " out of range for " + address.getHostAddress());
    }
    address = mask(address, length);
  }

  /** Parses "192.0.2.0/24" or "2001:db8::/32"; a bare address is a host prefix (/32, /128). */
  public static IpPrefix parse(String text) {
    int slash = text.indexOf('/');
    InetAddress a = Ip.parse(slash < 0 ? text : text.substring(0, slash));
    int len = slash < 0 ? a.getAddress().length * 8 : Integer.parseInt(text.substring(slash + 1));
    return new IpPrefix(a, len);
  }

  /** The host prefix of one address (/32 or /128). */
  public static IpPrefix host(InetAddress a) {
    return new IpPrefix(a, a.getAddress().length * 8);
  }

  public Family family() {
    return Family.of(address);
  }

  public boolean isIpv4() {
    return address instanceof Inet4Address;
  }

  /** Whether {@code a} lies inside this prefix. */
  public boolean contains(InetAddress a) {
    return Family.of(a) == family() && mask(a, length).equals(address);
  }

  /** Whether {@code p} is this prefix or a more specific one inside it. */
  public boolean contains(IpPrefix p) {
    return p.family() == family() && p.length >= length && contains(p.address);
  }

  static InetAddress mask(InetAddress a, int length) {
    byte[] b = a.getAddress();
    for (int i = 0; i < b.length; i++) {
      int bits = Math.max(0, Math.min(8, length - i * 8));
      b[i] &= (byte) (0xff00 >>> bits);
    }
    try {
      return InetAddress.getByAddress(b);
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public int compareTo(IpPrefix o) {
    byte[] x = address.getAddress();
    byte[] y = o.address.getAddress();
    if (x.length != y.length) {
      return Integer.compare(x.length, y.length);
    }
    int c = java.util.Arrays.compareUnsigned(x, y);
    return c != 0 ? c : Integer.compare(length, o.length);
  }

  @Override
  public String toString() {
    return Ip.format(address) + "/" + length;
  }
}
