package dev.sart.bgp.wire;

import java.util.Arrays;

/**
 * RFC 8092 §3: LARGE_COMMUNITY, optional transitive, a list of 12-octet values: Global
 * Administrator, Local Data Part 1, Local Data Part 2, 4 octets each. Held as three ints per
 * community.
 */
public final class LargeCommunities implements PathAttribute {

  private final int[] values;

  LargeCommunities(int[] values) {
    this.values = values;
  }

  /**
   * Each community is three unsigned 32-bit values: {@code global, local1, local2, global, ...}.
   */
  public static LargeCommunities of(long... parts) {
    if (parts.length == 0 || parts.length % 3 != 0) {
      throw new IllegalArgumentException("RFC 8092: a non-empty list of triples");
    }
    int[] v = new int[parts.length];
    for (int i = 0; i < parts.length; i++) {
      Attributes.checkU32(parts[i]);
      v[i] = (int) parts[i];
    }
    return new LargeCommunities(v);
  }

  public int size() {
    return values.length / 3;
  }

  public long globalAdministrator(int index) {
    return values[3 * index] & 0xffff_ffffL;
  }

  public long localData1(int index) {
    return values[3 * index + 1] & 0xffff_ffffL;
  }

  public long localData2(int index) {
    return values[3 * index + 2] & 0xffff_ffffL;
  }

  int[] values() {
    return values;
  }

  @Override
  public int typeCode() {
    return Iana.AttributeType.LARGE_COMMUNITY;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LargeCommunities other && Arrays.equals(values, other.values);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(values);
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("LargeCommunities[");
    for (int i = 0; i < size(); i++) {
      s.append(i > 0 ? " " : "")
          .append(globalAdministrator(i))
          .append(':')
          .append(localData1(i))
          .append(':')
          .append(localData2(i));
    }
    return s.append(']').toString();
  }
}
