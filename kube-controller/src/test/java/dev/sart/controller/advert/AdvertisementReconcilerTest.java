package dev.sart.controller.advert;

import static dev.sart.controller.MockCluster.endpoint;
import static dev.sart.controller.MockCluster.ingress;
import static dev.sart.controller.MockCluster.lbService;
import static dev.sart.controller.MockCluster.peer;
import static dev.sart.controller.MockCluster.pool;
import static dev.sart.controller.MockCluster.slice;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.controller.MockCluster;
import dev.sart.controller.lb.ServiceReconciler;
import dev.sart.controller.runtime.Events;
import dev.sart.controller.runtime.Informers;
import dev.sart.controller.runtime.Metrics;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.Sart;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * sart's controller_endpointslice_watcher_test and controller_bgp_advertisement_test re-expressed.
 */
class AdvertisementReconcilerTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String NA = "NotAdvertised";

  private KubernetesMockServer server;
  private KubernetesClient client;
  private Informers informers;
  private Events events;
  private ServiceReconciler services;
  private AdvertisementReconciler adverts;
  private Metrics metrics;

  @BeforeEach
  void setUp() throws Exception {
    server = MockCluster.server();
    client = server.createClient();
    pool(client, "default-lb-pool", "10.0.1.0/24", true);
    pool(client, "other", "10.0.100.0/24", false);
    peer(client, "node1", "9.9.9.9", "to-router0");
    peer(client, "node2", "9.9.9.9", "to-router0");
    peer(client, "node3", "9.9.9.9", "to-router0");
    peer(client, "node3", "7.7.7.7", "to-router1");
    informers = new Informers(client);
    events = new Events(client);
    metrics = new Metrics();
    services = new ServiceReconciler(informers, Sart.LOAD_BALANCER_CLASS, events, metrics);
    adverts =
        new AdvertisementReconciler(
            informers, Sart.LOAD_BALANCER_CLASS, metrics, null, services.decisions());
    informers.start();
    services.start();
    adverts.start();
  }

  @AfterEach
  void tearDown() {
    adverts.close();
    services.close();
    events.close();
    informers.close();
    client.close();
    server.destroy();
  }

  private Map<String, String> peersOf(String name) {
    var advert = client.resources(BGPAdvertisement.class).inNamespace("test").withName(name).get();
    if (advert == null) {
      return null;
    }
    if (advert.getStatus() == null || advert.getStatus().peers() == null) {
      return Map.of();
    }
    return advert.getStatus().peers().entrySet().stream()
        .collect(
            Collectors.toMap(
                Map.Entry::getKey, e -> e.getValue().name(), (a, b) -> a, TreeMap::new));
  }

  private void awaitPeers(String advert, Map<String, String> expected) {
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(() -> assertEquals(expected, peersOf(advert)));
  }

  /**
   * Plays the agents: announces NotAdvertised entries, removes withdrawn ones (RFC 6902 JSON
   * Patch).
   */
  private void agents(String advert) {
    var current =
        client.resources(BGPAdvertisement.class).inNamespace("test").withName(advert).get();
    var ops = new java.util.ArrayList<String>();
    current
        .getStatus()
        .peers()
        .forEach(
            (peer, state) ->
                ops.add(
                    state == AdvertiseStatus.Withdraw
                        ? "{\"op\":\"remove\",\"path\":\"/status/peers/" + peer + "\"}"
                        : "{\"op\":\"replace\",\"path\":\"/status/peers/"
                            + peer
                            + "\",\"value\":\"Advertised\"}"));
    client
        .resources(BGPAdvertisement.class)
        .inNamespace("test")
        .withName(advert)
        .subresource("status")
        .patch(PatchContext.of(PatchType.JSON), "[" + String.join(",", ops) + "]");
  }

  private void createService(String name, String etp, Map<String, String> annotations) {
    client
        .resource(
            lbService("test", name, annotations)
                .editSpec()
                .withExternalTrafficPolicy(etp)
                .endSpec()
                .build())
        .create();
    await().ignoreExceptions().atMost(WAIT).until(() -> !ingress(client, "test", name).isEmpty());
  }

  @Test
  void clusterPolicyAnnouncesFromEveryPeerOnlyWhileAnEndpointIsReady() {
    createService("app-svc-cluster", "Cluster", Map.of());
    String advert = "app-svc-cluster-10-0-1-1";
    awaitPeers(advert, Map.of());
    var created =
        client.resources(BGPAdvertisement.class).inNamespace("test").withName(advert).get();
    assertEquals("10.0.1.1/32", created.getSpec().cidr());
    assertEquals(List.of(Sart.BGP_ADVERTISEMENT_FINALIZER), created.getMetadata().getFinalizers());

    client
        .resource(
            slice(
                "test",
                "app-svc-cluster",
                "app-svc-cluster-abc",
                List.of(endpoint("10.100.0.1", "node1", true, false))))
        .create();
    awaitPeers(
        advert,
        Map.of(
            "node1-65000-9.9.9.9",
            NA,
            "node2-65000-9.9.9.9",
            NA,
            "node3-65000-9.9.9.9",
            NA,
            "node3-65000-7.7.7.7",
            NA));
    agents(advert);
    awaitPeers(
        advert,
        Map.of(
            "node1-65000-9.9.9.9",
            "Advertised",
            "node2-65000-9.9.9.9",
            "Advertised",
            "node3-65000-9.9.9.9",
            "Advertised",
            "node3-65000-7.7.7.7",
            "Advertised"));

    // the only endpoint starts terminating: withdraw everywhere before the pod is gone
    client
        .resource(
            slice(
                "test",
                "app-svc-cluster",
                "app-svc-cluster-abc",
                List.of(endpoint("10.100.0.1", "node1", false, true))))
        .update();
    awaitPeers(
        advert,
        Map.of(
            "node1-65000-9.9.9.9",
            "Withdraw",
            "node2-65000-9.9.9.9",
            "Withdraw",
            "node3-65000-9.9.9.9",
            "Withdraw",
            "node3-65000-7.7.7.7",
            "Withdraw"));
    agents(advert);
    awaitPeers(advert, Map.of());
  }

  @Test
  void metricsCountPeersPerStateAndResetsToNotAdvertised() {
    createService("m", "Cluster", Map.of(Sart.PEER_GROUP_ANNOTATION, "to-router1"));
    String advert = "m-10-0-1-1";
    client
        .resource(slice("test", "m", "m-1", List.of(endpoint("10.100.0.1", "node1", true, false))))
        .create();
    awaitPeers(advert, Map.of("node3-65000-7.7.7.7", NA));
    agents(advert);
    awaitPeers(advert, Map.of("node3-65000-7.7.7.7", "Advertised"));
    var series = "{name=\"" + advert + "\",namespace=\"test\",status=\"";
    await()
        .atMost(WAIT)
        .until(
            () ->
                metrics
                    .scrape()
                    .contains(
                        "sart_controller_bgp_advertisement_status" + series + "Advertised\"} 1"));
    assertTrue(
        metrics
            .scrape()
            .contains("sart_controller_bgp_advertisement_status" + series + "NotAdvertised\"} 0"));

    // the agent's speaker restarted: it sets the entry back to NotAdvertised to announce again
    client
        .resources(BGPAdvertisement.class)
        .inNamespace("test")
        .withName(advert)
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.JSON),
            "[{\"op\":\"replace\",\"path\":\"/status/peers/node3-65000-7.7.7.7\",\"value\":\"NotAdvertised\"}]");
    await()
        .atMost(WAIT)
        .until(
            () ->
                metrics
                    .scrape()
                    .contains(
                        "sart_controller_bgp_advertisement_backoff_count{name=\""
                            + advert
                            + "\",namespace=\"test\"} 1"));
    assertTrue(
        metrics
            .scrape()
            .contains("sart_controller_bgp_advertisement_status" + series + "NotAdvertised\"} 1"));
  }

  @Test
  void localPolicyAnnouncesOnlyFromNodesWithAReadyEndpoint() {
    createService(
        "app-svc-local", "Local", Map.of(Sart.ADDRESS_POOL_ANNOTATION, "default-lb-pool"));
    String advert = "app-svc-local-10-0-1-1";
    client
        .resource(
            slice(
                "test",
                "app-svc-local",
                "app-svc-local-1",
                List.of(
                    endpoint("10.100.0.1", "node1", true, false),
                    endpoint("10.100.0.2", "node2", false, false))))
        .create();
    awaitPeers(advert, Map.of("node1-65000-9.9.9.9", NA));
    agents(advert);
    // the pod on node1 terminates, a new one on node3 is ready
    client
        .resource(
            slice(
                "test",
                "app-svc-local",
                "app-svc-local-1",
                List.of(
                    endpoint("10.100.0.1", "node1", false, true),
                    endpoint("10.100.0.3", "node3", true, false))))
        .update();
    awaitPeers(
        advert,
        Map.of(
            "node1-65000-9.9.9.9",
            "Withdraw",
            "node3-65000-9.9.9.9",
            NA,
            "node3-65000-7.7.7.7",
            NA));
  }

  @Test
  void peerGroupsSelectPeersAndPolicyChangesMoveTheTargets() {
    createService("grouped", "Cluster", Map.of(Sart.PEER_GROUP_ANNOTATION, "to-router1"));
    String advert = "grouped-10-0-1-1";
    client
        .resource(
            slice(
                "test",
                "grouped",
                "grouped-1",
                List.of(endpoint("10.100.0.1", "node1", true, false))))
        .create();
    awaitPeers(advert, Map.of("node3-65000-7.7.7.7", NA));
    client
        .services()
        .inNamespace("test")
        .withName("grouped")
        .edit(
            s -> {
              s.getMetadata().getAnnotations().remove(Sart.PEER_GROUP_ANNOTATION);
              s.getSpec().setExternalTrafficPolicy("Local");
              return s;
            });
    awaitPeers(advert, Map.of("node1-65000-9.9.9.9", NA, "node3-65000-7.7.7.7", "Withdraw"));
  }

  @Test
  void aNewAddressGetsANewAdvertisementAndTheOldOneIsWithdrawnBeforeItGoes() {
    createService("moving", "Cluster", Map.of());
    client
        .resource(
            slice(
                "test",
                "moving",
                "moving-1",
                List.of(endpoint("10.100.0.1", "node1", true, false))))
        .create();
    String old = "moving-10-0-1-1";
    awaitPeers(
        old,
        Map.of(
            "node1-65000-9.9.9.9",
            NA,
            "node2-65000-9.9.9.9",
            NA,
            "node3-65000-9.9.9.9",
            NA,
            "node3-65000-7.7.7.7",
            NA));
    agents(old);
    client
        .services()
        .inNamespace("test")
        .withName("moving")
        .edit(
            s -> {
              s.getMetadata().getAnnotations().put(Sart.ADDRESS_POOL_ANNOTATION, "other");
              return s;
            });
    String fresh = "moving-10-0-100-1";
    awaitPeers(
        fresh,
        Map.of(
            "node1-65000-9.9.9.9",
            NA,
            "node2-65000-9.9.9.9",
            NA,
            "node3-65000-9.9.9.9",
            NA,
            "node3-65000-7.7.7.7",
            NA));
    awaitPeers(
        old,
        Map.of(
            "node1-65000-9.9.9.9",
            "Withdraw",
            "node2-65000-9.9.9.9",
            "Withdraw",
            "node3-65000-9.9.9.9",
            "Withdraw",
            "node3-65000-7.7.7.7",
            "Withdraw"));
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(
            () ->
                client
                        .resources(BGPAdvertisement.class)
                        .inNamespace("test")
                        .withName(old)
                        .get()
                        .getMetadata()
                        .getDeletionTimestamp()
                    != null);
    agents(old);
    await().ignoreExceptions().atMost(WAIT).until(() -> peersOf(old) == null);

    // the Service goes: its advertisement waits for the agents too
    client.services().inNamespace("test").withName("moving").delete();
    awaitPeers(
        fresh,
        Map.of(
            "node1-65000-9.9.9.9",
            "Withdraw",
            "node2-65000-9.9.9.9",
            "Withdraw",
            "node3-65000-9.9.9.9",
            "Withdraw",
            "node3-65000-7.7.7.7",
            "Withdraw"));
    agents(fresh);
    await().ignoreExceptions().atMost(WAIT).until(() -> peersOf(fresh) == null);
  }

  @Test
  void aPeerAddedLaterBecomesATarget() {
    createService("late", "Cluster", Map.of(Sart.PEER_GROUP_ANNOTATION, "to-router2"));
    client
        .resource(
            slice("test", "late", "late-1", List.of(endpoint("10.100.0.1", "node1", true, false))))
        .create();
    String advert = "late-10-0-1-1";
    awaitPeers(advert, Map.of());
    peer(client, "node2", "6.6.6.6", "to-router2");
    awaitPeers(advert, Map.of("node2-65000-6.6.6.6", NA));
  }
}
