package dev.sart.controller.lb;

import static dev.sart.controller.MockCluster.ingress;
import static dev.sart.controller.MockCluster.pool;
import static dev.sart.crds.testing.KubeObjects.lbService;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.controller.MockCluster;
import dev.sart.controller.runtime.Events;
import dev.sart.controller.runtime.Informers;
import dev.sart.controller.runtime.Metrics;
import dev.sart.crds.Sart;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * sart's controller_service_watcher_test re-expressed, and what we add (classes, families, events,
 * restart).
 */
class ServiceReconcilerTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  private KubernetesMockServer server;
  private KubernetesClient client;
  private Controller controller;

  /** One controller instance: informers, events, the reconciler. */
  private static final class Controller implements AutoCloseable {
    final Informers informers;
    final Events events;
    final ServiceReconciler reconciler;

    Controller(KubernetesClient client) throws Exception {
      informers = new Informers(client);
      events = new Events(client);
      reconciler =
          new ServiceReconciler(informers, Sart.LOAD_BALANCER_CLASS, events, new Metrics());
      informers.start();
      reconciler.start();
    }

    @Override
    public void close() {
      reconciler.close();
      events.close();
      informers.close();
    }
  }

  @BeforeEach
  void setUp() throws Exception {
    server = MockCluster.server();
    client = server.createClient();
    pool(client, "default-lb-pool", "10.0.1.0/24", true);
    pool(client, "non-default-lb-pool", "10.0.100.0/24", false);
    controller = new Controller(client);
  }

  @AfterEach
  void tearDown() {
    controller.close();
    client.close();
    server.destroy();
  }

  private void awaitIngress(String name, List<String> expected) {
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(() -> assertEquals(expected, ingress(client, "test", name)));
  }

  @Test
  void allocatesFromTheAutoAssignPool() {
    create(lbService("test", "app-svc-cluster", Map.of()));
    awaitIngress("app-svc-cluster", List.of("10.0.1.1"));
    awaitEvent(
        e ->
            "IPAllocated".equals(e.getReason())
                && "app-svc-cluster".equals(e.getInvolvedObject().getName()));
  }

  private dev.sart.crds.AddressPoolStatus poolStatus(String name) {
    return client.resources(dev.sart.crds.AddressPool.class).withName(name).get().getStatus();
  }

  /** Waits for an Event in namespace test that matches. */
  private void awaitEvent(Predicate<Event> wanted) {
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(
            () ->
                client.v1().events().inNamespace("test").list().getItems().stream()
                    .anyMatch(wanted));
  }

  private void awaitInUse(String pool, long addresses) {
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(() -> assertEquals(addresses, poolStatus(pool).addressesInUse()));
  }

  @Test
  void poolStatusCountsTheAddressesServicesHold() {
    // /24 without network and broadcast: 254 addresses to hand out
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertEquals(
                    new dev.sart.crds.AddressPoolStatus("ipv4", "254", 0L, null, null),
                    poolStatus("default-lb-pool")));
    create(lbService("test", "a", Map.of()));
    create(lbService("test", "b", Map.of()));
    // two Services sharing one address count it once
    create(
        lbService(
            "test",
            "c",
            Map.of(
                Sart.ALLOW_SHARED_IP_ANNOTATION,
                "k",
                Sart.LOAD_BALANCER_IPS_ANNOTATION,
                "10.0.100.5")));
    create(
        lbService(
                "test",
                "d",
                Map.of(
                    Sart.ALLOW_SHARED_IP_ANNOTATION,
                    "k",
                    Sart.LOAD_BALANCER_IPS_ANNOTATION,
                    "10.0.100.5"))
            .editSpec()
            .editFirstPort()
            .withPort(443)
            .endPort()
            .endSpec());
    awaitIngress("d", List.of("10.0.100.5"));
    awaitInUse("default-lb-pool", 2);
    awaitInUse("non-default-lb-pool", 1);
    client.services().inNamespace("test").withName("a").delete();
    awaitInUse("default-lb-pool", 1);
    client.services().inNamespace("test").withName("c").delete();
    client.services().inNamespace("test").withName("d").delete();
    awaitInUse("non-default-lb-pool", 0);
  }

  @Test
  void localServicesShareAnAddressOnlyWhenTheySelectTheSamePods() {
    var shared = Map.of(Sart.ALLOW_SHARED_IP_ANNOTATION, "k");
    create(
        lbService("test", "tcp", shared)
            .editSpec()
            .withExternalTrafficPolicy("Local")
            .withSelector(Map.of("app", "dns"))
            .endSpec());
    awaitIngress("tcp", List.of("10.0.1.1"));
    create(
        lbService("test", "udp", shared)
            .editSpec()
            .withExternalTrafficPolicy("Local")
            .withSelector(Map.of("app", "dns"))
            .editFirstPort()
            .withProtocol("UDP")
            .endPort()
            .endSpec());
    create(
        lbService("test", "other", shared)
            .editSpec()
            .withExternalTrafficPolicy("Local")
            .withSelector(Map.of("app", "web"))
            .editFirstPort()
            .withPort(8443)
            .endPort()
            .endSpec());
    awaitIngress("udp", List.of("10.0.1.1"));
    awaitIngress("other", List.of("10.0.1.2"));
  }

  @Test
  void allocatesFromTheAnnotatedPoolAndTheRequestedAddress() {
    create(
        lbService(
            "test", "app-svc-local", Map.of(Sart.ADDRESS_POOL_ANNOTATION, "default-lb-pool")));
    create(
        lbService(
            "test",
            "app-svc-cluster2",
            Map.of(
                Sart.ADDRESS_POOL_ANNOTATION, "non-default-lb-pool",
                Sart.LOAD_BALANCER_IPS_ANNOTATION, "10.0.100.20")));
    awaitIngress("app-svc-local", List.of("10.0.1.1"));
    awaitIngress("app-svc-cluster2", List.of("10.0.100.20"));
  }

  @Test
  void specLoadBalancerIpAndMetallbAnnotationAreRequestsToo() {
    create(
        lbService("test", "by-spec", Map.of())
            .editSpec()
            .withLoadBalancerIP("10.0.100.7")
            .endSpec());
    create(
        lbService(
            "test", "by-metallb", Map.of(Sart.METALLB_LOAD_BALANCER_IPS_ANNOTATION, "10.0.1.99")));
    awaitIngress("by-spec", List.of("10.0.100.7"));
    awaitIngress("by-metallb", List.of("10.0.1.99"));
  }

  @Test
  void changingTheRequestedAddressOrThePoolReallocates() {
    create(lbService("test", "s", Map.of(Sart.LOAD_BALANCER_IPS_ANNOTATION, "10.0.100.20")));
    awaitIngress("s", List.of("10.0.100.20"));
    MockCluster.editService(
        client,
        "test",
        "s",
        s ->
            s.getMetadata().getAnnotations().put(Sart.LOAD_BALANCER_IPS_ANNOTATION, "10.0.100.21"));
    awaitIngress("s", List.of("10.0.100.21"));
    MockCluster.editService(
        client,
        "test",
        "s",
        s -> {
          s.getMetadata().getAnnotations().remove(Sart.LOAD_BALANCER_IPS_ANNOTATION);
          s.getMetadata()
              .getAnnotations()
              .put(Sart.ADDRESS_POOL_ANNOTATION, "default-lb-pool,non-default-lb-pool");
        });
    awaitIngress("s", List.of("10.0.1.1", "10.0.100.21"));
    var pool = controller.reconciler.allocatorForTests().pool("non-default-lb-pool").orElseThrow();
    await().ignoreExceptions().atMost(WAIT).until(() -> pool.inUse() == 1);
  }

  @Test
  void typeChangeAwayFromLoadBalancerReleasesAndDeletionFrees() {
    create(lbService("test", "s", Map.of()));
    awaitIngress("s", List.of("10.0.1.1"));
    MockCluster.editService(client, "test", "s", s -> s.getSpec().setType("ClusterIP"));
    awaitIngress("s", List.of());
    var pool = controller.reconciler.allocatorForTests().pool("default-lb-pool").orElseThrow();
    await().ignoreExceptions().atMost(WAIT).until(() -> pool.inUse() == 0);
    awaitEvent(e -> "IPReleased".equals(e.getReason()));

    create(lbService("test", "t", Map.of()));
    awaitIngress("t", List.of("10.0.1.2"));
    client.services().inNamespace("test").withName("t").delete();
    await().ignoreExceptions().atMost(WAIT).until(() -> pool.inUse() == 0);
    assertTrue(
        client
            .services()
            .inNamespace("test")
            .withName("s")
            .get()
            .getMetadata()
            .getFinalizers()
            .isEmpty(),
        "no finalizer on Services");
  }

  @Test
  void otherLoadBalancerClassesAreLeftAlone() {
    create(
        lbService("test", "theirs", Map.of())
            .editSpec()
            .withLoadBalancerClass("example.com/other")
            .endSpec());
    create(
        lbService("test", "ours", Map.of())
            .editSpec()
            .withLoadBalancerClass(Sart.LOAD_BALANCER_CLASS)
            .endSpec());
    awaitIngress("ours", List.of("10.0.1.1"));
    assertEquals(List.of(), ingress(client, "test", "theirs"));
  }

  @Test
  void aFailedAllocationIsAnEventAndIsRetriedWhenAPoolAppears() {
    create(lbService("test", "s", Map.of(Sart.ADDRESS_POOL_ANNOTATION, "later")));
    awaitEvent(e -> "AllocationFailed".equals(e.getReason()) && e.getMessage().contains("later"));
    pool(client, "later", "198.51.100.0/24", false);
    awaitIngress("s", List.of("198.51.100.1"));
  }

  @Test
  void dualStackGetsAnAddressOfEachFamily() {
    pool(client, "v6", "2001:db8:1::/120", true);
    create(
        lbService("test", "dual", Map.of())
            .editSpec()
            .withIpFamilies("IPv6", "IPv4")
            .withIpFamilyPolicy("RequireDualStack")
            .endSpec());
    awaitIngress("dual", List.of("2001:db8:1::1", "10.0.1.1"));
  }

  @Test
  void restartTakesStatusAsTheTruthAndNeverDuplicates() throws Exception {
    for (int i = 0; i < 20; i++) {
      create(lbService("test", "s" + i, Map.of()));
    }
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(
            () -> {
              for (int i = 0; i < 20; i++) {
                if (ingress(client, "test", "s" + i).isEmpty()) {
                  return false;
                }
              }
              return true;
            });
    // stop in the middle of a burst: some Services are created while no controller runs, others
    // right after restart
    for (int i = 20; i < 30; i++) {
      create(lbService("test", "s" + i, Map.of()));
    }
    controller.close();
    for (int i = 30; i < 40; i++) {
      create(lbService("test", "s" + i, Map.of()));
    }
    var freed = ingress(client, "test", "s3").getFirst();
    client.services().inNamespace("test").withName("s3").delete();
    controller = new Controller(client);
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(
            () -> {
              for (int i = 0; i < 40; i++) {
                if (i != 3 && ingress(client, "test", "s" + i).isEmpty()) {
                  return false;
                }
              }
              return true;
            });
    var seen = new HashSet<String>();
    for (int i = 0; i < 40; i++) {
      if (i != 3) {
        var addresses = ingress(client, "test", "s" + i);
        assertEquals(1, addresses.size());
        assertTrue(seen.add(addresses.getFirst()), "duplicate " + addresses);
      }
    }
    assertTrue(
        !seen.contains(freed),
        "the address s3 freed while the controller was down is not reused at once");
  }

  /**
   * Creates a Service; a 409 means an earlier attempt of the same POST got through (the client
   * retries a request that timed out on a loaded machine), so the Service exists as wanted.
   */
  private void create(ServiceBuilder s) {
    try {
      client.resource(s.build()).create();
    } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
    }
  }
}
