package dev.sart.bgp.wire;

import java.util.Arrays;

/**
 * IPv6 prefixes (RFC 2545, RFC 4760 §5) packed into primitive arrays: the address as two longs
 * (masked to its length), the length, and with ADD-PATH the Path Identifier (RFC 7911 §3). The
 * encoding is that of {@link Ipv4Prefixes} with up to 16 prefix octets.
 */
public final class Ipv6Prefixes implements Nlri {

  public static final Ipv6Prefixes EMPTY =
      new Ipv6Prefixes(new long[0], new long[0], new byte[0], null);

  private final long[] highs;
  private final long[] lows;
  private final byte[] lengths;
  private final int[] pathIds;

  /** Takes ownership of the arrays; {@code pathIds} is null without ADD-PATH. */
  Ipv6Prefixes(long[] highs, long[] lows, byte[] lengths, int[] pathIds) {
    this.highs = highs;
    this.lows = lows;
    this.lengths = lengths;
    this.pathIds = pathIds;
  }

  public static Builder builder() {
    return new Builder(false);
  }

  public static Builder builderWithPathIds() {
    return new Builder(true);
  }

  @Override
  public int size() {
    return lengths.length;
  }

  @Override
  public boolean isEmpty() {
    return lengths.length == 0;
  }

  /** The upper 64 bits of the address. */
  public long high(int index) {
    return highs[index];
  }

  /** The lower 64 bits of the address. */
  public long low(int index) {
    return lows[index];
  }

  public int length(int index) {
    return lengths[index] & 0xff;
  }

  public boolean hasPathIds() {
    return pathIds != null;
  }

  public int pathId(int index) {
    return pathIds == null ? 0 : pathIds[index];
  }

  public String toString(int index) {
    String p = Ip.formatV6(highs[index], lows[index]) + "/" + length(index);
    return pathIds == null ? p : p + " id " + Integer.toUnsignedString(pathIds[index]);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Ipv6Prefixes other
        && Arrays.equals(highs, other.highs)
        && Arrays.equals(lows, other.lows)
        && Arrays.equals(lengths, other.lengths)
        && Arrays.equals(pathIds, other.pathIds);
  }

  @Override
  public int hashCode() {
    return ((Arrays.hashCode(highs) * 31 + Arrays.hashCode(lows)) * 31 + Arrays.hashCode(lengths))
            * 31
        + Arrays.hashCode(pathIds);
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("Ipv6Prefixes[");
    for (int i = 0; i < Math.min(size(), 8); i++) {
      s.append(i > 0 ? ", " : "").append(toString(i));
    }
    if (size() > 8) {
      s.append(", ... (").append(size()).append(" in all)");
    }
    return s.append(']').toString();
  }

  /** Collects prefixes; host bits beyond the length are cleared. */
  public static final class Builder {
    private long[] highs = new long[16];
    private long[] lows = new long[16];
    private byte[] lengths = new byte[16];
    private int[] pathIds;
    private int size;

    private Builder(boolean withPathIds) {
      pathIds = withPathIds ? new int[16] : null;
    }

    public Builder add(String cidr) {
      int slash = cidr.indexOf('/');
      long[] a = Ip.parseV6(cidr.substring(0, slash));
      return add(a[0], a[1], Integer.parseInt(cidr.substring(slash + 1)));
    }

    public Builder add(int pathId, String cidr) {
      int slash = cidr.indexOf('/');
      long[] a = Ip.parseV6(cidr.substring(0, slash));
      return add(pathId, a[0], a[1], Integer.parseInt(cidr.substring(slash + 1)));
    }

    public Builder add(long high, long low, int length) {
      if (pathIds != null) {
        throw new IllegalStateException("this block carries Path Identifiers");
      }
      return put(0, high, low, length);
    }

    public Builder add(int pathId, long high, long low, int length) {
      if (pathIds == null) {
        throw new IllegalStateException("this block carries no Path Identifiers");
      }
      return put(pathId, high, low, length);
    }

    private Builder put(int pathId, long high, long low, int length) {
      if (length < 0 || length > 128) {
        throw new IllegalArgumentException("IPv6 prefix length " + length);
      }
      if (size == lengths.length) {
        highs = Arrays.copyOf(highs, size * 2);
        lows = Arrays.copyOf(lows, size * 2);
        lengths = Arrays.copyOf(lengths, size * 2);
        if (pathIds != null) {
          pathIds = Arrays.copyOf(pathIds, size * 2);
        }
      }
      highs[size] = NlriCodec.maskHigh(high, length);
      lows[size] = NlriCodec.maskLow(low, length);
      lengths[size] = (byte) length;
      if (pathIds != null) {
        pathIds[size] = pathId;
      }
      size++;
      return this;
    }

    public Ipv6Prefixes build() {
      if (size == 0) { // an empty block is the same with or without ADD-PATH
        return EMPTY;
      }
      return new Ipv6Prefixes(
          Arrays.copyOf(highs, size),
          Arrays.copyOf(lows, size),
          Arrays.copyOf(lengths, size),
          pathIds == null ? null : Arrays.copyOf(pathIds, size));
    }
  }
}
