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
 * and the requests that got none.
 */
public final class Traffic implements AutoCloseable {
  /**
   * What the client saw; {@code failedAt}: when each failed request was sent, ms after the start;
   * {@code failures}: what each failed request got (in the same order).
   */
  public record Result(
      int sent,
      int failed,
      Map<String, Integer> answers,
      List<Long> failedAt,
      List<Http.Answer> failures) {}

  private final Thread thread;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final Map<String, Integer> answers = new TreeMap<>();
  private int sent;
  private int failed;
  private final List<Long> failedAt = new ArrayList<>();
  private final List<Http.Answer> failures = new ArrayList<>();
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
                        failed++;
                        failedAt.add(at);
                        failures.add(answer);
                      }
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

  /** Stops after the request in flight; what was seen. */
  public Result stop() {
    running.set(false);
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (this) {
      return new Result(
          sent, failed, Map.copyOf(answers), List.copyOf(failedAt), List.copyOf(failures));
    }
  }

  @Override
  public void close() {
    stop();
  }
}
