package dev.sart.controller;

import dev.sart.controller.runtime.Metrics;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
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

  /** How long a new term waits for its caches (the informers' first lists). */
  private volatile Duration syncTimeout = Duration.ofSeconds(60);

  /** Terms in a row that could not start: the back-off before standing again. */
  private final AtomicInteger failedTerms = new AtomicInteger();

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
    // the last election is over; giveUp must not take it for this one (set once start() returns)
    election = null;
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
                                failedTerms.set(0);
                              } catch (Exception e) {
                                giveUp(e);
                              }
                            },
                            () -> {
                              LOG.info("leadership lost identity=" + config.identity());
                              stopLeading();
                              Duration wait = backoff(failedTerms.get());
                              Thread.ofVirtual()
                                  .start(
                                      () -> {
                                        try {
                                          Thread.sleep(wait);
                                        } catch (InterruptedException ie) {
                                          return;
                                        }
                                        elect();
                                      });
                            },
                            leader -> LOG.info("leader identity=" + leader)))
                    .build())
            .build();
    election = elector.start();
    if (closed) {
      election.cancel(true); // closed meanwhile: close() may have found no election to cancel
    }
  }

  private void lead() throws Exception {
    LOG.info("leading identity=" + config.identity() + " mode=" + config.mode());
    var reconcilers = new Reconcilers(client, config, metrics);
    var previous = term.getAndSet(reconcilers);
    if (previous != null) {
      previous.close();
    }
    reconcilers.start(syncTimeout);
  }

  /**
   * The term could not start (its caches did not fill in time, a reconciler failed to start): a
   * leader that reconciles nothing must not keep the Lease, since /healthz stays 200 and nothing
   * would restart it or let another replica lead. The term is closed and the Lease released
   * (cancelling the election, which releases on cancel); losing it stands again after a back-off.
   */
  private void giveUp(Exception e) {
    int n = failedTerms.incrementAndGet();
    LOG.severe(
        "leading failed identity="
            + config.identity()
            + " error=\""
            + e
            + "\" failed-terms="
            + n
            + ": the Lease is given up, standing again in "
            + backoff(n).toMillis()
            + " ms");
    stopLeading();
    Thread.ofVirtual()
        .start(
            () -> {
              // the election future is set once start() returns, which may be after this callback
              for (int i = 0; i < 100 && election == null && !closed; i++) {
                try {
                  Thread.sleep(10);
                } catch (InterruptedException ie) {
                  return;
                }
              }
              var el = election;
              if (el != null) {
                el.cancel(true);
              }
            });
  }

  /** 0 after a term that started; 1, 2, 4, ... 30 s after failed ones. */
  static Duration backoff(int failed) {
    return failed == 0
        ? Duration.ZERO
        : Duration.ofSeconds(Math.min(30, 1L << Math.min(failed - 1, 5)));
  }

  /** Terms in a row that could not start (0 once one has). */
  int failedTerms() {
    return failedTerms.get();
  }

  /** For tests: how long a term waits for its caches (60 s). */
  SartController withSyncTimeout(Duration d) {
    syncTimeout = d;
    return this;
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
