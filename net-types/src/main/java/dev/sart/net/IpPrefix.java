package dev.sart.net;

import java.math.BigInteger;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * An IP prefix such as {@code 203.0.113.0/24} or {@code 2001:db8:1::/48}, held as its network
 * address (host bits cleared), so that equal prefixes are equal. IPv4 prefixes order before IPv6
 * ones, then by address as an unsigned number, then shorter before longer.
 */
public record IpPrefix(InetAddress address, int length) implements Comparable<IpPrefix> {

  public IpPrefix {
    int bits = address.getAddress().length * 8;
    if (length < 0 || length > bits) {
      throw new IllegalArgumentException(
          "prefix length " + length + " out of 0.." + bits + " for " + Ip.format(address));
    }
    address = mask(address, length);
  }

  /**
   * Parses {@code 192.0.2.0/24} or {@code 2001:db8::/32}, as routers and the kernel print them: a
   * bare address is its host prefix (/32, /128); host bits are cleared.
   */
  public static IpPrefix parse(String text) {
    int slash = text == null ? -1 : text.indexOf('/');
    if (slash < 0) {
      return host(Ip.parse(text));
    }
    return parseCidr(text);
  }

  /**
   * Parses a CIDR as Kubernetes' CEL {@code isCIDR} accepts it: {@code address/length}, where a
   * bare address is not a CIDR. Host bits are cleared ({@link #parseNetwork} refuses them).
   */
  public static IpPrefix parseCidr(String text) {
    if (text == null) {
      throw new IllegalArgumentException("no CIDR given");
    }
    int slash = text.indexOf('/');
    if (slash < 0) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a CIDR: the /prefix-length is missing");
    }
    InetAddress address = Ip.parse(text.substring(0, slash));
    String digits = text.substring(slash + 1);
    if (digits.isEmpty() || digits.length() > 3 || !digits.chars().allMatch(Character::isDigit)) {
      throw new IllegalArgumentException("'" + text + "' is not a CIDR: bad prefix length");
    }
    int length = Integer.parseInt(digits);
    int bits = address.getAddress().length * 8;
    if (length > bits) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a CIDR: prefix length above " + bits);
    }
    return new IpPrefix(address, length);
  }

  /**
   * Parses a CIDR that must be a network address, as the CRD rule {@code cidr(self).masked() ==
   * cidr(self)}: {@code 10.0.1.5/24} is refused, naming {@code 10.0.1.0/24}.
   */
  public static IpPrefix parseNetwork(String text) {
    IpPrefix prefix = parseCidr(text);
    if (!prefix.address.equals(Ip.parse(text.substring(0, text.indexOf('/'))))) {
      throw new IllegalArgumentException(
          "must be a network address with no host bits set ('"
              + text
              + "' has them; the network is "
              + prefix
              + ")");
    }
    return prefix;
  }

  /** The host prefix of one address (/32 or /128). */
  public static IpPrefix host(InetAddress address) {
    return new IpPrefix(address, address.getAddress().length * 8);
  }

  public boolean isIpv4() {
    return address instanceof Inet4Address;
  }

  /** 32 or 128: the longest prefix of this family. */
  public int addressBits() {
    return isIpv4() ? 32 : 128;
  }

  /** Whether {@code a} lies inside this prefix. */
  public boolean contains(InetAddress a) {
    return (a instanceof Inet4Address) == isIpv4() && mask(a, length).equals(address);
  }

  /** Whether {@code p} is this prefix or a more specific one inside it. */
  public boolean contains(IpPrefix p) {
    return p.length >= length && contains(p.address);
  }

  /** Whether the two prefixes share at least one address. */
  public boolean overlaps(IpPrefix other) {
    return contains(other) || other.contains(this);
  }

  /** Number of addresses in the prefix: 2^(bits − length). */
  public BigInteger size() {
    return BigInteger.ONE.shiftLeft(addressBits() - length);
  }

  /** The address {@code offset} positions after the network address. */
  public InetAddress addressAt(BigInteger offset) {
    if (offset.signum() < 0 || offset.compareTo(size()) >= 0) {
      throw new IllegalArgumentException("offset " + offset + " outside " + this);
    }
    return toAddress(Ip.toNumber(address).add(offset), addressBits() / 8);
  }

  /** The position of {@code member} inside this prefix. */
  public BigInteger offsetOf(InetAddress member) {
    if (!contains(member)) {
      throw new IllegalArgumentException(Ip.format(member) + " is not in " + this);
    }
    return Ip.toNumber(member).subtract(Ip.toNumber(address));
  }

  @Override
  public int compareTo(IpPrefix o) {
    byte[] x = address.getAddress();
    byte[] y = o.address.getAddress();
    if (x.length != y.length) {
      return Integer.compare(x.length, y.length);
    }
    int c = Arrays.compareUnsigned(x, y);
    return c != 0 ? c : Integer.compare(length, o.length);
  }

  /** Canonical text: {@code 10.0.1.0/24}, {@code 2001:db8::/64}. */
  @Override
  public String toString() {
    return Ip.format(address) + "/" + length;
  }

  private static InetAddress mask(InetAddress a, int length) {
    byte[] b = a.getAddress();
    for (int i = 0; i < b.length; i++) {
      int keep = Math.max(0, Math.min(8, length - i * 8));
      b[i] &= (byte) (0xff00 >>> keep);
    }
    return byAddress(b);
  }

  private static InetAddress toAddress(BigInteger value, int bytes) {
    byte[] raw = value.toByteArray();
    byte[] b = new byte[bytes];
    int copy = Math.min(raw.length, bytes);
    System.arraycopy(raw, raw.length - copy, b, bytes - copy, copy);
    return byAddress(b);
  }

  private static InetAddress byAddress(byte[] b) {
    try {
      return InetAddress.getByAddress(b);
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e); // only for a length other than 4 or 16
    }
  }
}
