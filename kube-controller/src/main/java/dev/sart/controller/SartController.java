package dev.sart.controller;

import dev.sart.controller.runtime.Metrics;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;

/**
 * {@code sartd controller}: reconciles only while it holds the Lease (so two replicas can run: one
 * leads, the other waits). Losing the Lease stops every reconciler; it then stands for election
 * again with fresh caches. Readiness: caches synced while leading, or standing by.
 */
public final class SartController implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(SartController.class.getName());

  private final KubernetesClient client;
  private final ControllerConfig config;
  private final Metrics metrics;
  private final AtomicReference<Reconcilers> term = new AtomicReference<>();
  private volatile CompletableFuture<?> election;
  private volatile boolean closed;

  public SartController(KubernetesClient client, ControllerConfig config, Metrics metrics) {
    this.client = client;
    this.config = config;
    this.metrics = metrics;
  }

  public void start() throws Exception {
    if (!config.leaderElection()) {
      lead();
      return;
    }
    elect();
  }

  private void elect() {
    if (closed) {
      return;
    }
    var elector =
        client
            .leaderElector()
            .withConfig(
                new LeaderElectionConfigBuilder()
                    .withName(config.leaseName())
                    .withLock(
                        new LeaseLock(
                            config.leaseNamespace(), config.leaseName(), config.identity()))
                    .withLeaseDuration(config.leaseDuration())
                    .withRenewDeadline(config.renewDeadline())
                    .withRetryPeriod(config.retryPeriod())
                    .withReleaseOnCancel(true)
                    .withLeaderCallbacks(
                        new LeaderCallbacks(
                            () -> {
                              try {
                                lead();
                              } catch (Exception e) {
                                LOG.severe(
                                    "leading failed identity=" + config.identity() + " error=" + e);
                              }
                            },
                            () -> {
                              LOG.info("leadership lost identity=" + config.identity());
                              stopLeading();
                              Thread.ofVirtual().start(this::elect);
                            },
                            leader -> LOG.info("leader identity=" + leader)))
                    .build())
            .build();
    election = elector.start();
  }

  private void lead() throws Exception {
    LOG.info("leading identity=" + config.identity() + " mode=" + config.mode());
    var reconcilers = new Reconcilers(client, config, metrics);
    var previous = term.getAndSet(reconcilers);
    if (previous != null) {
      previous.close();
    }
    reconcilers.start();
  }

  private void stopLeading() {
    var current = term.getAndSet(null);
    if (current != null) {
      current.close();
    }
  }

  /** Whether this replica reconciles now. */
  public boolean leading() {
    var current = term.get();
    return current != null && current.synced();
  }

  /** Ready: leading with synced caches, or a healthy stand-by. */
  public boolean ready() {
    return !closed && (term.get() == null || term.get().synced());
  }

  Reconcilers current() {
    return term.get();
  }

  public Metrics metrics() {
    return metrics;
  }

  @Override
  public void close() {
    closed = true;
    var e = election;
    if (e != null) {
      e.cancel(true);
    }
    stopLeading();
  }
}
