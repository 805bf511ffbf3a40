package dev.sart.bgp.wire;

import java.util.Arrays;

/** RFC 4456 §8: CLUSTER_LIST, optional non-transitive, a list of 4-octet CLUSTER_IDs. */
public final class ClusterList implements PathAttribute {

  private final int[] ids;

  ClusterList(int[] ids) {
    this.ids = ids;
  }

  public static ClusterList of(int... ids) {
    if (ids.length == 0) {
      throw new IllegalArgumentException("RFC 7606 §7.10: CLUSTER_LIST must not be empty");
    }
    return new ClusterList(ids.clone());
  }

  /** RFC 4456 §8: a reflector prepends its CLUSTER_ID. */
  public ClusterList prepend(int id) {
    int[] n = new int[ids.length + 1];
    n[0] = id;
    System.arraycopy(ids, 0, n, 1, ids.length);
    return new ClusterList(n);
  }

  public int size() {
    return ids.length;
  }

  public int get(int index) {
    return ids[index];
  }

  public boolean contains(int id) {
    for (int v : ids) {
      if (v == id) {
        return true;
      }
    }
    return false;
  }

  int[] ids() {
    return ids;
  }

  @Override
  public int typeCode() {
    return Iana.AttributeType.CLUSTER_LIST;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ClusterList other && Arrays.equals(ids, other.ids);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(ids);
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("ClusterList[");
    for (int i = 0; i < ids.length; i++) {
      s.append(i > 0 ? " " : "").append(Ip.formatV4(ids[i]));
    }
    return s.append(']').toString();
  }
}
