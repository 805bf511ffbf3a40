package dev.sart.testbed.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A client that keeps sending GETs to a Service address from the client namespace (one new
 * connection every 100 ms, 2 s timeout each, no retries) until stopped; counts the answers by pod
 * and keeps what each request that got none saw.
 */
public final class Traffic implements AutoCloseable {
  /** A request that got no answer: when it was sent (ms after the start) and what it got. */
  public record Failure(long atMillis, Http.Answer answer) {}

  /** What the client saw. */
  public record Result(int sent, Map<String, Integer> answers, List<Failure> failures) {
    public int failed() {
      return failures.size();
    }

    /** When each failed request was sent, ms after the start. */
    public List<Long> failedAt() {
      return failures.stream().map(Failure::atMillis).toList();
    }
  }

  private final Thread thread;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final Map<String, Integer> answers = new TreeMap<>();
  private final List<Failure> failures = new ArrayList<>();
  private int sent;
  private final long startNanos = System.nanoTime();

  private Traffic(Cluster cluster, String address, int port) {
    thread =
        Thread.ofPlatform()
            .daemon()
            .name("traffic-" + address)
            .start(
                () -> {
                  while (running.get()) {
                    long at = (System.nanoTime() - startNanos) / 1_000_000;
                    Http.Answer answer =
                        Http.attempt(
                            cluster.clientNode(), address, port, "/", Duration.ofSeconds(2));
                    synchronized (this) {
                      sent++;
                      if (answer.ok()) {
                        answers.merge(answer.body(), 1, Integer::sum);
                      } else {
                        failures.add(new Failure(at, answer));
                      }
                      notifyAll();
                    }
                    try {
                      Thread.sleep(100);
                    } catch (InterruptedException e) {
                      return;
                    }
                  }
                });
  }

  public static Traffic start(Cluster cluster, String address, int port) {
    return new Traffic(cluster, address, port);
  }

  /**
   * Returns once {@code requests} more requests have had their outcome (at most {@code timeout}):
   * traffic that went on for a while after whatever the caller waited for.
   */
  public synchronized void awaitMore(int requests, Duration timeout) throws InterruptedException {
    int until = sent + requests;
    long deadline = System.nanoTime() + timeout.toNanos();
    while (sent < until) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new IllegalStateException(
            "the client sent "
                + (requests - (until - sent))
                + " of "
                + requests
                + " requests in "
                + timeout);
      }
      wait(Math.max(1, left / 1_000_000));
    }
  }

  /** Stops after the request in flight; what was seen. */
  public Result stop() {
    running.set(false);
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (this) {
      return new Result(sent, Map.copyOf(answers), List.copyOf(failures));
    }
  }

  @Override
  public void close() {
    stop();
  }
}
