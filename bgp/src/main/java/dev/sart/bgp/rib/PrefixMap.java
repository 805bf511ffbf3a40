package dev.sart.bgp.rib;

/**
 * A map from {@link Prefix} to a value and a base {@link Attrs} in four arrays (open addressing,
 * linear probing, no node per entry: 16 bytes per entry and its slack against about 40 and a holder
 * object for a {@code HashMap}; the fourth holds each key's hash tag, as in {@link
 * DestinationTable}). For the pending changes of an Adj-RIB-Out, which hold one entry per changed
 * prefix and per peer while a peer cannot keep up. Not thread-safe; walked by slot index ({@link
 * #capacity}, {@link #keyAt}, {@link #valueAt}, {@link #baseAt}) while it is not changed.
 */
final class PrefixMap {
  private static final int MIN_CAPACITY = 16;

  private Prefix[] keys;

  /** Each key's {@link DestinationTable#tag}: probes compare it before they read a key. */
  private int[] tags;

  private Object[] values;
  private Attrs[] bases;
  private int size;

  PrefixMap() {
    this(0);
  }

  /** A map with room for {@code expected} entries before it grows. */
  PrefixMap(int expected) {
    int capacity = MIN_CAPACITY;
    while (capacity - (capacity >> 2) < expected) { // load factor 0.75
      capacity <<= 1;
    }
    keys = new Prefix[capacity];
    tags = new int[capacity];
    values = new Object[capacity];
    bases = new Attrs[capacity];
  }

  int size() {
    return size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  Object get(Prefix p) {
    int i = slot(p);
    return i < 0 ? null : values[i];
  }

  /** The slot holding {@code p}, or -1. */
  int slot(Prefix p) {
    Prefix[] k = keys;
    int[] t = tags;
    int mask = k.length - 1;
    int tag = DestinationTable.tag(p);
    for (int i = tag & mask; ; i = (i + 1) & mask) {
      Prefix x = k[i];
      if (x == null) {
        return -1;
      }
      if (t[i] == tag && x.equals(p)) {
        return i;
      }
    }
  }

  /** Maps {@code p} to {@code v} (not null), keeping the base it has. */
  void put(Prefix p, Object v) {
    put(p, null, v, false);
  }

  /** Maps {@code p} to {@code v} (not null) and {@code base}. */
  void put(Prefix p, Attrs base, Object v) {
    put(p, base, v, true);
  }

  private void put(Prefix p, Attrs base, Object v, boolean setBase) {
    Prefix[] k = keys;
    int[] t = tags;
    int mask = k.length - 1;
    int tag = DestinationTable.tag(p);
    int i = tag & mask;
    for (; ; i = (i + 1) & mask) {
      Prefix x = k[i];
      if (x == null) {
        break;
      }
      if (t[i] == tag && x.equals(p)) {
        values[i] = v;
        if (setBase) {
          bases[i] = base;
        }
        return;
      }
    }
    k[i] = p;
    t[i] = tag;
    values[i] = v;
    bases[i] = base;
    if (++size > (k.length >> 1) + (k.length >> 2)) { // load factor 0.75
      resize(k.length << 1);
    }
  }

  void remove(Prefix p) {
    Prefix[] k = keys;
    int[] t = tags;
    Object[] v = values;
    Attrs[] b = bases;
    int mask = k.length - 1;
    int tag = DestinationTable.tag(p);
    int i = tag & mask;
    for (; ; i = (i + 1) & mask) {
      Prefix x = k[i];
      if (x == null) {
        return;
      }
      if (t[i] == tag && x.equals(p)) {
        break;
      }
    }
    // backward-shift deletion (see DestinationTable#remove)
    int hole = i;
    for (int j = (hole + 1) & mask; k[j] != null; j = (j + 1) & mask) {
      int home = t[j] & mask;
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        k[hole] = k[j];
        t[hole] = t[j];
        v[hole] = v[j];
        b[hole] = b[j];
        hole = j;
      }
    }
    k[hole] = null;
    t[hole] = 0;
    v[hole] = null;
    b[hole] = null;
    size--;
  }

  private void resize(int capacity) {
    Prefix[] ok = keys;
    int[] ot = tags;
    Object[] ov = values;
    Attrs[] ob = bases;
    Prefix[] k = new Prefix[capacity];
    int[] t = new int[capacity];
    Object[] v = new Object[capacity];
    Attrs[] b = new Attrs[capacity];
    int mask = capacity - 1;
    for (int j = 0; j < ok.length; j++) {
      if (ok[j] != null) {
        int i = ot[j] & mask;
        while (k[i] != null) {
          i = (i + 1) & mask;
        }
        k[i] = ok[j];
        t[i] = ot[j];
        v[i] = ov[j];
        b[i] = ob[j];
      }
    }
    keys = k;
    tags = t;
    values = v;
    bases = b;
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

  Attrs baseAt(int i) {
    return bases[i];
  }

  void setValueAt(int i, Object v) {
    values[i] = v;
  }
}
