package dev.sart.bgp.wire;

import java.util.Arrays;

/**
 * RFC 4360 §2: EXTENDED_COMMUNITIES, optional transitive, a list of 8-octet values (type, sub-type,
 * value). Held as longs; their meaning (route target, link bandwidth, ...) is for the layers above.
 */
public final class ExtendedCommunities implements PathAttribute {

  private final long[] values;

  ExtendedCommunities(long[] values) {
    this.values = values;
  }

  public static ExtendedCommunities of(long... values) {
    if (values.length == 0) {
      throw new IllegalArgumentException("RFC 7606 §7.14: EXTENDED_COMMUNITIES must not be empty");
    }
    return new ExtendedCommunities(values.clone());
  }

  /**
   * RFC 4360 §4: a two-octet-AS-specific route target {@code as:value} (type 0x00, sub-type 0x02).
   */
  public static long routeTarget(int as, long value) {
    return 0x0002L << 48 | (long) (as & 0xffff) << 32 | (value & 0xffff_ffffL);
  }

  public int size() {
    return values.length;
  }

  public long get(int index) {
    return values[index];
  }

  long[] values() {
    return values;
  }

  @Override
  public int typeCode() {
    return Iana.AttributeType.EXTENDED_COMMUNITIES;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ExtendedCommunities other && Arrays.equals(values, other.values);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(values);
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("ExtendedCommunities[");
    for (int i = 0; i < values.length; i++) {
      s.append(i > 0 ? " " : "").append(String.format("%016x", values[i]));
    }
    return s.append(']').toString();
  }
}
