package dev.sart.controller.runtime;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A reconciler's work queue and its one thread: keys are deduplicated while queued, handled one at
 * a time (so the reconciler's memory has one owner), requeued after the delay the handler asks for,
 * and retried with exponential backoff (100 ms doubling to 30 s) when the handler throws.
 */
public final class Loop implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(Loop.class.getName());
  private static final Duration MIN_BACKOFF = Duration.ofMillis(100);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  /** Handles one key; returns a delay to look again after, or null when done. */
  @FunctionalInterface
  public interface Handler {
    Duration reconcile(String key) throws Exception;
  }

  private final String resource;
  private final Handler handler;
  private final Metrics metrics;
  private final LinkedBlockingQueue<String> queue = new LinkedBlockingQueue<>();
  private final Set<String> queued = ConcurrentHashMap.newKeySet();
  private final Map<String, Integer> failures = new ConcurrentHashMap<>();
  private final ScheduledExecutorService timers;
  private final Thread thread;
  private volatile boolean running = true;

  public Loop(String resource, Handler handler, Metrics metrics) {
    this.resource = resource;
    this.handler = handler;
    this.metrics = metrics;
    this.timers =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("sart-" + resource + "-timer").factory());
    this.thread = Thread.ofPlatform().daemon().name("sart-" + resource).unstarted(this::run);
  }

  public void start() {
    thread.start();
  }

  public void enqueue(String key) {
    if (queued.add(key)) {
      queue.add(key);
    }
  }

  public void enqueueAfter(String key, Duration delay) {
    if (running) {
      timers.schedule(() -> enqueue(key), delay.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /** The delay before retry number {@code attempt} (1, 2, ...): 100 ms doubling up to 30 s. */
  public static Duration backoff(int attempt) {
    return Duration.ofMillis(
        Math.min(
            MAX_BACKOFF.toMillis(),
            MIN_BACKOFF.toMillis() << Math.min(Math.max(attempt, 1) - 1, 20)));
  }

  /** Keys waiting (for tests and the benchmark). */
  public int pending() {
    return queue.size();
  }

  private void run() {
    while (running) {
      String key;
      try {
        key = queue.take();
      } catch (InterruptedException e) {
        return;
      }
      queued.remove(key);
      long start = System.nanoTime();
      try {
        Duration again = handler.reconcile(key);
        failures.remove(key);
        if (again != null) {
          enqueueAfter(key, again);
        }
      } catch (Exception | AssertionError e) {
        int n = failures.merge(key, 1, Integer::sum);
        long millis = backoff(n).toMillis();
        metrics.failed(resource);
        LOG.log(
            n == 1 ? Level.INFO : Level.FINE,
            "reconcile failed resource="
                + resource
                + " key="
                + key
                + " attempt="
                + n
                + " retryMs="
                + millis
                + " error="
                + e);
        enqueueAfter(key, Duration.ofMillis(millis));
      } finally {
        metrics.reconciled(resource, Duration.ofNanos(System.nanoTime() - start));
      }
    }
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
    timers.shutdownNow();
  }
}
