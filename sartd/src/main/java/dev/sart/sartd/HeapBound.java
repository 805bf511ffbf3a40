package dev.sart.sartd;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryNotificationInfo;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.Optional;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * Keeps the old generation of sartd's collector (Serial, {@code sartd/jvm.options}) within twice
 * what was live after the last full collection, as Go's {@code GOGC=100} does for its whole heap.
 *
 * <p>Serial collects its old generation only when that generation cannot grow any more: a young
 * collection that promotes more than fits first commits more of the reserved heap (up to the
 * maximum, a quarter of the machine's or the container's memory). A route learned and then
 * withdrawn dies in the old generation, so each session reset of a full table left its paths there:
 * {@code bin/soak} with 100,000 routes had 80 MiB live and an RSS of 1.9 GiB after ten resets, all
 * of it given back by one full collection (testbed/perf/LOG.md, 2026-11-27, "soak at 100,000
 * routes").
 *
 * <p>Here the old generation's usage threshold ({@link MemoryPoolMXBean#setUsageThreshold}) is set
 * to {@link #FACTOR} × its usage after the last full collection, and at least {@link #FLOOR}. When
 * a promotion crosses it, a full collection ({@link System#gc}) runs once sartd is quiet — no young
 * collection for {@link #QUIET_MILLIS}, so a table being learned is not paused for it — or at once
 * when the old generation has reached {@link #BUSY_FACTOR} times the threshold while busy. Then the
 * threshold is set again from what is live. With another collector (an operator's {@code
 * SARTD_JAVA_OPTS}) nothing is done: G1, Parallel and ZGC size their old generations themselves.
 */
final class HeapBound {
  private static final Logger LOG = Logger.getLogger(HeapBound.class.getName());
  private static final AtomicBoolean INSTALLED = new AtomicBoolean();

  /** Below this the old generation is left alone (an idle node has ~20 MiB live). */
  static final long FLOOR = 64L << 20;

  /** The bound, as a multiple of the usage after the last full collection. */
  static final int FACTOR = 2;

  /** How long without a young collection counts as quiet. */
  static final long QUIET_MILLIS = 2_000;

  /**
   * While busy, the old generation may reach this multiple of the bound before it is collected
   * anyway: a table being learned grows it with what stays live, and a collection then would find
   * little to free and pause the learning (bgperf (a), 1,000,000 paths, ~150 MiB live).
   */
  static final int BUSY_FACTOR = 4;

  private static final long POLL_MILLIS = 250;

  /** A young collection count not read: the next one read counts as a change. */
  private static final long UNKNOWN = -1;

  private final MemoryPoolMXBean old;
  private final GarbageCollectorMXBean young;
  private final long floor;
  private final long quietMillis;
  private final ScheduledThreadPoolExecutor timer =
      new ScheduledThreadPoolExecutor(
          1, r -> Thread.ofPlatform().daemon().name("sartd-heap-bound").unstarted(r));
  private final AtomicBoolean pending = new AtomicBoolean();
  private volatile long threshold;

  private HeapBound(
      MemoryPoolMXBean old, GarbageCollectorMXBean young, long floor, long quietMillis) {
    this.old = old;
    this.young = young;
    this.floor = floor;
    this.quietMillis = quietMillis;
  }

  /** Once per process, for the daemons (not for {@code version} or {@code certgen}). */
  static void install() {
    install(FLOOR, QUIET_MILLIS, UnaryOperator.identity());
  }

  /**
   * With another floor and quiet time, and the young collector as {@code young} makes it (tests);
   * empty when installed before or not Serial.
   */
  static Optional<HeapBound> install(
      long floor, long quietMillis, UnaryOperator<GarbageCollectorMXBean> young) {
    if (!INSTALLED.compareAndSet(false, true)) {
      return Optional.empty();
    }
    Optional<MemoryPoolMXBean> old =
        ManagementFactory.getMemoryPoolMXBeans().stream()
            .filter(p -> p.getType() == MemoryType.HEAP && p.getName().equals("Tenured Gen"))
            .filter(MemoryPoolMXBean::isUsageThresholdSupported)
            .findFirst();
    // Serial's young collector: "Copy", over "Eden Space" and "Survivor Space"
    Optional<GarbageCollectorMXBean> collector =
        ManagementFactory.getGarbageCollectorMXBeans().stream()
            .filter(g -> g.getName().equals("Copy"))
            .findFirst()
            .map(young);
    if (old.isEmpty() || collector.isEmpty()) {
      LOG.fine("event=heap-bound-off reason=\"not the Serial collector\"");
      return Optional.empty();
    }
    HeapBound b = new HeapBound(old.get(), collector.get(), floor, quietMillis);
    // its thread from the start, not at the first crossing: a thread count that steps up an hour
    // into a soak would look like a leak
    b.timer.prestartCoreThread();
    ((NotificationEmitter) ManagementFactory.getMemoryMXBean())
        .addNotificationListener(
            (n, handback) -> {
              if (n.getType().equals(MemoryNotificationInfo.MEMORY_THRESHOLD_EXCEEDED)
                  && MemoryNotificationInfo.from((CompositeData) n.getUserData())
                      .getPoolName()
                      .equals(b.old.getName())) {
                b.exceeded();
              }
            },
            null,
            null);
    b.arm();
    return Optional.of(b);
  }

  /** The old generation's bound now. */
  long threshold() {
    return threshold;
  }

  private void arm() {
    var after = old.getCollectionUsage();
    long live = after != null && after.getUsed() > 0 ? after.getUsed() : old.getUsage().getUsed();
    long bound = Math.max(floor, FACTOR * live);
    long max = old.getUsage().getMax(); // -1: undefined
    // setUsageThreshold refuses more than the pool's maximum (more than half of it live): the
    // maximum then, where Serial collects by itself
    threshold = max < 0 ? bound : Math.min(max, bound);
    old.setUsageThreshold(threshold);
  }

  /** On the JVM's notification thread: hands the wait to the timer, once per crossing. */
  private void exceeded() {
    if (pending.compareAndSet(false, true)) {
      long count;
      try {
        count = young.getCollectionCount();
      } catch (RuntimeException e) {
        count = UNKNOWN; // the first poll then sees a change: the quiet time starts there
      }
      poll(count, System.nanoTime(), POLL_MILLIS);
    }
  }

  private void poll(long lastCount, long quietSince, long delay) {
    timer.schedule(() -> check(lastCount, quietSince), delay, TimeUnit.MILLISECONDS);
  }

  /**
   * Waits for sartd to be quiet (or too busy to wait), then collects. While {@link #pending} is set
   * one check is always scheduled: whatever this throws before it collected is logged and the wait
   * starts again after the quiet time. Without that, a check that threw would leave the bound
   * pending for good — no crossing is notified again before the old generation has been below its
   * threshold — and its exception would be lost in the timer's future.
   */
  private void check(long lastCount, long quietSince) {
    boolean handled = false; // the next check scheduled, or collected
    try {
      long count = young.getCollectionCount();
      long now = System.nanoTime();
      if (count != lastCount) {
        quietSince = now;
      }
      long used = old.getUsage().getUsed();
      boolean quiet = now - quietSince >= TimeUnit.MILLISECONDS.toNanos(quietMillis);
      if (!quiet && used < BUSY_FACTOR * threshold) {
        poll(count, quietSince, POLL_MILLIS);
        handled = true;
        return;
      }
      long bound = threshold;
      System.gc();
      arm();
      handled = true;
      LOG.fine(
          () ->
              "event=heap-bound-collected old-before-mib="
                  + (used >> 20)
                  + " bound-mib="
                  + (bound >> 20)
                  + " next-bound-mib="
                  + (threshold >> 20)
                  + (quiet ? "" : " busy=true"));
    } catch (RuntimeException e) {
      LOG.log(
          Level.WARNING,
          e,
          () -> "event=heap-bound-check-failed retry-in-ms=" + quietMillis + " error=" + e);
    } finally {
      if (!handled) {
        poll(UNKNOWN, System.nanoTime(), quietMillis);
      }
    }
    if (!handled) {
      return;
    }
    pending.set(false);
    if (old.getUsage().getUsed() >= threshold) {
      // crossed again while collecting: that notification found this one pending
      exceeded();
    }
  }
}
