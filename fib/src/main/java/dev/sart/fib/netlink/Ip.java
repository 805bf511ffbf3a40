package dev.sart.fib.netlink;

import java.net.Inet4Address;
import java.net.InetAddress;

/**
 * IP address literals: parsed without name resolution, printed as {@code ip(8)} prints them (RFC
 * 5952).
 */
public final class Ip {
  private Ip() {}

  /** Parses an IPv4 or IPv6 literal; never looks a name up. */
  public static InetAddress parse(String literal) {
    return InetAddress.ofLiteral(literal);
  }

  /** "192.0.2.1", or the RFC 5952 §4 form of an IPv6 address: "2001:db8::1". */
  public static String format(InetAddress a) {
    if (a instanceof Inet4Address) {
      return a.getHostAddress();
    }
    byte[] b = a.getAddress();
    int[] w = new int[8];
    for (int i = 0; i < 8; i++) {
      w[i] = ((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff);
    }
    // §4.2.3: compress the longest run of two or more zero words, the first one on a tie
    int bestStart = -1;
    int bestLen = 1;
    for (int i = 0; i < 8; ) {
      if (w[i] != 0) {
        i++;
        continue;
      }
      int j = i;
      while (j < 8 && w[j] == 0) {
        j++;
      }
      if (j - i > bestLen) {
        bestStart = i;
        bestLen = j - i;
      }
      i = j;
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        sb.append("::");
        i += bestLen - 1;
        continue;
      }
      if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
        sb.append(':');
      }
      sb.append(Integer.toHexString(w[i]));
    }
    return sb.toString();
  }
}
