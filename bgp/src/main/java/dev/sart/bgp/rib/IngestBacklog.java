package dev.sart.bgp.rib;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Read back-pressure for the RIB: counts the prefixes (announced or withdrawn) of UPDATEs handed to
 * the RIB's shards and not processed yet. Above the high-water mark the peers stop reading from
 * their sockets, so TCP pushes back on the senders; once the count is at or below the low-water
 * mark, the waiting peers are told to read again. Lock-free: peers' event loops add, the shards
 * subtract.
 */
final class IngestBacklog {
  private final AtomicLong queued = new AtomicLong();
  private final ConcurrentLinkedQueue<Runnable> belowLowWater = new ConcurrentLinkedQueue<>();
  // the defaults, about half a second of the RIB's work: system properties for experiments
  private volatile long highWater = Long.getLong("sart.bgp.rib.highWater", 100_000);
  private volatile long lowWater = Long.getLong("sart.bgp.rib.lowWater", 20_000);

  /** {@code prefixes} were handed to the RIB's shards. */
  void added(long prefixes) {
    queued.addAndGet(prefixes);
  }

  /** A shard processed {@code prefixes}: the waiting peers go on once below the low-water mark. */
  void processed(long prefixes) {
    if (queued.addAndGet(-prefixes) <= lowWater && !belowLowWater.isEmpty()) {
      runBelowLowWater();
    }
  }

  long queued() {
    return queued.get();
  }

  boolean overHighWater() {
    return queued.get() > highWater;
  }

  /**
   * Runs {@code r} (on a RIB shard's thread, or at once on the caller's) when at or below the
   * low-water mark.
   */
  void whenBelowLowWater(Runnable r) {
    belowLowWater.add(r);
    if (queued.get() <= lowWater) {
      runBelowLowWater();
    }
  }

  void setMarks(long high, long low) {
    if (low < 0 || low >= high) {
      throw new IllegalArgumentException(
          "back-pressure marks: need 0 <= low < high, got low " + low + " high " + high);
    }
    highWater = high;
    lowWater = low;
  }

  private void runBelowLowWater() {
    Runnable r;
    while ((r = belowLowWater.poll()) != null) {
      r.run();
    }
  }
}
