package dev.sart.testbed;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/** An IP prefix such as 203.0.113.0/24 or 2001:db8:1::/48, normalised to its network address. */
public record IpPrefix(InetAddress address, int length) implements Comparable<IpPrefix> {

  public IpPrefix {
    int max = address.getAddress().length * 8;
    if (length < 0 || length > max) {
      throw new IllegalArgumentException(
          "prefix length " + length + " out of range for " + address.getHostAddress());
    }
    address = mask(address, length);
  }

  /** Parses "a.b.c.d/n" or "x::/n"; a bare address is a host prefix. */
  public static IpPrefix parse(String text) {
    int slash = text.indexOf('/');
    InetAddress addr = Addresses.parse(slash < 0 ? text : text.substring(0, slash));
    int len =
        slash < 0 ? addr.getAddress().length * 8 : Integer.parseInt(text.substring(slash + 1));
    return new IpPrefix(addr, len);
  }

  public boolean isIpv4() {
    return address instanceof Inet4Address;
  }

  public Family family() {
    return isIpv4() ? Family.IPV4_UNICAST : Family.IPV6_UNICAST;
  }

  @Override
  public int compareTo(IpPrefix o) {
    byte[] a = address.getAddress();
    byte[] b = o.address.getAddress();
    if (a.length != b.length) {
      return Integer.compare(a.length, b.length);
    }
    int c = java.util.Arrays.compareUnsigned(a, b);
    return c != 0 ? c : Integer.compare(length, o.length);
  }

  @Override
  public String toString() {
    return Addresses.format(address) + "/" + length;
  }

  private static InetAddress mask(InetAddress address, int length) {
    byte[] bytes = address.getAddress();
    for (int i = 0; i < bytes.length; i++) {
      int keep = Math.max(0, Math.min(8, length - i * 8));
      bytes[i] &= (byte) (0xff << (8 - keep));
    }
    try {
      return InetAddress.getByAddress(bytes);
    } catch (UnknownHostException e) {
      throw new AssertionError(e);
    }
  }
}
