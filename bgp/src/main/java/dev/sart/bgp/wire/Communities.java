package dev.sart.bgp.wire;

import java.util.Arrays;

/**
 * RFC 1997: COMMUNITIES, optional transitive, a list of 4-octet values, conventionally {@code
 * AS:value} with 2 octets each. The well-known ones are named (see {@link #name}).
 */
public final class Communities implements PathAttribute {

  private final int[] values;

  Communities(int[] values) {
    this.values = values;
  }

  public static Communities of(int... values) {
    if (values.length == 0) {
      throw new IllegalArgumentException("RFC 7606 §7.8: COMMUNITIES must not be empty");
    }
    return new Communities(values.clone());
  }

  /** {@code high:low}, each 16 bits. */
  public static int community(int high, int low) {
    if (high < 0 || high > 0xffff || low < 0 || low > 0xffff) {
      throw new IllegalArgumentException("community halves are 16 bits: " + high + ":" + low);
    }
    return high << 16 | low;
  }

  public int size() {
    return values.length;
  }

  public int get(int index) {
    return values[index];
  }

  public boolean contains(int community) {
    for (int v : values) {
      if (v == community) {
        return true;
      }
    }
    return false;
  }

  int[] values() {
    return values;
  }

  /** The name of a well-known community, or {@code high:low}. */
  public static String name(int community) {
    return switch (community) {
      case Iana.WellKnownCommunity.GRACEFUL_SHUTDOWN -> "GRACEFUL_SHUTDOWN";
      case Iana.WellKnownCommunity.ACCEPT_OWN -> "ACCEPT_OWN";
      case Iana.WellKnownCommunity.LLGR_STALE -> "LLGR_STALE";
      case Iana.WellKnownCommunity.NO_LLGR -> "NO_LLGR";
      case Iana.WellKnownCommunity.BLACKHOLE -> "BLACKHOLE";
      case Iana.WellKnownCommunity.NO_EXPORT -> "NO_EXPORT";
      case Iana.WellKnownCommunity.NO_ADVERTISE -> "NO_ADVERTISE";
      case Iana.WellKnownCommunity.NO_EXPORT_SUBCONFED -> "NO_EXPORT_SUBCONFED";
      case Iana.WellKnownCommunity.NO_PEER -> "NO_PEER";
      default -> (community >>> 16) + ":" + (community & 0xffff);
    };
  }

  @Override
  public int typeCode() {
    return Iana.AttributeType.COMMUNITIES;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Communities other && Arrays.equals(values, other.values);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(values);
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("Communities[");
    for (int i = 0; i < values.length; i++) {
      s.append(i > 0 ? " " : "").append(name(values[i]));
    }
    return s.append(']').toString();
  }
}
