package dev.sart.crds;

import java.math.BigInteger;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.Arrays;

/**
 * An IP prefix such as {@code 10.0.1.0/24} or {@code 2001:db8::/64}, parsed without name lookups.
 * The same checks as the CEL rules {@code isCIDR}, {@code cidr(...).masked()} in the CRD schema.
 */
public record Cidr(InetAddress address, int prefixLength) {

  public Cidr {
    int bits = address.getAddress().length * 8;
    if (prefixLength < 0 || prefixLength > bits) {
      throw new IllegalArgumentException("prefix length " + prefixLength + " out of 0.." + bits);
    }
  }

  /** Parses {@code addr/len}; a bare address is not a CIDR. */
  public static Cidr parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("no CIDR given");
    }
    int slash = text.indexOf('/');
    if (slash < 0) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a CIDR: the /prefix-length is missing");
    }
    InetAddress address = parseAddress(text.substring(0, slash));
    int length;
    try {
      String digits = text.substring(slash + 1);
      if (digits.isEmpty() || digits.length() > 3 || !digits.chars().allMatch(Character::isDigit)) {
        throw new NumberFormatException();
      }
      length = Integer.parseInt(digits);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' is not a CIDR: bad prefix length");
    }
    int bits = address.getAddress().length * 8;
    if (length > bits) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a CIDR: prefix length above " + bits);
    }
    return new Cidr(address, length);
  }

  /** Parses an IPv4 or IPv6 literal (no host names, no zone ids). */
  public static InetAddress parseAddress(String text) {
    if (text == null
        || text.isEmpty()
        || text.indexOf('%') >= 0
        || !(text.indexOf(':') >= 0
            || text.chars().allMatch(c -> c == '.' || Character.isDigit(c)))) {
      throw new IllegalArgumentException("'" + text + "' is not an IP address");
    }
    try {
      InetAddress address = InetAddress.ofLiteral(text);
      if (address instanceof Inet4Address && text.indexOf(':') >= 0) {
        // ::ffff:a.b.c.d would silently become IPv4
        throw new IllegalArgumentException("'" + text + "' is an IPv4-mapped IPv6 address");
      }
      if (address instanceof Inet4Address && text.chars().filter(c -> c == '.').count() != 3) {
        throw new IllegalArgumentException("'" + text + "' is not a dotted-quad IPv4 address");
      }
      return address;
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("'" + text + "' is not an IP address", e);
    }
  }

  public boolean isIpv4() {
    return address instanceof Inet4Address;
  }

  /** 32 or 128. */
  public int addressBits() {
    return isIpv4() ? 32 : 128;
  }

  /** The network address: the address with the host bits cleared. */
  public Cidr masked() {
    return new Cidr(toAddress(network()), prefixLength);
  }

  public boolean isMasked() {
    return masked().equals(this);
  }

  /** The first address as an unsigned number. */
  public BigInteger network() {
    BigInteger value = toNumber(address);
    int host = addressBits() - prefixLength;
    return value.shiftRight(host).shiftLeft(host);
  }

  /** Number of addresses in the prefix (2^(bits − length)). */
  public BigInteger size() {
    return BigInteger.ONE.shiftLeft(addressBits() - prefixLength);
  }

  public boolean contains(InetAddress other) {
    if ((other instanceof Inet4Address) != isIpv4()) {
      return false;
    }
    BigInteger offset = toNumber(other).subtract(network());
    return offset.signum() >= 0 && offset.compareTo(size()) < 0;
  }

  /** Whether the two prefixes share at least one address. */
  public boolean overlaps(Cidr other) {
    if (other.isIpv4() != isIpv4()) {
      return false;
    }
    int shorter = Math.min(prefixLength, other.prefixLength);
    int host = addressBits() - shorter;
    return network().shiftRight(host).equals(other.network().shiftRight(host));
  }

  /** The address {@code offset} positions after the network address. */
  public InetAddress addressAt(BigInteger offset) {
    if (offset.signum() < 0 || offset.compareTo(size()) >= 0) {
      throw new IllegalArgumentException("offset " + offset + " outside " + this);
    }
    return toAddress(network().add(offset));
  }

  /** The position of {@code member} inside this prefix. */
  public BigInteger offsetOf(InetAddress member) {
    if (!contains(member)) {
      throw new IllegalArgumentException(member.getHostAddress() + " is not in " + this);
    }
    return toNumber(member).subtract(network());
  }

  private InetAddress toAddress(BigInteger value) {
    byte[] raw = value.toByteArray();
    byte[] bytes = new byte[addressBits() / 8];
    int copy = Math.min(raw.length, bytes.length);
    System.arraycopy(raw, raw.length - copy, bytes, bytes.length - copy, copy);
    try {
      return InetAddress.getByAddress(bytes);
    } catch (java.net.UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  public static BigInteger toNumber(InetAddress address) {
    return new BigInteger(1, address.getAddress());
  }

  /** Canonical text: {@code 10.0.1.0/24}, {@code 2001:db8::/64}. */
  @Override
  public String toString() {
    return format(address) + "/" + prefixLength;
  }

  /** An address in its canonical text form (RFC 5952 for IPv6). */
  public static String format(InetAddress address) {
    if (address instanceof Inet4Address) {
      return address.getHostAddress();
    }
    return formatIpv6(address.getAddress());
  }

  // RFC 5952 §4: lower case, leading zeros dropped, the longest run (first if tied) of two or more
  // zero groups replaced by "::"
  private static String formatIpv6(byte[] b) {
    int[] groups = new int[8];
    for (int i = 0; i < 8; i++) {
      groups[i] = ((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff);
    }
    int bestStart = -1;
    int bestLength = 1;
    for (int i = 0; i < 8; ) {
      if (groups[i] != 0) {
        i++;
        continue;
      }
      int j = i;
      while (j < 8 && groups[j] == 0) {
        j++;
      }
      if (j - i > bestLength) {
        bestStart = i;
        bestLength = j - i;
      }
      i = j;
    }
    var text = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        text.append("::");
        i += bestLength - 1;
        continue;
      }
      if (!text.isEmpty() && text.charAt(text.length() - 1) != ':') {
        text.append(':');
      }
      text.append(Integer.toHexString(groups[i]));
    }
    return text.toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Cidr c
        && prefixLength == c.prefixLength
        && Arrays.equals(address.getAddress(), c.address.getAddress());
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(address.getAddress()) * 31 + prefixLength;
  }
}
