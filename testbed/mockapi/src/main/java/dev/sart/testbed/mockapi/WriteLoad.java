package dev.sart.testbed.mockapi;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A writer that never stops, for tests of the API server itself: it rewrites 20 ConfigMaps of a
 * namespace in turn (each write a watch event for whoever watches them) and times every answer. A
 * server that stalls shows as a writer that stops being answered.
 */
public final class WriteLoad implements AutoCloseable {
  private final AtomicLong slowest = new AtomicLong();
  private final AtomicInteger written = new AtomicInteger();
  private final Thread writer;

  private WriteLoad(KubernetesClient client, String namespace) {
    writer = Thread.ofVirtual().name("write-load").start(() -> run(client, namespace));
  }

  /** Starts writing with {@code client} (whose first request, its start-up, is not timed). */
  public static WriteLoad start(KubernetesClient client, String namespace) {
    client.resource(map(namespace, 0)).createOr(NonDeletingOperation::update);
    return new WriteLoad(client, namespace);
  }

  private void run(KubernetesClient client, String namespace) {
    for (int i = 1; !Thread.currentThread().isInterrupted(); i++) {
      long t0 = System.nanoTime();
      client.resource(map(namespace, i)).createOr(NonDeletingOperation::update);
      slowest.accumulateAndGet(System.nanoTime() - t0, Math::max);
      written.incrementAndGet();
    }
  }

  private static ConfigMap map(String namespace, int i) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName("load-" + i % 20)
        .endMetadata()
        .withData(Map.of("i", Integer.toString(i)))
        .build();
  }

  /** Waits until the server has answered {@code n} more writes, failing after {@code within}. */
  public void awaitAnswers(String alias, int n, Duration within) {
    int before = written.get();
    await(alias).atMost(within).until(() -> written.get() >= before + n);
  }

  /** The slowest answer so far. */
  public Duration slowest() {
    return Duration.ofNanos(slowest.get());
  }

  /** Stops writing (waits for the request under way). */
  @Override
  public void close() {
    writer.interrupt();
    try {
      writer.join(Duration.ofSeconds(40));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
