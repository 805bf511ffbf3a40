package dev.sart.bgp.rib;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Up to {@link #SLOTS} counts kept by the RIB shards, each shard in its own slots (a cache line's
 * stride apart, so two shards rarely write the same line): a shard adds with a plain increment
 * published with release semantics, a reader on any thread adds the shards' values up. No atomic
 * read-modify-write on the route path, and no lock.
 */
final class ShardCounts {
  /** Counts per shard: one 64-byte cache line of longs. */
  static final int SLOTS = 8;

  private final AtomicLongArray values = new AtomicLongArray(Rib.MAX_SHARDS * SLOTS);

  /** Called only by shard {@code shard}'s thread. */
  void add(int shard, int slot, long delta) {
    int i = shard * SLOTS + slot;
    values.setRelease(i, values.getPlain(i) + delta);
  }

  long sum(int slot) {
    long s = 0;
    for (int i = slot; i < values.length(); i += SLOTS) {
      s += values.getAcquire(i);
    }
    return s;
  }
}
