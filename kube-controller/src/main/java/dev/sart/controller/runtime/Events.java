package dev.sart.controller.runtime;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.logging.Logger;

/**
 * Posts core/v1 Events about objects, off the reconciler's thread (an Event never delays a
 * reconcile).
 */
public final class Events implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(Events.class.getName());
  public static final String COMPONENT = "sart-controller";

  private final KubernetesClient client;
  private final java.util.concurrent.atomic.AtomicInteger pending =
      new java.util.concurrent.atomic.AtomicInteger();
  private final ExecutorService sender =
      Executors.newSingleThreadExecutor(Thread.ofVirtual().name("sart-events").factory());

  public Events(KubernetesClient client) {
    this.client = client;
  }

  public void normal(HasMetadata object, String reason, String message) {
    post(object, "Normal", reason, message);
  }

  public void warning(HasMetadata object, String reason, String message) {
    post(object, "Warning", reason, message);
  }

  private void post(HasMetadata object, String type, String reason, String message) {
    var meta = object.getMetadata();
    String namespace = meta.getNamespace() == null ? "default" : meta.getNamespace();
    String now = Instant.now().toString();
    var event =
        new EventBuilder()
            .withNewMetadata()
            .withName(meta.getName() + "." + UUID.randomUUID().toString().substring(0, 8))
            .withNamespace(namespace)
            .endMetadata()
            .withInvolvedObject(
                new ObjectReferenceBuilder()
                    .withApiVersion(object.getApiVersion())
                    .withKind(object.getKind())
                    .withName(meta.getName())
                    .withNamespace(meta.getNamespace())
                    .withUid(meta.getUid())
                    .withResourceVersion(meta.getResourceVersion())
                    .build())
            .withType(type)
            .withReason(reason)
            .withMessage(message)
            .withFirstTimestamp(now)
            .withLastTimestamp(now)
            .withCount(1)
            .withNewSource()
            .withComponent(COMPONENT)
            .endSource()
            .withReportingComponent(COMPONENT)
            .build();
    LOG.fine(
        () ->
            "event kind="
                + object.getKind()
                + " name="
                + meta.getName()
                + " reason="
                + reason
                + " message="
                + message);
    try {
      pending.incrementAndGet();
      sender.execute(
          () -> {
            try {
              client.v1().events().inNamespace(namespace).resource(event).create();
            } catch (RuntimeException e) {
              LOG.fine("event not posted: " + e);
            } finally {
              pending.decrementAndGet();
            }
          });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      pending.decrementAndGet();
      LOG.fine("event dropped while shutting down: " + reason);
    }
  }

  /** Events not yet posted (for the benchmark). */
  public int pending() {
    return pending.get();
  }

  @Override
  public void close() {
    sender.shutdown();
  }
}
