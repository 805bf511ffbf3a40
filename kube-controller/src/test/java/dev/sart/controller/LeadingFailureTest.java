package dev.sart.controller;

import static dev.sart.controller.MockCluster.ingress;
import static dev.sart.controller.MockCluster.pool;
import static dev.sart.crds.testing.KubeObjects.lbService;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.controller.runtime.Metrics;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A replica that wins the Lease but cannot start its term (here: its caches cannot fill in time,
 * the lists of Services failing for 4 s) must not keep the Lease while reconciling nothing:
 * /healthz stays 200, so nothing would restart it and no other replica could lead. It gives the
 * Lease up and stands again after a back-off (it stayed the leader of nothing before).
 */
class LeadingFailureTest {
  private KubernetesMockServer server;
  private KubernetesClient client;
  private KubernetesClient failing;
  private SartController replica;

  @AfterEach
  void tearDown() {
    if (replica != null) {
      replica.close();
    }
    if (failing != null) {
      failing.close();
    }
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.destroy();
    }
  }

  /**
   * Sends the lists of Services (not watches) to a port where nothing listens until {@code
   * untilNanos}, counting them in {@code failed}.
   */
  private static Interceptor failServiceLists(long untilNanos, AtomicInteger failed) {
    return new Interceptor() {
      @Override
      public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
        URI u = request.uri();
        if (request.method().equals("GET")
            && u.getPath().endsWith("/services")
            && (u.getQuery() == null || !u.getQuery().contains("watch"))
            && System.nanoTime() < untilNanos) {
          failed.incrementAndGet();
          // where nothing listens: the list fails as against an API server out of reach (the
          // mock answers any path of its own with a list)
          builder.uri(URI.create("https://127.0.0.1:1" + u.getRawPath()));
        }
      }
    };
  }

  @Test
  void aTermThatCannotStartGivesTheLeaseUpAndLeadsOnceItCan() throws Exception {
    server = MockCluster.server();
    client = server.createClient();
    pool(client, "default-lb-pool", "10.0.1.0/24", true);
    AtomicInteger failed = new AtomicInteger();
    failing =
        new KubernetesClientBuilder()
            .withConfig(client.getConfiguration())
            .withHttpClientBuilderConsumer(
                b ->
                    b.addOrReplaceInterceptor(
                        "fail-service-lists",
                        failServiceLists(System.nanoTime() + 4_000_000_000L, failed)))
            .build();
    var config =
        ControllerConfig.defaults("replica-a")
            .withLease(Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ofMillis(300));
    // its caches must fill within 1 s: the first terms cannot
    replica =
        new SartController(failing, config, new Metrics()).withSyncTimeout(Duration.ofSeconds(1));
    replica.start();
    await("a term that could not start")
        .atMost(Duration.ofSeconds(10))
        .until(() -> replica.failedTerms() >= 1);

    client.resource(lbService("test", "web", Map.of()).build()).create();
    await("the replica leads after its failed terms")
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(replica::leading);
    assertTrue(failed.get() >= 1, "the lists failed first: " + failed.get());
    await("the Service's address")
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> !ingress(client, "test", "web").isEmpty());
  }
}
