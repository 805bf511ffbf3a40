package dev.sart.controller.runtime;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;

/**
 * API writes a reconciler has decided on, sent off its thread: up to {@code parallel} at once, one
 * at a time per key and in order (a key's newer write waits for its older one; a write not yet
 * started is replaced by a newer one of the same key). The reconciler's thread thus never waits for
 * a round trip to the API server, and a burst of Services is written at the server's pace rather
 * than one round trip after another.
 */
public final class Writes implements AutoCloseable {
  /** A write; throws when the API server refused it. */
  @FunctionalInterface
  public interface Write {
    void run() throws Exception;
  }

  private final Semaphore slots;
  private final ExecutorService senders;
  private final Map<String, Write> waiting = new HashMap<>();
  private final java.util.Set<String> busy = new java.util.HashSet<>();
  private volatile boolean closed;

  public Writes(String name, int parallel) {
    this.slots = new Semaphore(parallel);
    this.senders =
        Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("sart-" + name + "-write-", 0).factory());
  }

  /**
   * Sends {@code write} for {@code key} after any write of the same key that is already under way.
   */
  public synchronized void submit(String key, Write write) {
    if (closed) {
      return;
    }
    if (busy.contains(key)) {
      waiting.put(key, write);
      return;
    }
    busy.add(key);
    send(key, write);
  }

  private void send(String key, Write write) {
    try {
      senders.execute(
          () -> {
            try {
              slots.acquire();
              try {
                write.run();
              } finally {
                slots.release();
              }
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            } catch (Exception e) {
              // the write reports its own failure (and asks for a retry); nothing else to do here
            } finally {
              next(key);
            }
          });
    } catch (RejectedExecutionException e) {
      // closing
    }
  }

  private synchronized void next(String key) {
    var write = waiting.remove(key);
    if (write == null || closed) {
      busy.remove(key);
      return;
    }
    send(key, write);
  }

  /** Whether {@code key} has a write waiting or under way. */
  public synchronized boolean pending(String key) {
    return busy.contains(key);
  }

  /** Keys with a write waiting or under way (for tests and the benchmark). */
  public synchronized int pending() {
    return busy.size();
  }

  @Override
  public void close() {
    synchronized (this) {
      closed = true;
      waiting.clear();
    }
    senders.shutdownNow();
  }
}
