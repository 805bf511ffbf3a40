package dev.sart.controller.egress;

import static org.awaitility.Awaitility.await;

import dev.sart.controller.MockCluster;
import dev.sart.controller.runtime.Events;
import dev.sart.controller.runtime.Informers;
import dev.sart.controller.runtime.Metrics;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;

/**
 * The egress tests' set-up: fabric8's mock API server in CRUD mode and the egress reconciler
 * started over it, with the image {@code registry.example/sart:1}. A test creates what must exist
 * before the reconciler starts through {@link #client}, then calls {@link #start}.
 */
final class EgressBed implements AutoCloseable {
  static final Duration WAIT = Duration.ofSeconds(20);
  static final String NS = "internet-egress";

  private final KubernetesMockServer server = MockCluster.server();
  final KubernetesClient client = server.createClient();
  private Informers informers;
  private Events events;
  private EgressReconciler egresses;

  /** Starts the informers and the reconciler. */
  EgressBed start() throws Exception {
    informers = new Informers(client);
    events = new Events(client);
    egresses = new EgressReconciler(informers, events, new Metrics(), "registry.example/sart:1");
    informers.start();
    egresses.start();
    return this;
  }

  /** The Deployment the reconciler made for the Egress {@code name} of {@link #NS}, once made. */
  Deployment deployment(String name) {
    await()
        .atMost(WAIT)
        .until(() -> client.apps().deployments().inNamespace(NS).withName(name).get() != null);
    return client.apps().deployments().inNamespace(NS).withName(name).get();
  }

  /** The Service the reconciler made for the Egress {@code name} of {@link #NS}, once made. */
  Service service(String name) {
    await()
        .atMost(WAIT)
        .until(() -> client.services().inNamespace(NS).withName(name).get() != null);
    return client.services().inNamespace(NS).withName(name).get();
  }

  /**
   * Stops the reconciler and its informers, as a controller that goes away; {@link #start} again.
   */
  void stop() {
    if (egresses != null) {
      egresses.close();
      events.close();
      informers.close();
      egresses = null;
    }
  }

  @Override
  public void close() {
    stop();
    client.close();
    server.destroy();
  }
}
