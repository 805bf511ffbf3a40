package dev.sart.controller.lb;

import static dev.sart.controller.MockCluster.ingress;
import static dev.sart.controller.MockCluster.pool;
import static dev.sart.crds.testing.KubeObjects.endpoint;
import static dev.sart.crds.testing.KubeObjects.lbService;
import static dev.sart.crds.testing.KubeObjects.slice;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sart.controller.MockCluster;
import dev.sart.controller.runtime.Events;
import dev.sart.controller.runtime.Informers;
import dev.sart.controller.runtime.Metrics;
import dev.sart.crds.Sart;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * sart's {@code service.sart.terassyi.net/etp} and {@code /allocation} on the EndpointSlices of a
 * LoadBalancer Service, as a tool reading them sees them.
 */
class EndpointSliceAnnotationsTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  private KubernetesMockServer server;
  private KubernetesClient client;
  private Informers informers;
  private Events events;
  private ServiceReconciler services;
  private EndpointSliceAnnotations annotations;

  @BeforeEach
  void setUp() throws Exception {
    server = MockCluster.server();
    client = server.createClient();
    pool(client, "lb", "198.51.100.0/24", true);
    informers = new Informers(client);
    events = new Events(client);
    var metrics = new Metrics();
    services = new ServiceReconciler(informers, Sart.LOAD_BALANCER_CLASS, events, metrics);
    annotations = new EndpointSliceAnnotations(informers, Sart.LOAD_BALANCER_CLASS, metrics);
    informers.start();
    services.start();
    annotations.start();
  }

  @AfterEach
  void tearDown() {
    annotations.close();
    services.close();
    events.close();
    informers.close();
    client.close();
    server.destroy();
  }

  private Map<String, String> sartAnnotations(String slice) {
    var s = client.discovery().v1().endpointSlices().inNamespace("test").withName(slice).get();
    var out = new HashMap<String, String>();
    var a = s.getMetadata().getAnnotations();
    if (a != null) {
      a.forEach(
          (k, v) -> {
            if (k.startsWith("service.sart.terassyi.net/") || k.equals("other")) {
              out.put(k, v);
            }
          });
    }
    return out;
  }

  @Test
  void theSlicesOfALoadBalancerCarryItsPolicyAndAddresses() {
    client.resource(lbService("test", "web", Map.of()).build()).create();
    var existing =
        slice("test", "web", "web-1", List.of(endpoint("203.0.113.5", "n1", true, false)));
    existing.getMetadata().setAnnotations(Map.of("other", "kept"));
    client.resource(existing).create();
    await().ignoreExceptions().atMost(WAIT).until(() -> !ingress(client, "test", "web").isEmpty());
    String address = ingress(client, "test", "web").getFirst();
    await()
        .atMost(WAIT)
        .ignoreExceptions()
        .untilAsserted(
            () ->
                assertEquals(
                    Map.of(
                        "other",
                        "kept",
                        Sart.SERVICE_ETP_ANNOTATION,
                        "Cluster",
                        Sart.SERVICE_ALLOCATION_ANNOTATION,
                        address),
                    sartAnnotations("web-1")));

    // a slice made later (a new endpoint, another slice) gets them too
    client
        .resource(
            slice("test", "web", "web-2", List.of(endpoint("203.0.113.6", "n2", true, false))))
        .create();
    await()
        .atMost(WAIT)
        .ignoreExceptions()
        .untilAsserted(
            () ->
                assertEquals(
                    Map.of(
                        Sart.SERVICE_ETP_ANNOTATION,
                        "Cluster",
                        Sart.SERVICE_ALLOCATION_ANNOTATION,
                        address),
                    sartAnnotations("web-2")));

    // externalTrafficPolicy changes
    MockCluster.editService(
        client, "test", "web", s -> s.getSpec().setExternalTrafficPolicy("Local"));
    await()
        .atMost(WAIT)
        .ignoreExceptions()
        .until(() -> "Local".equals(sartAnnotations("web-1").get(Sart.SERVICE_ETP_ANNOTATION)));

    // no longer a LoadBalancer: its address is released and the annotations go (other ones stay)
    MockCluster.editService(
        client,
        "test",
        "web",
        s -> {
          s.getSpec().setType("ClusterIP");
          s.getSpec().setExternalTrafficPolicy(null);
        });
    await()
        .atMost(WAIT)
        .ignoreExceptions()
        .untilAsserted(() -> assertEquals(Map.of("other", "kept"), sartAnnotations("web-1")));
    await()
        .atMost(WAIT)
        .ignoreExceptions()
        .untilAsserted(() -> assertEquals(Map.of(), sartAnnotations("web-2")));
  }

  @Test
  void aServiceOfAnotherClassIsLeftAlone() {
    client
        .resource(
            lbService("test", "foreign", Map.of())
                .editSpec()
                .withLoadBalancerClass("example.com/other")
                .endSpec()
                .build())
        .create();
    client
        .resource(
            slice(
                "test",
                "foreign",
                "foreign-1",
                List.of(endpoint("203.0.113.7", "n1", true, false))))
        .create();
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(() -> assertEquals(Map.of(), sartAnnotations("foreign-1")));
  }
}
