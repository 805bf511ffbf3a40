package dev.sart.controller;

import dev.sart.controller.advert.AdvertisementReconciler;
import dev.sart.controller.bgp.ClusterBgpReconciler;
import dev.sart.controller.egress.EgressReconciler;
import dev.sart.controller.ipam.PoolReconciler;
import dev.sart.controller.lb.EndpointSliceAnnotations;
import dev.sart.controller.lb.ServiceReconciler;
import dev.sart.controller.runtime.Events;
import dev.sart.controller.runtime.Informers;
import dev.sart.controller.runtime.Metrics;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;

/**
 * One leadership term: the informers and the reconcilers of the mode, started together, closed
 * together.
 */
final class Reconcilers implements AutoCloseable {
  private final Informers informers;
  private final Events events;
  private final List<AutoCloseable> running = new ArrayList<>();
  private final ServiceReconciler services;
  private volatile boolean synced;

  Reconcilers(KubernetesClient client, ControllerConfig config, Metrics metrics) {
    informers = new Informers(client);
    events = new Events(client);
    var bgp = new ClusterBgpReconciler(informers, events, metrics);
    running.add(bgp);
    services =
        config.mode().lb()
            ? new ServiceReconciler(informers, config.loadBalancerClass(), events, metrics)
            : null;
    var adverts =
        config.mode().lb()
            ? new AdvertisementReconciler(
                    informers, config.loadBalancerClass(), metrics, events, services.decisions())
                .withdrawFromCordoned(config.withdrawFromCordoned())
            : null;
    // pools also serve service pools (their AddressBlock, deletion guard), so they run in every
    // mode
    var pools = new PoolReconciler(informers, events, metrics);
    running.add(pools);
    // egress gateways are neither lb nor cni: every mode
    running.add(new EgressReconciler(informers, events, metrics));
    if (services != null) {
      running.add(services);
      running.add(adverts);
      // sart's service.sart.terassyi.net/etp and /allocation on EndpointSlices
      running.add(new EndpointSliceAnnotations(informers, config.loadBalancerClass(), metrics));
    }
  }

  /**
   * Fills the caches, then starts every reconciler (the Service reconciler restores allocations
   * first).
   */
  void start(java.time.Duration syncTimeout) throws Exception {
    informers.start(syncTimeout);
    synced = true;
    for (var r : running) {
      switch (r) {
        case ClusterBgpReconciler c -> c.start();
        case PoolReconciler p -> p.start();
        case ServiceReconciler s -> s.start();
        case AdvertisementReconciler a -> a.start();
        case EgressReconciler e -> e.start();
        case EndpointSliceAnnotations x -> x.start();
        default -> throw new IllegalStateException(r.toString());
      }
    }
  }

  boolean synced() {
    return synced;
  }

  ServiceReconciler services() {
    return services;
  }

  @Override
  public void close() {
    for (var r : running.reversed()) {
      try {
        r.close();
      } catch (Exception e) {
        // closing
      }
    }
    events.close();
    informers.close();
  }
}
