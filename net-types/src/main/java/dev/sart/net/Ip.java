package dev.sart.net;

import java.math.BigInteger;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;

/**
 * IP address literals: parsed without name lookups, printed in the canonical form ({@code ip(8)},
 * {@code kubectl} and the routers print IPv6 addresses this way, RFC 5952). The address itself is
 * the JDK's {@link InetAddress}.
 */
public final class Ip {
  private Ip() {}

  /**
   * Parses an IPv4 dotted quad or an IPv6 literal. Never looks a name up; rejects zone ids ({@code
   * fe80::1%eth0}), the short IPv4 forms ({@code 10.1}) and IPv4-mapped IPv6 ({@code
   * ::ffff:192.0.2.1}, which the JDK would silently turn into IPv4).
   */
  public static InetAddress parse(String text) {
    if (text == null
        || text.isEmpty()
        || text.indexOf('%') >= 0
        || !(text.indexOf(':') >= 0
            || text.chars().allMatch(c -> c == '.' || Character.isDigit(c)))) {
      throw new IllegalArgumentException("'" + text + "' is not an IP address");
    }
    InetAddress address;
    try {
      // by family: InetAddress.ofLiteral tries IPv4 first and, for an IPv6 literal, builds (and
      // formats the message of) an exception before it tries IPv6: measurable on the FIB's path
      // that reads every path of the speaker (testbed/perf/LOG.md, 2026-12-01)
      address =
          text.indexOf(':') >= 0 ? Inet6Address.ofLiteral(text) : Inet4Address.ofLiteral(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("'" + text + "' is not an IP address", e);
    }
    if (address instanceof Inet4Address && text.indexOf(':') >= 0) {
      throw new IllegalArgumentException("'" + text + "' is an IPv4-mapped IPv6 address");
    }
    if (address instanceof Inet4Address && text.chars().filter(c -> c == '.').count() != 3) {
      throw new IllegalArgumentException("'" + text + "' is not a dotted-quad IPv4 address");
    }
    return address;
  }

  /** "192.0.2.1", or the RFC 5952 §4 form of an IPv6 address: "2001:db8::1". */
  public static String format(InetAddress address) {
    if (address instanceof Inet4Address) {
      return address.getHostAddress();
    }
    byte[] b = address.getAddress();
    int[] groups = new int[8];
    for (int i = 0; i < 8; i++) {
      groups[i] = ((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff);
    }
    // RFC 5952 §4.2.3: "::" replaces the longest run of two or more zero groups, the first on a tie
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
    // RFC 5952 §4.1, §4.3: no leading zeros, lower case
    var text = new StringBuilder(39);
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

  /** The address as an unsigned number (for address arithmetic and numeric order). */
  public static BigInteger toNumber(InetAddress address) {
    return new BigInteger(1, address.getAddress());
  }
}
