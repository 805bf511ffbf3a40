package dev.sart.e2e;

import static dev.sart.crds.testing.KubeObjects.endpoint;
import static dev.sart.crds.testing.KubeObjects.lbService;
import static dev.sart.crds.testing.KubeObjects.slice;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.agent.bgp.BgpAgent;
import dev.sart.controller.advert.AdvertisementReconciler;
import dev.sart.controller.lb.ServiceReconciler;
import dev.sart.controller.runtime.Events;
import dev.sart.controller.runtime.Informers;
import dev.sart.controller.runtime.Metrics;
import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressPoolSpec;
import dev.sart.crds.AddressType;
import dev.sart.crds.Sart;
import dev.sart.crds.testing.ControllerObjects;
import dev.sart.testbed.Frr;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import dev.sart.testbed.mockapi.MockApi;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Path attributes per advertisement, from the user's objects to FRR's table: the controller's
 * Service and BGPAdvertisement reconcilers and the node agent in the test JVM against fabric8's
 * mock API server, a real {@code sartd bgp} process in a namespace, FRR as an internal (iBGP) peer,
 * so that LOCAL_PREF reaches it (RFC 4271 §5.1.5: never sent to external peers; the speaker's side
 * of that is {@code SartdAttributesTest}). The oracle is {@code vtysh ... json}.
 */
class AdvertisementAttrsE2eTest {
  private static final String NODE = "worker1";
  private static final Duration WAIT = Duration.ofSeconds(60);

  @RegisterExtension final Testbed testbed = new Testbed();

  private KubernetesMockServer server;
  private KubernetesClient client;
  private Informers informers;
  private Events events;
  private ServiceReconciler services;
  private AdvertisementReconciler adverts;
  private BgpAgent agent;
  private NamespaceRelay relay;

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : new AutoCloseable[] {agent, adverts, services, events, informers}) {
      if (c != null) {
        c.close();
      }
    }
    if (relay != null) {
      relay.close();
    }
    if (client != null) {
      client.close();
      server.destroy();
    }
  }

  @Test
  void poolAndServiceAttributesReachFrr() throws Exception {
    Topology t = testbed.topology();
    Node s = t.node("sart");
    Node f = t.node("frr");
    t.link(s, f).addresses("192.0.2.2/30", "192.0.2.1/30");
    SartdNode.start(s);
    Frr frr =
        new Frr(f, RouterConfig.of(65001, "192.0.2.1").neighbor(Neighbor.of("192.0.2.2", 65001)));
    frr.start();
    relay = NamespaceRelay.into(s, 5000);
    startCluster();

    client
        .resource(
            new AddressPool(
                "tagged",
                new AddressPoolSpec("203.0.113.0/24", AddressType.SERVICE, null, true)
                    .withAttrs(List.of("65001:100", "large:65001:1:2"), 300L, null)))
        .create();
    service("plain", Map.of());
    frr.awaitRoute("203.0.113.1/32");
    await("the pool's attributes on FRR")
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              JsonNode p = path(frr, "203.0.113.1/32");
              assertEquals("65001:100", p.path("community").path("string").asText(), p::toString);
              assertEquals("65001:1:2", p.path("largeCommunity").path("string").asText());
              assertEquals(300, p.path("locPrf").asLong(), p::toString);
            });

    service(
        "annotated",
        Map.of(
            Sart.COMMUNITIES_ANNOTATION, "65001:7",
            Sart.LOCAL_PREF_ANNOTATION, "50",
            Sart.MED_ANNOTATION, "5"));
    frr.awaitRoute("203.0.113.2/32");
    await("the Service's annotations on top of the pool's")
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              JsonNode p = path(frr, "203.0.113.2/32");
              assertEquals(
                  "65001:7 65001:100", p.path("community").path("string").asText(), p::toString);
              assertEquals(50, p.path("locPrf").asLong(), p::toString);
              assertEquals(5, p.path("metric").asLong(), p::toString);
            });

    // the annotation changes: the route is announced again with the new attributes
    client
        .services()
        .inNamespace("test")
        .withName("annotated")
        .edit(
            svc -> {
              svc.getMetadata().getAnnotations().put(Sart.LOCAL_PREF_ANNOTATION, "400");
              svc.getMetadata().getAnnotations().remove(Sart.MED_ANNOTATION);
              return svc;
            });
    await("a changed annotation reaches FRR")
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              JsonNode p = path(frr, "203.0.113.2/32");
              assertEquals(400, p.path("locPrf").asLong(), p::toString);
              assertEquals(-1, p.path("metric").asLong(-1), p::toString);
            });
  }

  /** FRR's one path for a prefix. */
  private static JsonNode path(Frr frr, String prefix) throws Exception {
    JsonNode paths =
        new ObjectMapper()
            .readTree(frr.vtysh("show bgp ipv4 unicast " + prefix + " json"))
            .path("paths");
    assertEquals(1, paths.size(), paths::toString);
    return paths.get(0);
  }

  /** The mock API server with sart's CRDs, the controller's reconcilers and the node's agent. */
  private void startCluster() throws Exception {
    server = MockApi.withSartCrds();
    client = server.createClient();
    client
        .resource(ControllerObjects.nodeBgp(NODE, 65001, "192.0.2.2", "127.0.0.1:" + relay.port()))
        .create();
    client
        .resource(
            ControllerObjects.peer(
                NODE,
                65001,
                "192.0.2.1",
                null,
                null,
                Map.of("bgppeer.sart.terassyi.net/connect-retry-time", "1")))
        .create();

    informers = new Informers(client);
    events = new Events(client);
    Metrics metrics = new Metrics();
    services = new ServiceReconciler(informers, Sart.LOAD_BALANCER_CLASS, events, metrics);
    adverts =
        new AdvertisementReconciler(informers, Sart.LOAD_BALANCER_CLASS, metrics, events, null);
    informers.start();
    services.start();
    adverts.start();
    agent = new BgpAgent(client, NODE, Duration.ofSeconds(30)).start();
  }

  /** A LoadBalancer Service with one ready endpoint on the node (as kube's controllers would). */
  private void service(String name, Map<String, String> annotations) {
    client.resource(lbService("test", name, annotations).build()).create();
    client
        .resource(
            slice("test", name, name + "-1", List.of(endpoint("198.51.100.10", NODE, true, false))))
        .create();
  }
}
