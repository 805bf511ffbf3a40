package dev.sart.bgp.wire;

import java.util.Arrays;

/**
 * IPv4 prefixes packed into primitive arrays: address (masked to its length), length, and with
 * ADD-PATH the Path Identifier (RFC 7911 §3).
 *
 * <pre>
 * RFC 4271 §4.3                        RFC 7911 §3
 * +---------------------------+        +--------------------------------+
 * |   Length (1 octet)        |        | Path Identifier (4 octets)     |
 * +---------------------------+        +--------------------------------+
 * |   Prefix (variable)       |        | Length (1 octet)               |
 * +---------------------------+        +--------------------------------+
 *                                      | Prefix (variable)              |
 *                                      +--------------------------------+
 * </pre>
 */
public final class Ipv4Prefixes implements Nlri {

  public static final Ipv4Prefixes EMPTY = new Ipv4Prefixes(new int[0], new byte[0], null);

  private final int[] addresses;
  private final byte[] lengths;
  private final int[] pathIds;

  /** Takes ownership of the arrays; {@code pathIds} is null without ADD-PATH. */
  Ipv4Prefixes(int[] addresses, byte[] lengths, int[] pathIds) {
    this.addresses = addresses;
    this.lengths = lengths;
    this.pathIds = pathIds;
  }

  public static Builder builder() {
    return new Builder(false);
  }

  /** For a family with ADD-PATH: every prefix gets a Path Identifier. */
  public static Builder builderWithPathIds() {
    return new Builder(true);
  }

  @Override
  public int size() {
    return addresses.length;
  }

  @Override
  public boolean isEmpty() {
    return addresses.length == 0;
  }

  public int address(int index) {
    return addresses[index];
  }

  public int length(int index) {
    return lengths[index];
  }

  public boolean hasPathIds() {
    return pathIds != null;
  }

  /** The Path Identifier; 0 when the block has none. */
  public int pathId(int index) {
    return pathIds == null ? 0 : pathIds[index];
  }

  public String toString(int index) {
    String p = Ip.formatV4(addresses[index]) + "/" + lengths[index];
    return pathIds == null ? p : p + " id " + Integer.toUnsignedString(pathIds[index]);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Ipv4Prefixes other
        && Arrays.equals(addresses, other.addresses)
        && Arrays.equals(lengths, other.lengths)
        && Arrays.equals(pathIds, other.pathIds);
  }

  @Override
  public int hashCode() {
    return (Arrays.hashCode(addresses) * 31 + Arrays.hashCode(lengths)) * 31
        + Arrays.hashCode(pathIds);
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("Ipv4Prefixes[");
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
    private int[] addresses = new int[16];
    private byte[] lengths = new byte[16];
    private int[] pathIds;
    private int size;

    private Builder(boolean withPathIds) {
      pathIds = withPathIds ? new int[16] : null;
    }

    public Builder add(String cidr) {
      int slash = cidr.indexOf('/');
      return add(Ip.parseV4(cidr.substring(0, slash)), Integer.parseInt(cidr.substring(slash + 1)));
    }

    public Builder add(int address, int length) {
      if (pathIds != null) {
        throw new IllegalStateException("this block carries Path Identifiers");
      }
      return put(0, address, length);
    }

    public Builder add(int pathId, int address, int length) {
      if (pathIds == null) {
        throw new IllegalStateException("this block carries no Path Identifiers");
      }
      return put(pathId, address, length);
    }

    public Builder add(int pathId, String cidr) {
      int slash = cidr.indexOf('/');
      return add(
          pathId,
          Ip.parseV4(cidr.substring(0, slash)),
          Integer.parseInt(cidr.substring(slash + 1)));
    }

    private Builder put(int pathId, int address, int length) {
      if (length < 0 || length > 32) {
        throw new IllegalArgumentException("IPv4 prefix length " + length);
      }
      if (size == addresses.length) {
        addresses = Arrays.copyOf(addresses, size * 2);
        lengths = Arrays.copyOf(lengths, size * 2);
        if (pathIds != null) {
          pathIds = Arrays.copyOf(pathIds, size * 2);
        }
      }
      addresses[size] = NlriCodec.maskV4(address, length);
      lengths[size] = (byte) length;
      if (pathIds != null) {
        pathIds[size] = pathId;
      }
      size++;
      return this;
    }

    public Ipv4Prefixes build() {
      if (size == 0) { // an empty block is the same with or without ADD-PATH
        return EMPTY;
      }
      return new Ipv4Prefixes(
          Arrays.copyOf(addresses, size),
          Arrays.copyOf(lengths, size),
          pathIds == null ? null : Arrays.copyOf(pathIds, size));
    }
  }
}
