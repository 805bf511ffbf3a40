package dev.sart.testbed.cluster;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;

/**
 * Stand-in for the API server's ClusterIP allocator (not sart's): a real API server gives every
 * Service that is not headless a {@code spec.clusterIP} when it stores it; fabric8's mock server
 * gives none. This one gives a Service of {@code type: ClusterIP} (the default type) with no {@code
 * spec.clusterIP} the lowest free address of {@link #RANGE}, a documentation range no other part of
 * the cluster uses; against a real API server it never finds such a Service and writes nothing.
 * LoadBalancer Services are left alone (the load-balancer scenarios and the benchmark reach them by
 * their LoadBalancer address, and an extra spec write would wake every reconciler that a real API
 * server does not).
 */
final class ClusterIpStandIn implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(ClusterIpStandIn.class.getName());

  /** 203.0.113.64/27: .65 to .94 (the pods' pool is .128/25, the client .100, links .0/29). */
  static final String RANGE = "203.0.113.64/27";

  private static final String PREFIX = "203.0.113.";
  private static final int FIRST = 65;
  private static final int LAST = 94;

  private final KubernetesClient client;
  private final SharedIndexInformer<Service> services;
  private final ExecutorService worker =
      Executors.newSingleThreadExecutor(
          r -> Thread.ofPlatform().daemon().name("clusterip-stand-in").unstarted(r));
  private final AtomicBoolean dirty = new AtomicBoolean();
  private boolean exhaustedSaid;

  ClusterIpStandIn(KubernetesClient client, SharedIndexInformer<Service> services) {
    this.client = client;
    this.services = services;
  }

  void changed() {
    if (dirty.compareAndSet(false, true)) {
      worker.execute(
          () -> {
            dirty.set(false);
            allocate();
          });
    }
  }

  private static boolean wants(Service s) {
    var spec = s.getSpec();
    if (spec == null || s.getMetadata().getDeletionTimestamp() != null) {
      return false;
    }
    String type = spec.getType() == null ? "ClusterIP" : spec.getType();
    return type.equals("ClusterIP")
        && (spec.getClusterIP() == null || spec.getClusterIP().isEmpty());
  }

  private void allocate() {
    Set<String> used = new HashSet<>();
    for (Service s : services.getStore().list()) {
      if (s.getSpec() != null && s.getSpec().getClusterIP() != null) {
        used.add(s.getSpec().getClusterIP());
      }
    }
    for (Service s : services.getStore().list()) {
      if (!wants(s)) {
        continue;
      }
      String ip = null;
      for (int i = FIRST; i <= LAST && ip == null; i++) {
        if (!used.contains(PREFIX + i)) {
          ip = PREFIX + i;
        }
      }
      if (ip == null) {
        if (!exhaustedSaid) {
          LOG.warning("clusterip stand-in: " + RANGE + " is used up; Services wait");
          exhaustedSaid = true;
        }
        return;
      }
      String chosen = ip;
      try {
        client
            .services()
            .inNamespace(s.getMetadata().getNamespace())
            .withName(s.getMetadata().getName())
            .edit(
                x -> {
                  if (wants(x)) {
                    x.getSpec().setClusterIP(chosen);
                    x.getSpec().setClusterIPs(List.of(chosen));
                  }
                  return x;
                });
        used.add(chosen);
        LOG.info(
            "clusterip stand-in: service="
                + s.getMetadata().getNamespace()
                + "/"
                + s.getMetadata().getName()
                + " clusterIP="
                + chosen);
      } catch (KubernetesClientException e) {
        LOG.info("clusterip stand-in: " + s.getMetadata().getName() + ": " + e.getMessage());
      }
    }
  }

  @Override
  public void close() {
    worker.shutdownNow();
  }
}
