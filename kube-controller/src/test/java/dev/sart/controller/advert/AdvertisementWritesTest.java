package dev.sart.controller.advert;

import static dev.sart.controller.MockCluster.ingress;
import static dev.sart.controller.MockCluster.peer;
import static dev.sart.controller.MockCluster.pool;
import static dev.sart.crds.testing.KubeObjects.endpoint;
import static dev.sart.crds.testing.KubeObjects.lbService;
import static dev.sart.crds.testing.KubeObjects.slice;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.sart.controller.MockCluster;
import dev.sart.controller.lb.Decisions;
import dev.sart.controller.lb.ServiceReconciler;
import dev.sart.controller.runtime.Events;
import dev.sart.controller.runtime.Informers;
import dev.sart.controller.runtime.Metrics;
import dev.sart.crds.AddressType;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPAdvertisementSpec;
import dev.sart.crds.BGPAdvertisementStatus;
import dev.sart.crds.Protocol;
import dev.sart.crds.Sart;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How the advertisements are written: from the Service reconciler's decision without waiting for
 * the Service's status, off the reconciler's thread, and under optimistic concurrency with the
 * agents (an agent's concurrent write is never overwritten from a stale copy).
 */
class AdvertisementWritesTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String NA = "NotAdvertised";

  private KubernetesMockServer server;
  private KubernetesClient client;
  private Informers informers;
  private Metrics metrics;

  @BeforeEach
  void setUp() {
    server = MockCluster.server();
    client = server.createClient();
    peer(client, "node1", "9.9.9.9");
    peer(client, "node2", "9.9.9.9");
    informers = new Informers(client);
    metrics = new Metrics();
  }

  @AfterEach
  void tearDown() {
    informers.close();
    client.close();
    server.destroy();
  }

  private void awaitPeers(String advert, Map<String, String> expected) {
    ReconcilersOnMock.awaitPeers(client, advert, expected, WAIT);
  }

  @Test
  void theAdvertisementIsMadeFromTheDecisionBeforeTheServiceStatusSaysIt() throws Exception {
    var decisions = new Decisions();
    try (var adverts =
        new AdvertisementReconciler(
            informers, Sart.LOAD_BALANCER_CLASS, metrics, null, decisions)) {
      informers.start();
      adverts.start();
      client.resource(lbService("test", "fast", Map.of()).build()).create();
      client
          .resource(
              slice(
                  "test", "fast", "fast-1", List.of(endpoint("10.100.0.1", "node1", true, false))))
          .create();
      // the Service reconciler has decided; its status PATCH has not been sent (nor ever will be)
      decisions.put("test/fast", List.of(InetAddress.getByName("10.0.1.7")));
      awaitPeers("fast-10-0-1-7", Map.of("node1-65000-9.9.9.9", NA, "node2-65000-9.9.9.9", NA));
      assertEquals(List.of(), ingress(client, "test", "fast"));

      // the decision is taken back and the status says nothing: the advertisement is withdrawn
      decisions.remove("test/fast");
      awaitPeers(
          "fast-10-0-1-7",
          Map.of("node1-65000-9.9.9.9", "Withdraw", "node2-65000-9.9.9.9", "Withdraw"));
    }
  }

  @Test
  void aPeerMapIsDecidedAgainOnTheObjectAnAgentWroteMeanwhile() throws Exception {
    var advert =
        new BGPAdvertisement(
            "test",
            "x-10-0-1-1",
            new BGPAdvertisementSpec("10.0.1.1/32", AddressType.SERVICE, Protocol.IPV4, null));
    var created = client.resource(advert).create();
    var stale =
        client
            .resource(created)
            .subresource("status")
            .patch(
                PatchContext.of(PatchType.JSON),
                "[{\"op\":\"add\",\"path\":\"/status\",\"value\":{\"peers\":{\"a\":\"NotAdvertised\"}}}]");
    // the agent announces to a meanwhile (the controller's copy still says NotAdvertised)
    client
        .resources(BGPAdvertisement.class)
        .inNamespace("test")
        .withName("x-10-0-1-1")
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.JSON),
            "[{\"op\":\"replace\",\"path\":\"/status/peers/a\",\"value\":\"Advertised\"}]");
    try (var writer = new AdvertisementWriter(client, (service, delay) -> {})) {
      writer.setPeers("test/x", stale, p -> PeerMaps.next(p, Set.of("a", "b")));
      // a write from the stale copy would have set a back to NotAdvertised
      awaitPeers("x-10-0-1-1", Map.of("a", "Advertised", "b", NA));
    }
  }

  /** An advertisement x-10-0-1-1 whose status went {a: first} (returned), then {a: second}. */
  private BGPAdvertisement[] twoVersions(String first, String second) {
    var advert =
        new BGPAdvertisement(
            "test",
            "x-10-0-1-1",
            new BGPAdvertisementSpec("10.0.1.1/32", AddressType.SERVICE, Protocol.IPV4, null));
    var created = client.resource(advert).create();
    var older =
        client
            .resource(created)
            .subresource("status")
            .patch(PatchContext.of(PatchType.JSON), statusOf(first));
    var newer =
        client
            .resource(older)
            .subresource("status")
            .patch(PatchContext.of(PatchType.JSON), statusOf(second));
    return new BGPAdvertisement[] {older, newer};
  }

  private static String statusOf(String a) {
    return "[{\"op\":\"add\",\"path\":\"/status\",\"value\":{\"peers\":{\"a\":\"" + a + "\"}}}]";
  }

  @Test
  void aWriteThatFindsNothingLeftToChangeDoesNotHoldTheAdvertisement() {
    // the controller's copy says a is Advertised; the server already says Withdraw (an earlier
    // write), and the informer has delivered that version
    var v = twoVersions("Advertised", "Withdraw");
    var retries = new CopyOnWriteArrayList<Duration>();
    try (var writer = new AdvertisementWriter(client, (service, delay) -> retries.add(delay))) {
      writer.seen(v[0], false);
      writer.seen(v[1], false);
      writer.setPeers("test/x", v[0], p -> PeerMaps.next(p, Set.of()));
      await().atMost(WAIT).until(() -> !writer.busy("test/x-10-0-1-1") && !retries.isEmpty());
      // 409 Conflict, read back: nothing left to write. The reconciler looks again at once, on its
      // cache (which has that version); it used to wait 10 s for an event already delivered,
      // leaving the Service's next change (an endpoint not ready) unwritten meanwhile
      assertEquals(List.of(Duration.ZERO), retries);
      assertSame(v[1], writer.newest("test/x-10-0-1-1", v[1]));
      assertEquals(
          v[1].getMetadata().getResourceVersion(),
          client
              .resources(BGPAdvertisement.class)
              .inNamespace("test")
              .withName("x-10-0-1-1")
              .get()
              .getMetadata()
              .getResourceVersion());
    }
  }

  @Test
  void untilTheInformerDeliversAWriteTheReconcilerWorksOnTheServersAnswer() {
    var v = twoVersions(NA, "Advertised");
    var retries = new CopyOnWriteArrayList<Duration>();
    try (var writer = new AdvertisementWriter(client, (service, delay) -> retries.add(delay))) {
      writer.seen(v[1], false);
      writer.setPeers("test/x", v[1], p -> PeerMaps.next(p, Set.of()));
      await().atMost(WAIT).until(() -> !writer.busy("test/x-10-0-1-1") && !retries.isEmpty());
      // not delivered yet: the answer (a: Withdraw), not the cached copy, and no waiting for it
      assertEquals(List.of(Duration.ZERO), retries);
      var answer = writer.newest("test/x-10-0-1-1", v[1]);
      assertEquals(Map.of("a", AdvertiseStatus.Withdraw), answer.getStatus().peers());
      // delivered: the cache is as new
      var delivered =
          client.resources(BGPAdvertisement.class).inNamespace("test").withName("x-10-0-1-1").get();
      writer.seen(delivered, false);
      assertSame(delivered, writer.newest("test/x-10-0-1-1", delivered));
    }
  }

  @Test
  void aBurstOfServicesGetsEveryAdvertisementWithAgentsWritingMeanwhile() throws Exception {
    pool(client, "default-lb-pool", "10.0.0.0/24", true);
    var events = new Events(client);
    var services = new ServiceReconciler(informers, Sart.LOAD_BALANCER_CLASS, events, metrics);
    var agentsRunning = new AtomicBoolean(true);
    try (var adverts =
        new AdvertisementReconciler(
            informers, Sart.LOAD_BALANCER_CLASS, metrics, events, services.decisions())) {
      informers.start();
      services.start();
      adverts.start();
      int n = 100;
      var pool = Executors.newFixedThreadPool(8);
      for (int i = 0; i < n; i++) {
        var name = "b" + i;
        pool.execute(
            () -> {
              client.resource(lbService("test", name, Map.of()).build()).create();
              client
                  .resource(
                      slice(
                          "test",
                          name,
                          name + "-1",
                          List.of(endpoint("10.100.0.1", "node1", true, false))))
                  .create();
            });
      }
      // both agents announce whatever is NotAdvertised, as fast as they can, with the agent's
      // per-entry merge (fabric8's editStatus: a GET, then a JSON patch of the difference)
      var agents = Executors.newFixedThreadPool(2);
      for (var peerName : List.of("node1-65000-9.9.9.9", "node2-65000-9.9.9.9")) {
        agents.execute(
            () -> {
              while (agentsRunning.get()) {
                for (var a :
                    client
                        .resources(BGPAdvertisement.class)
                        .inNamespace("test")
                        .list()
                        .getItems()) {
                  if (a.getStatus() == null
                      || a.getStatus().peers() == null
                      || a.getStatus().peers().get(peerName) != AdvertiseStatus.NotAdvertised) {
                    continue;
                  }
                  try {
                    client
                        .resources(BGPAdvertisement.class)
                        .inNamespace("test")
                        .withName(a.getMetadata().getName())
                        .editStatus(
                            cur -> {
                              var peers = new TreeMap<>(cur.getStatus().peers());
                              if (peers.get(peerName) == AdvertiseStatus.NotAdvertised) {
                                peers.put(peerName, AdvertiseStatus.Advertised);
                              }
                              cur.setStatus(new BGPAdvertisementStatus(peers));
                              return cur;
                            });
                  } catch (RuntimeException e) {
                    // raced with the controller: the next round sees the object again
                  }
                }
              }
            });
      }
      pool.shutdown();
      pool.awaitTermination(1, TimeUnit.MINUTES);
      await()
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofMillis(500))
          .untilAsserted(
              () -> {
                var all = client.resources(BGPAdvertisement.class).inNamespace("test").list();
                assertEquals(n, all.getItems().size());
                for (var a : all.getItems()) {
                  assertEquals(
                      Map.of(
                          "node1-65000-9.9.9.9", AdvertiseStatus.Advertised,
                          "node2-65000-9.9.9.9", AdvertiseStatus.Advertised),
                      a.getStatus() == null ? null : a.getStatus().peers(),
                      a.getMetadata().getName());
                }
              });
      agentsRunning.set(false);
      agents.shutdown();
      agents.awaitTermination(1, TimeUnit.MINUTES);
      // one address per Service, no address twice
      var addresses = new HashSet<String>();
      for (int i = 0; i < n; i++) {
        var ips = ingress(client, "test", "b" + i);
        assertEquals(1, ips.size(), "b" + i);
        addresses.add(ips.getFirst());
      }
      assertEquals(n, addresses.size());
    } finally {
      agentsRunning.set(false);
      services.close();
      events.close();
    }
  }
}
