package dev.sart.testbed.cluster;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * The kubelet stand-ins' node heartbeats: each node's Lease in {@code kube-node-lease} renewed
 * every 10 s, as a kubelet does, so that a real cluster's node lifecycle controller keeps the
 * stand-in nodes Ready (without it they turn NotReady after ~40 s and their pods are evicted).
 */
final class NodeHeartbeats implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(NodeHeartbeats.class.getName());

  private final KubernetesClient client;
  private final List<ClusterNode> nodes;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().daemon().name("node-heartbeats").unstarted(r));

  NodeHeartbeats(KubernetesClient client, List<ClusterNode> nodes) {
    this.client = client;
    this.nodes = List.copyOf(nodes);
    timer.scheduleWithFixedDelay(this::beat, 0, 10, TimeUnit.SECONDS);
  }

  private void beat() {
    for (ClusterNode n : nodes) {
      try {
        ZonedDateTime now = ZonedDateTime.now();
        Lease lease =
            new LeaseBuilder()
                .withNewMetadata()
                .withNamespace("kube-node-lease")
                .withName(n.name())
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity(n.name())
                .withLeaseDurationSeconds(40)
                .withRenewTime(now)
                .endSpec()
                .build();
        client
            .resource(lease)
            .createOr(io.fabric8.kubernetes.client.dsl.NonDeletingOperation::update);
      } catch (RuntimeException e) {
        LOG.fine("heartbeat of " + n.name() + ": " + e.getMessage());
      }
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
