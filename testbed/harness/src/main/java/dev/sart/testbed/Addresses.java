package dev.sart.testbed;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/** Literal IP addresses: parsing without DNS and printing in the short form the routers print. */
public final class Addresses {
  private Addresses() {}

  /** Parses an IPv4 or IPv6 literal; never resolves names. */
  public static InetAddress parse(String literal) {
    String s = literal.strip();
    if (s.isEmpty()
        || !(s.indexOf(':') >= 0 || s.chars().allMatch(c -> c == '.' || Character.isDigit(c)))) {
      throw new IllegalArgumentException("not an IP address literal: '" + literal + "'");
    }
    try {
      return InetAddress.getByName(s);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("not an IP address literal: '" + literal + "'", e);
    }
  }

  /** The canonical text form: dotted quad, or RFC 5952 compressed IPv6. */
  public static String format(InetAddress address) {
    if (!(address instanceof Inet6Address)) {
      return address.getHostAddress();
    }
    byte[] b = address.getAddress();
    int[] words = new int[8];
    for (int i = 0; i < 8; i++) {
      words[i] = ((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff);
    }
    int bestStart = -1;
    int bestLen = 0;
    for (int i = 0; i < 8; ) {
      if (words[i] != 0) {
        i++;
        continue;
      }
      int j = i;
      while (j < 8 && words[j] == 0) {
        j++;
      }
      if (j - i > bestLen && j - i >= 2) {
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
      sb.append(Integer.toHexString(words[i]));
    }
    return sb.toString();
  }
}
