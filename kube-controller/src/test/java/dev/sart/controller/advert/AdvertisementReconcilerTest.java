package dev.sart.controller.advert;

import static dev.sart.controller.MockCluster.ingress;
import static dev.sart.controller.MockCluster.peer;
import static dev.sart.controller.MockCluster.pool;
import static dev.sart.crds.testing.KubeObjects.endpoint;
import static dev.sart.crds.testing.KubeObjects.lbService;
import static dev.sart.crds.testing.KubeObjects.slice;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.controller.MockCluster;
import dev.sart.controller.runtime.Metrics;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.Sart;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * sart's controller_endpointslice_watcher_test and controller_bgp_advertisement_test re-expressed.
 */
class AdvertisementReconcilerTest {
  private static final Duration WAIT = ReconcilersOnMock.WAIT;
  private static final String NA = ReconcilersOnMock.NA;

  private ReconcilersOnMock cluster;
  private KubernetesClient client;
  private Metrics metrics;

  @BeforeEach
  void setUp() throws Exception {
    cluster = new ReconcilersOnMock(false, AdvertisementReconcilerTest::seed);
    client = cluster.client;
    metrics = cluster.metrics;
  }

  /** Two pools; one peer on node1 and node2, two on node3. */
  private static void seed(KubernetesClient c) {
    pool(c, "default-lb-pool", "10.0.1.0/24", true);
    pool(c, "other", "10.0.100.0/24", false);
    peer(c, "node1", "9.9.9.9", "to-router0");
    peer(c, "node2", "9.9.9.9", "to-router0");
    peer(c, "node3", "9.9.9.9", "to-router0");
    peer(c, "node3", "7.7.7.7", "to-router1");
  }

  @AfterEach
  void tearDown() {
    cluster.close();
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
    cluster.awaitPeers(advert, Map.of());
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
    cluster.awaitPeers(
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
    cluster.playAgents(advert);
    cluster.awaitPeers(
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
    cluster.awaitPeers(
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
    cluster.playAgents(advert);
    cluster.awaitPeers(advert, Map.of());
  }

  @Test
  void metricsCountPeersPerStateAndResetsToNotAdvertised() {
    createService("m", "Cluster", Map.of(Sart.PEER_GROUP_ANNOTATION, "to-router1"));
    String advert = "m-10-0-1-1";
    client
        .resource(slice("test", "m", "m-1", List.of(endpoint("10.100.0.1", "node1", true, false))))
        .create();
    cluster.awaitPeers(advert, Map.of("node3-65000-7.7.7.7", NA));
    cluster.playAgents(advert);
    cluster.awaitPeers(advert, Map.of("node3-65000-7.7.7.7", "Advertised"));
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
    cluster.awaitPeers(advert, Map.of("node1-65000-9.9.9.9", NA));
    cluster.playAgents(advert);
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
    cluster.awaitPeers(
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
    cluster.awaitPeers(advert, Map.of("node3-65000-7.7.7.7", NA));
    MockCluster.editService(
        client,
        "test",
        "grouped",
        s -> {
          s.getMetadata().getAnnotations().remove(Sart.PEER_GROUP_ANNOTATION);
          s.getSpec().setExternalTrafficPolicy("Local");
        });
    cluster.awaitPeers(
        advert, Map.of("node1-65000-9.9.9.9", NA, "node3-65000-7.7.7.7", "Withdraw"));
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
    cluster.awaitPeers(
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
    cluster.playAgents(old);
    MockCluster.editService(
        client,
        "test",
        "moving",
        s -> s.getMetadata().getAnnotations().put(Sart.ADDRESS_POOL_ANNOTATION, "other"));
    String fresh = "moving-10-0-100-1";
    cluster.awaitPeers(
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
    cluster.awaitPeers(
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
    cluster.playAgents(old);
    await().ignoreExceptions().atMost(WAIT).until(() -> !cluster.exists(old));

    // the Service goes: its advertisement waits for the agents too
    client.services().inNamespace("test").withName("moving").delete();
    cluster.awaitPeers(
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
    cluster.playAgents(fresh);
    await().ignoreExceptions().atMost(WAIT).until(() -> !cluster.exists(fresh));
  }

  /** A node as its kubelet registers it, with or without the exclusion label. */
  private void node(String name, boolean excluded) {
    var labels = new java.util.HashMap<String, String>();
    labels.put("kubernetes.io/hostname", name);
    if (excluded) {
      labels.put(Sart.EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS_LABEL, "");
    }
    var node =
        new io.fabric8.kubernetes.api.model.NodeBuilder()
            .withNewMetadata()
            .withName(name)
            .withLabels(labels)
            .endMetadata()
            .build();
    if (client.nodes().withName(name).get() == null) {
      client.resource(node).create();
    } else {
      client
          .nodes()
          .withName(name)
          .edit(
              n -> {
                n.getMetadata().setLabels(labels);
                return n;
              });
    }
  }

  /**
   * The peer map of an advertisement by node: the state of node1's, node2's and both of node3's
   * peers (null: no entry).
   */
  private static Map<String, String> byNode(String node1, String node2, String node3) {
    var m = new java.util.HashMap<String, String>();
    if (node1 != null) {
      m.put("node1-65000-9.9.9.9", node1);
    }
    if (node2 != null) {
      m.put("node2-65000-9.9.9.9", node2);
    }
    if (node3 != null) {
      m.put("node3-65000-9.9.9.9", node3);
      m.put("node3-65000-7.7.7.7", node3);
    }
    return m;
  }

  /**
   * A Cluster Service with a ready endpoint on {@code node}, announced to every peer; its advert.
   */
  private String clusterServiceWithAnEndpointOn(String node) {
    createService("app-svc-cluster", "Cluster", Map.of());
    client
        .resource(
            slice(
                "test",
                "app-svc-cluster",
                "app-svc-cluster-abc",
                List.of(endpoint("10.100.0.1", node, true, false))))
        .create();
    String advert = "app-svc-cluster-10-0-1-1";
    cluster.awaitPeers(advert, byNode(NA, NA, NA));
    return advert;
  }

  /**
   * Kubernetes' {@code node.kubernetes.io/exclude-from-external-load-balancers} (a node being
   * drained, say): its peers withdraw every Service address — under Cluster the others keep it, its
   * endpoints still count — and announce again once the label is gone.
   */
  @Test
  void aNodeExcludedFromExternalLoadBalancersWithdrawsAndComesBack() {
    node("node1", false);
    node("node3", false);
    String advert = clusterServiceWithAnEndpointOn("node3");
    cluster.playAgents(advert);

    node("node3", true);
    cluster.awaitPeers(advert, byNode("Advertised", "Advertised", "Withdraw"));
    cluster.playAgents(advert);
    cluster.awaitPeers(advert, byNode("Advertised", "Advertised", null));

    node("node3", false);
    cluster.awaitPeers(advert, byNode("Advertised", "Advertised", NA));
  }

  private void cordon(String name, boolean on) {
    client
        .nodes()
        .withName(name)
        .edit(
            n -> {
              n.setSpec(new io.fabric8.kubernetes.api.model.NodeSpec());
              n.getSpec().setUnschedulable(on ? Boolean.TRUE : null);
              return n;
            });
  }

  /**
   * A cordoned node ({@code kubectl cordon}, {@code drain}) keeps announcing by default; with
   * {@code --withdraw-from-cordoned-nodes} its peers withdraw, and announce again when it is
   * uncordoned.
   */
  @Test
  void aCordonedNodeWithdrawsOnlyWhenTheControllerIsToldTo() throws Exception {
    node("node1", false);
    node("node3", false);
    String advert = clusterServiceWithAnEndpointOn("node1");
    cordon("node3", true);
    // a later change that is acted on: by then node3's cordon has been seen and left alone
    node("node1", true);
    cluster.awaitPeers(advert, byNode("Withdraw", NA, NA));
    cluster.close();

    cluster = new ReconcilersOnMock(false, true, AdvertisementReconcilerTest::seed);
    client = cluster.client;
    node("node3", false);
    clusterServiceWithAnEndpointOn("node1");
    cluster.playAgents(advert);
    cordon("node3", true);
    cluster.awaitPeers(advert, byNode("Advertised", "Advertised", "Withdraw"));
    cluster.playAgents(advert);
    cordon("node3", false);
    cluster.awaitPeers(advert, byNode("Advertised", "Advertised", NA));
  }

  /** Under Local, an excluded node's endpoints have no announcement at all. */
  @Test
  void underLocalTheEndpointsOfAnExcludedNodeAreNotAnnounced() {
    node("node1", true);
    createService("app-svc-local", "Local", Map.of());
    String advert = "app-svc-local-10-0-1-1";
    client
        .resource(
            slice(
                "test",
                "app-svc-local",
                "app-svc-local-1",
                List.of(
                    endpoint("10.100.0.1", "node1", true, false),
                    endpoint("10.100.0.2", "node2", true, false))))
        .create();
    cluster.awaitPeers(advert, Map.of("node2-65000-9.9.9.9", NA));
    cluster.playAgents(advert);
    node("node1", false);
    cluster.awaitPeers(
        advert, Map.of("node1-65000-9.9.9.9", NA, "node2-65000-9.9.9.9", "Advertised"));
  }

  @Test
  void aPeerAddedLaterBecomesATarget() {
    createService("late", "Cluster", Map.of(Sart.PEER_GROUP_ANNOTATION, "to-router2"));
    client
        .resource(
            slice("test", "late", "late-1", List.of(endpoint("10.100.0.1", "node1", true, false))))
        .create();
    String advert = "late-10-0-1-1";
    cluster.awaitPeers(advert, Map.of());
    peer(client, "node2", "6.6.6.6", "to-router2");
    cluster.awaitPeers(advert, Map.of("node2-65000-6.6.6.6", NA));
  }
}
