package dev.sart.bgp.api;

import io.grpc.stub.ServerCallStreamObserver;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BinaryOperator;
import java.util.function.Function;

/**
 * The events of one watch subscriber not yet written to its stream, at most one per key (a prefix,
 * a peer): a newer event replaces the one still waiting, which keeps its place. So a subscriber
 * that reads slowly, or not at all, holds at most one event per prefix (or peer) here, however much
 * changes: the heap is bounded by the table, as the Adj-RIB-Out of a slow peer is (README, "Memory
 * per route"). Producers (RIB shards, peer loops) hold the lock only to put; the writer (one
 * virtual thread) writes only while gRPC says the stream is ready ({@code isReady}, woken by {@code
 * onReady}), so nothing piles up in gRPC's or Netty's buffers either.
 */
final class WatchQueue<K, T> {
  private final LinkedHashMap<K, T> pending = new LinkedHashMap<>();
  private final BinaryOperator<T> merge;
  private final Object ready = new Object();

  /**
   * @param merge (waiting, newer) → what waits now: usually the newer
   */
  WatchQueue(BinaryOperator<T> merge) {
    this.merge = merge;
  }

  /** Adds or replaces the event of {@code key}; never blocks beyond the lock. */
  synchronized void put(K key, T event) {
    pending.merge(key, event, merge);
    notifyAll();
  }

  /** Adds the event of {@code key} unless one is waiting (which is as new or newer). */
  synchronized void putIfAbsent(K key, T event) {
    if (pending.putIfAbsent(key, event) == null) {
      notifyAll();
    }
  }

  /** Events waiting (for tests and metrics). */
  synchronized int size() {
    return pending.size();
  }

  /** The oldest waiting event, waiting up to {@code millis} for one; null when none came. */
  synchronized T poll(long millis) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    while (pending.isEmpty()) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return null;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    Iterator<Map.Entry<K, T>> it = pending.entrySet().iterator();
    T e = it.next().getValue();
    it.remove();
    return e;
  }

  /** gRPC's onReady: the stream takes messages again. */
  void onReady() {
    synchronized (ready) {
      ready.notifyAll();
    }
  }

  /**
   * Writes events to {@code call} while it is ready, until it is cancelled or the thread is
   * interrupted; on the writer's thread. {@code message} makes the message of an event, here on the
   * writer's thread: a producer queues what it has (a RIB shard its prefix and selection) and pays
   * nothing for the message, and an event replaced while it waited is never made into one.
   */
  <M> void pump(ServerCallStreamObserver<M> call, Function<? super T, ? extends M> message)
      throws InterruptedException {
    while (!call.isCancelled()) {
      T event = poll(500);
      if (event == null) {
        continue;
      }
      M m = message.apply(event);
      awaitReady(call);
      if (call.isCancelled()) {
        return;
      }
      synchronized (call) {
        call.onNext(m);
      }
    }
  }

  private void awaitReady(ServerCallStreamObserver<?> call) throws InterruptedException {
    synchronized (ready) {
      while (!call.isReady() && !call.isCancelled()) {
        // onReady wakes us; the timeout covers a signal between the check and the wait, and a
        // cancelled call
        ready.wait(500);
      }
    }
  }
}
