package dev.sart.controller.runtime;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One informer per kind, shared by every reconciler that watches it: handlers are added before
 * {@link #start()}, and {@link #start()} returns once every cache holds the full list.
 */
public final class Informers implements AutoCloseable {
  private final KubernetesClient client;
  private final Map<Class<?>, SharedIndexInformer<?>> informers = new LinkedHashMap<>();

  public Informers(KubernetesClient client) {
    this.client = client;
  }

  public KubernetesClient client() {
    return client;
  }

  @SuppressWarnings("unchecked")
  public synchronized <T extends HasMetadata> SharedIndexInformer<T> of(Class<T> type) {
    return (SharedIndexInformer<T>)
        informers.computeIfAbsent(
            type,
            t -> {
              MixedOperation<T, ? extends KubernetesResourceList<T>, Resource<T>> op =
                  client.resources(type);
              return op.inAnyNamespace().runnableInformer(0);
            });
  }

  /**
   * Calls {@code onChange} with each added, updated (when the resource version changed) or deleted
   * object.
   */
  public <T extends HasMetadata> void watch(Class<T> type, Consumer<T> onChange) {
    of(type)
        .addEventHandler(
            new ResourceEventHandler<>() {
              @Override
              public void onAdd(T obj) {
                onChange.accept(obj);
              }

              @Override
              public void onUpdate(T old, T now) {
                if (old == null
                    || !java.util.Objects.equals(
                        old.getMetadata().getResourceVersion(),
                        now.getMetadata().getResourceVersion())) {
                  onChange.accept(now);
                }
              }

              @Override
              public void onDelete(T obj, boolean deletedFinalStateUnknown) {
                onChange.accept(obj);
              }
            });
  }

  /** The cached object {@code namespace/name} (or {@code name} for cluster-scoped kinds). */
  public <T extends HasMetadata> T get(Class<T> type, String key) {
    return of(type).getStore().getByKey(key);
  }

  public <T extends HasMetadata> List<T> list(Class<T> type) {
    return of(type).getStore().list();
  }

  /** Starts every informer and waits until all have synced. */
  public void start() throws Exception {
    start(java.time.Duration.ofSeconds(60));
  }

  /** Starts every informer and waits at most {@code timeout} for their first lists. */
  public void start(java.time.Duration timeout) throws Exception {
    var started = new ArrayList<CompletableFuture<Void>>();
    synchronized (this) {
      for (var informer : informers.values()) {
        started.add(informer.start().toCompletableFuture());
      }
    }
    CompletableFuture.allOf(started.toArray(CompletableFuture[]::new))
        .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public synchronized void close() {
    informers.values().forEach(SharedIndexInformer::close);
  }
}
