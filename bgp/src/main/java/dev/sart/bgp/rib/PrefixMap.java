package dev.sart.bgp.rib;

/**
 * A map from {@link Prefix} to a value in two arrays (open addressing, linear probing, no node
 * per entry: 8 bytes per entry and its slack against about 40 for a {@code HashMap}). For the
 * pending changes of an Adj-RIB-Out, which hold one entry per changed prefix and per peer while a
 * peer cannot keep up. Not thread-safe; walked by slot index ({@link #capacity}, {@link #keyAt},
 * {@link #valueAt}) while it is not changed.
 */
final class PrefixMap {
  private static final int MIN_CAPACITY = 16;

  private Prefix[] keys = new Prefix[MIN_CAPACITY];
  private Object[] values = new Object[MIN_CAPACITY];
  private int size;

  int size() {
    return size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  Object get(Prefix p) {
    Prefix[] k = keys;
    int mask = k.length - 1;
    for (int i = DestinationTable.index(p, mask); ; i = (i + 1) & mask) {
      Prefix x = k[i];
      if (x == null) {
        return null;
      }
      if (x.equals(p)) {
        return values[i];
      }
    }
  }

  /** Maps {@code p} to {@code v} (not null). */
  void put(Prefix p, Object v) {
    Prefix[] k = keys;
    int mask = k.length - 1;
    int i = DestinationTable.index(p, mask);
    for (; ; i = (i + 1) & mask) {
      Prefix x = k[i];
      if (x == null) {
        break;
      }
      if (x.equals(p)) {
        values[i] = v;
        return;
      }
    }
    k[i] = p;
    values[i] = v;
    if (++size > (k.length >> 1) + (k.length >> 2)) { // load factor 0.75
      resize(k.length << 1);
    }
  }

  void remove(Prefix p) {
    Prefix[] k = keys;
    Object[] v = values;
    int mask = k.length - 1;
    int i = DestinationTable.index(p, mask);
    for (; ; i = (i + 1) & mask) {
      Prefix x = k[i];
      if (x == null) {
        return;
      }
      if (x.equals(p)) {
        break;
      }
    }
    // backward-shift deletion (see DestinationTable#remove)
    int hole = i;
    for (int j = (hole + 1) & mask; k[j] != null; j = (j + 1) & mask) {
      int home = DestinationTable.index(k[j], mask);
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        k[hole] = k[j];
        v[hole] = v[j];
        hole = j;
      }
    }
    k[hole] = null;
    v[hole] = null;
    size--;
  }

  private void resize(int capacity) {
    Prefix[] ok = keys;
    Object[] ov = values;
    Prefix[] k = new Prefix[capacity];
    Object[] v = new Object[capacity];
    int mask = capacity - 1;
    for (int j = 0; j < ok.length; j++) {
      if (ok[j] != null) {
        int i = DestinationTable.index(ok[j], mask);
        while (k[i] != null) {
          i = (i + 1) & mask;
        }
        k[i] = ok[j];
        v[i] = ov[j];
      }
    }
    keys = k;
    values = v;
  }

  /** The number of slots, for a walk by index. */
  int capacity() {
    return keys.length;
  }

  /** The key in slot {@code i}, or null when the slot is empty. */
  Prefix keyAt(int i) {
    return keys[i];
  }

  Object valueAt(int i) {
    return values[i];
  }
}
