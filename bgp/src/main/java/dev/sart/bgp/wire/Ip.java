package dev.sart.bgp.wire;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** Text forms of the packed addresses the codec uses (IPv4 as an int, IPv6 as two longs). */
public final class Ip {

  private Ip() {}

  public static String formatV4(int address) {
    return (address >>> 24)
        + "."
        + (address >>> 16 & 0xff)
        + "."
        + (address >>> 8 & 0xff)
        + "."
        + (address & 0xff);
  }

  /** Parses dotted-quad text; only for configuration and tests, not a hot path. */
  public static int parseV4(String text) {
    String[] parts = text.split("\\.", -1);
    if (parts.length != 4) {
      throw new IllegalArgumentException("not an IPv4 address: " + text);
    }
    int a = 0;
    for (String part : parts) {
      int v = Integer.parseInt(part);
      if (v < 0 || v > 255) {
        throw new IllegalArgumentException("not an IPv4 address: " + text);
      }
      a = a << 8 | v;
    }
    return a;
  }

  public static String formatV6(long hi, long lo) {
    byte[] b = new byte[16];
    for (int i = 0; i < 8; i++) {
      b[i] = (byte) (hi >>> (56 - 8 * i));
      b[8 + i] = (byte) (lo >>> (56 - 8 * i));
    }
    try {
      String s = InetAddress.getByAddress(b).getHostAddress();
      return compress(s);
    } catch (UnknownHostException e) {
      throw new AssertionError(e);
    }
  }

  /** Parses IPv6 text into {hi, lo}; only for configuration and tests. */
  public static long[] parseV6(String text) {
    if (!text.contains(":")) {
      throw new IllegalArgumentException("not an IPv6 address: " + text);
    }
    byte[] b;
    try {
      b = InetAddress.getByName(text).getAddress();
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("not an IPv6 address: " + text, e);
    }
    if (b.length != 16) {
      throw new IllegalArgumentException("not an IPv6 address: " + text);
    }
    return new long[] {Wire.i64(b, 0), Wire.i64(b, 8)};
  }

  /** RFC 5952 §4.2.3: the longest run of two or more zero groups becomes "::". */
  private static String compress(String full) {
    String[] groups = full.split(":");
    int bestStart = -1;
    int bestLength = 1;
    for (int i = 0; i < groups.length; ) {
      if (groups[i].equals("0")) {
        int j = i;
        while (j < groups.length && groups[j].equals("0")) {
          j++;
        }
        if (j - i > bestLength) {
          bestStart = i;
          bestLength = j - i;
        }
        i = j;
      } else {
        i++;
      }
    }
    if (bestStart < 0) {
      return full;
    }
    String head = String.join(":", java.util.Arrays.copyOfRange(groups, 0, bestStart));
    String tail =
        String.join(
            ":", java.util.Arrays.copyOfRange(groups, bestStart + bestLength, groups.length));
    return head + "::" + tail;
  }
}
