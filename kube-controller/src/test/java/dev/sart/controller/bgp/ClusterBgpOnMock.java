package dev.sart.controller.bgp;

import dev.sart.controller.MockCluster;
import dev.sart.controller.runtime.Events;
import dev.sart.controller.runtime.Informers;
import dev.sart.controller.runtime.Metrics;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.util.function.Consumer;

/** The ClusterBGP reconciler running against fabric8's mock API server. */
final class ClusterBgpOnMock implements AutoCloseable {
  final KubernetesMockServer server;
  final KubernetesClient client;
  private final Informers informers;
  private final Events events;
  private final ClusterBgpReconciler reconciler;

  /** Creates what {@code seed} makes (nodes, templates) before the informers start. */
  ClusterBgpOnMock(Consumer<KubernetesClient> seed) throws Exception {
    server = MockCluster.server();
    client = server.createClient();
    seed.accept(client);
    informers = new Informers(client);
    events = new Events(client);
    reconciler = new ClusterBgpReconciler(informers, events, new Metrics());
    informers.start();
    reconciler.start();
  }

  @Override
  public void close() {
    reconciler.close();
    events.close();
    informers.close();
    client.close();
    server.destroy();
  }
}
