package dev.sart.bgp.wire;

/**
 * IPv4 and IPv6 prefixes on the wire (RFC 4271 §4.3, RFC 4760 §5, RFC 7911 §3): straight into
 * primitive arrays in two passes (count, then fill), so a block of any size costs the same four
 * allocations and nothing per prefix.
 */
final class NlriCodec {

  private NlriCodec() {}

  static int maskV4(int address, int length) {
    return length == 0 ? 0 : address & (-1 << (32 - length));
  }

  static long maskHigh(long high, int length) {
    return length >= 64 ? high : length == 0 ? 0 : high & (-1L << (64 - length));
  }

  static long maskLow(long low, int length) {
    return length <= 64 ? 0 : length == 128 ? low : low & (-1L << (128 - length));
  }

  /**
   * The prefixes in {@code b[from, to)}, or null when they are malformed (a length above {@code
   * maxLength}, or a prefix that overruns the field: RFC 7606 §5.3).
   */
  private static int count(byte[] b, int from, int to, boolean pathIds, int maxLength) {
    int n = 0;
    int i = from;
    int skip = pathIds ? 4 : 0;
    while (i < to) {
      i += skip;
      if (i >= to) {
        return -1;
      }
      int length = b[i] & 0xff;
      if (length > maxLength) {
        return -1;
      }
      i += 1 + ((length + 7) >>> 3);
      n++;
    }
    return i == to ? n : -1;
  }

  static Ipv4Prefixes decodeV4(byte[] b, int from, int to, boolean pathIds) {
    int n = count(b, from, to, pathIds, 32);
    if (n <= 0) {
      return n == 0 ? Ipv4Prefixes.EMPTY : null;
    }
    int[] addresses = new int[n];
    byte[] lengths = new byte[n];
    int[] ids = pathIds ? new int[n] : null;
    int i = from;
    for (int k = 0; k < n; k++) {
      if (ids != null) {
        ids[k] = Wire.i32(b, i);
        i += 4;
      }
      int length = b[i++] & 0xff;
      int a =
          switch ((length + 7) >>> 3) {
            case 0 -> 0;
            case 1 -> (b[i] & 0xff) << 24;
            case 2 -> (b[i] & 0xff) << 24 | (b[i + 1] & 0xff) << 16;
            case 3 -> (b[i] & 0xff) << 24 | (b[i + 1] & 0xff) << 16 | (b[i + 2] & 0xff) << 8;
            default -> Wire.i32(b, i);
          };
      i += (length + 7) >>> 3;
      addresses[k] = maskV4(a, length);
      lengths[k] = (byte) length;
    }
    return new Ipv4Prefixes(addresses, lengths, ids);
  }

  static Ipv6Prefixes decodeV6(byte[] b, int from, int to, boolean pathIds) {
    int n = count(b, from, to, pathIds, 128);
    if (n <= 0) {
      return n == 0 ? Ipv6Prefixes.EMPTY : null;
    }
    long[] highs = new long[n];
    long[] lows = new long[n];
    byte[] lengths = new byte[n];
    int[] ids = pathIds ? new int[n] : null;
    int i = from;
    for (int k = 0; k < n; k++) {
      if (ids != null) {
        ids[k] = Wire.i32(b, i);
        i += 4;
      }
      int length = b[i++] & 0xff;
      int octets = (length + 7) >>> 3;
      long high = 0;
      long low = 0;
      if (octets == 16) {
        high = Wire.i64(b, i);
        low = Wire.i64(b, i + 8);
      } else if (octets >= 8) {
        high = Wire.i64(b, i);
        for (int j = 8; j < octets; j++) {
          low |= (b[i + j] & 0xffL) << (56 - 8 * (j - 8));
        }
      } else {
        for (int j = 0; j < octets; j++) {
          high |= (b[i + j] & 0xffL) << (56 - 8 * j);
        }
      }
      i += octets;
      highs[k] = maskHigh(high, length);
      lows[k] = maskLow(low, length);
      lengths[k] = (byte) length;
    }
    return new Ipv6Prefixes(highs, lows, lengths, ids);
  }

  static int encodedLength(Ipv4Prefixes p, boolean pathIds) {
    int total = pathIds ? 5 * p.size() : p.size();
    for (int k = 0; k < p.size(); k++) {
      total += (p.length(k) + 7) >>> 3;
    }
    return total;
  }

  static int encodedLength(Ipv6Prefixes p, boolean pathIds) {
    int total = pathIds ? 5 * p.size() : p.size();
    for (int k = 0; k < p.size(); k++) {
      total += (p.length(k) + 7) >>> 3;
    }
    return total;
  }

  static void encode(Ipv4Prefixes p, boolean pathIds, WireWriter out) {
    checkPathIds(p.isEmpty(), p.hasPathIds(), pathIds);
    out.ensure(encodedLength(p, pathIds));
    for (int k = 0; k < p.size(); k++) {
      if (pathIds) {
        out.u32(p.pathId(k));
      }
      int length = p.length(k);
      int a = p.address(k);
      out.u8(length);
      for (int j = 0, octets = (length + 7) >>> 3; j < octets; j++) {
        out.u8(a >>> (24 - 8 * j));
      }
    }
  }

  static void encode(Ipv6Prefixes p, boolean pathIds, WireWriter out) {
    checkPathIds(p.isEmpty(), p.hasPathIds(), pathIds);
    out.ensure(encodedLength(p, pathIds));
    for (int k = 0; k < p.size(); k++) {
      if (pathIds) {
        out.u32(p.pathId(k));
      }
      int length = p.length(k);
      long high = p.high(k);
      long low = p.low(k);
      out.u8(length);
      for (int j = 0, octets = (length + 7) >>> 3; j < octets; j++) {
        out.u8((int) (j < 8 ? high >>> (56 - 8 * j) : low >>> (56 - 8 * (j - 8))));
      }
    }
  }

  /**
   * RFC 7911 §3: Path Identifiers are sent exactly when ADD-PATH send was negotiated for the
   * family.
   */
  private static void checkPathIds(boolean empty, boolean has, boolean negotiated) {
    if (!empty && has != negotiated) {
      throw new IllegalArgumentException(
          negotiated
              ? "ADD-PATH is negotiated for this family: prefixes need Path Identifiers"
              : "ADD-PATH is not negotiated for this family: prefixes must not have Path Identifiers");
    }
  }
}
