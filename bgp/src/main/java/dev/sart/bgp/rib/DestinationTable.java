package dev.sart.bgp.rib;

import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * The Loc-RIB's index: prefix to {@link Destination}, as one open-addressing array of the
 * destinations themselves (linear probing, each destination's packed prefix is its key). Against a
 * {@code HashMap<Prefix, Destination>} it saves the map's node per prefix (32 bytes). Owned by its
 * shard's thread; the table must not be changed while {@link #values} is walked.
 *
 * <p>Beside each slot the low 32 bits of its destination's {@link #hash} (its tag): a probe
 * compares the tag and reads the destination only when the tags agree, and growing the table places
 * each destination by its tag. Without them every slot a probe passed was a destination read from
 * wherever it lies in the heap (a cache miss each, at a million prefixes): a flight recording of
 * bgperf b had those reads as the RIB thread's largest cost. 4 bytes per slot.
 */
final class DestinationTable {
  private static final int MIN_CAPACITY = 16;

  private Destination[] slots = new Destination[MIN_CAPACITY];
  private int[] tags = new int[MIN_CAPACITY];
  private int size;

  /**
   * Whether new destinations hold an ADD-PATH export's state ({@link Destination#holdsAddPath}).
   */
  boolean addPathSlots;

  /**
   * The slot of the destination {@link #get} or {@link #getOrCreate} found last: a withdrawal looks
   * its prefix up and then removes the emptied destination, and {@link #remove} starts there
   * instead of probing the table again (checked, so a stale value only costs the probe).
   */
  private int last;

  int size() {
    return size;
  }

  Destination get(Prefix p) {
    Destination[] s = slots;
    int[] t = tags;
    int mask = s.length - 1;
    int tag = tag(p);
    for (int i = tag & mask; ; i = (i + 1) & mask) {
      Destination d = s[i];
      if (d == null) {
        return null;
      }
      if (t[i] == tag && d.is(p)) {
        last = i;
        return d;
      }
    }
  }

  /**
   * Loads, for {@code ps[from..to)}, the home slot, the destination in it and that destination's
   * path, and returns a value of no use but to keep the loads. The loads of different prefixes do
   * not depend on each other, so the CPU overlaps their cache misses; the lookups that follow then
   * find them in the cache (see {@link RibShard#apply}).
   */
  int touch(List<Prefix> ps, int from, int to) {
    Destination[] s = slots;
    int mask = s.length - 1;
    int x = 0;
    for (int k = from; k < to; k++) {
      Destination d = s[index(ps.get(k), mask)];
      if (d != null) {
        x += d.touch();
      }
    }
    return x;
  }

  /** The destination of {@code p}, created (empty) when there is none. */
  Destination getOrCreate(Prefix p) {
    Destination[] s = slots;
    int[] t = tags;
    int mask = s.length - 1;
    int tag = tag(p);
    int i = tag & mask;
    for (; ; i = (i + 1) & mask) {
      Destination d = s[i];
      if (d == null) {
        break;
      }
      if (t[i] == tag && d.is(p)) {
        last = i;
        return d;
      }
    }
    Destination d = Destination.of(p, addPathSlots);
    s[i] = d;
    t[i] = tag;
    if (++size > (s.length >> 1) + (s.length >> 2)) { // load factor 0.75
      resize(s.length << 1);
    }
    return d;
  }

  /** Removes the destination of {@code p}, if there is one. */
  void remove(Prefix p) {
    Destination[] s = slots;
    int[] t = tags;
    int mask = s.length - 1;
    int tag = tag(p);
    int i =
        last < s.length && s[last] != null && t[last] == tag && s[last].is(p) ? last : tag & mask;
    for (; ; i = (i + 1) & mask) {
      Destination d = s[i];
      if (d == null) {
        return;
      }
      if (t[i] == tag && d.is(p)) {
        break;
      }
    }
    // backward-shift deletion: move up what probed past the hole, so no tombstones are needed
    int hole = i;
    for (int j = (hole + 1) & mask; s[j] != null; j = (j + 1) & mask) {
      int home = t[j] & mask;
      // s[j] may fill the hole when its home is not cyclically in (hole, j]
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        s[hole] = s[j];
        t[hole] = t[j];
        hole = j;
      }
    }
    s[hole] = null;
    t[hole] = 0;
    size--;
    if (s.length > MIN_CAPACITY && size < s.length >> 3) {
      resize(s.length >> 1);
    }
  }

  private void resize(int capacity) {
    Destination[] old = slots;
    int[] oldTags = tags;
    Destination[] s = new Destination[capacity];
    int[] t = new int[capacity];
    int mask = capacity - 1;
    for (int k = 0; k < old.length; k++) {
      if (old[k] != null) {
        int i = oldTags[k] & mask;
        while (s[i] != null) {
          i = (i + 1) & mask;
        }
        s[i] = old[k];
        t[i] = oldTags[k];
      }
    }
    slots = s;
    tags = t;
  }

  static int index(Prefix p, int mask) {
    return tag(p) & mask;
  }

  /** The low 32 bits of the prefix's {@link #hash}: its home slot is {@code tag & mask}. */
  static int tag(Prefix p) {
    return (int) hash(p.high(), p.low(), p.length(), p.family().afi());
  }

  /**
   * The slot hash of a prefix given as its parts (a destination packs them, see {@link
   * Destination}).
   */
  static long hash(long high, long low, int length, int afi) {
    long h = high * 0x9E3779B97F4A7C15L + low * 0xC2B2AE3D27D4EB4FL + length + ((long) afi << 8);
    h ^= h >>> 32;
    h *= 0xD6E8FEB86659FD93L;
    return h ^ (h >>> 32);
  }

  /** Every destination, in no particular order. */
  Iterable<Destination> values() {
    return () ->
        new Iterator<>() {
          private final Destination[] s = slots;
          private int i = advance(0);

          private int advance(int from) {
            while (from < s.length && s[from] == null) {
              from++;
            }
            return from;
          }

          @Override
          public boolean hasNext() {
            return i < s.length;
          }

          @Override
          public Destination next() {
            if (i >= s.length) {
              throw new NoSuchElementException();
            }
            Destination d = s[i];
            i = advance(i + 1);
            return d;
          }
        };
  }
}
