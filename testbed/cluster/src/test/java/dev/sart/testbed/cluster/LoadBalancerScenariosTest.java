package dev.sart.testbed.cluster;

import static dev.sart.testbed.cluster.Scenarios.awaitAddress;
import static dev.sart.testbed.cluster.Scenarios.awaitNextHops;
import static dev.sart.testbed.cluster.Scenarios.awaitPodsReady;
import static dev.sart.testbed.cluster.Scenarios.requests;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.testbed.Frr;
import dev.sart.testbed.SessionState;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * sart's load-balancer scenarios (reference sart.md §8.1, "Kubernetes LB") on the cluster on one
 * machine, with traffic as the oracle: the client behind the ToRs reaches the Service address that
 * sart allocated and announced, and its pods answer. The scenarios build on each other (as sart's
 * ordered Ginkgo contexts do) and share one cluster.
 *
 * <p>Runs unchanged against a real API server: {@code SART_E2E_KUBECONFIG=~/.kube/config}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LoadBalancerScenariosTest {
  static final String NS = "default";

  @RegisterExtension static final SharedCluster SHARED = new SharedCluster();

  static Cluster cluster;
  static KubernetesClient client;

  @BeforeAll
  static void up() {
    cluster = SHARED.start("LoadBalancerScenariosTest", Cluster.Options.defaults());
    client = cluster.client();
  }

  @AfterAll
  static void down() {
    SHARED.close();
  }

  @Test
  @Order(1)
  void bgpClusterBgpSelectsTheNodesAndTheirSessionsComeUpOnBothTors() {
    SHARED.begin();
    Manifests.apply(client, Scenarios.CLUSTER_BGP);
    Scenarios.awaitPeersEstablished(cluster);
    for (Frr tor : cluster.tors()) {
      for (ClusterNode n : cluster.nodes()) {
        String addr = tor == cluster.tors().get(0) ? n.internalIp() : n.addressB();
        assertEquals(SessionState.ESTABLISHED, tor.sessionState(addr), tor + " ↔ " + n);
      }
    }
    SHARED.end("ClusterBGP → sessions Established");
  }

  @Test
  @Order(2)
  void loadBalancerClusterTheClientReachesTheServiceAndPodsOnSeveralNodesAnswer() {
    SHARED.begin();
    Manifests.apply(client, Scenarios.LB_POOL + "---\n" + Scenarios.POD_POOL);
    Map<String, String> app = Map.of("app", "app-cluster");
    for (ClusterNode n : cluster.nodes()) {
      client.resource(Manifests.pod(NS, "app-cluster-" + n.name(), n.name(), app, 0)).create();
    }
    client
        .resource(Manifests.loadBalancer(NS, "app-svc-cluster", app, "Cluster", Map.of()))
        .create();
    awaitPodsReady(cluster, NS, app, cluster.nodes().size());
    String vip = awaitAddress(cluster, NS, "app-svc-cluster");
    assertTrue(vip.startsWith("198.51.100."), vip + " is not from the pool 198.51.100.0/24");

    awaitNextHops(cluster, vip + "/32", cluster.nodes());

    Map<String, Integer> answers = requests(cluster, vip, 80, 40);
    assertEquals(40, answers.values().stream().mapToInt(Integer::intValue).sum(), "" + answers);
    Set<String> pods =
        cluster.nodes().stream()
            .map(n -> "app-cluster-" + n.name())
            .collect(Collectors.toCollection(TreeSet::new));
    assertTrue(pods.containsAll(answers.keySet()), "answers from unknown pods: " + answers);
    assertTrue(answers.size() >= 2, "answers from one pod only: " + answers);
    SHARED.end("LoadBalancer Cluster: address, ECMP on both ToRs, traffic from several pods");
  }

  @Test
  @Order(3)
  void externalTrafficPolicyLocalTheNextHopsAreTheNodesWithReadyEndpointsAndFollowAMovedPod() {
    SHARED.begin();
    Map<String, String> app = Map.of("app", "app-local");
    ClusterNode n1 = cluster.nodes().get(0);
    ClusterNode n2 = cluster.nodes().get(1);
    ClusterNode n3 = cluster.nodes().get(2);
    client.resource(Manifests.pod(NS, "app-local-1", n1.name(), app, 0)).create();
    client.resource(Manifests.pod(NS, "app-local-2", n2.name(), app, 0)).create();
    client.resource(Manifests.loadBalancer(NS, "app-svc-local", app, "Local", Map.of())).create();
    awaitPodsReady(cluster, NS, app, 2);
    String vip = awaitAddress(cluster, NS, "app-svc-local");
    awaitNextHops(cluster, vip + "/32", List.of(n1, n2));
    Map<String, Integer> answers = requests(cluster, vip, 80, 30);
    assertEquals(Set.of("app-local-1", "app-local-2"), answers.keySet(), "" + answers);

    // the pod on node2 moves to node3: the route follows
    client.resource(Manifests.pod(NS, "app-local-3", n3.name(), app, 0)).create();
    awaitPodsReady(cluster, NS, app, 3);
    awaitNextHops(cluster, vip + "/32", List.of(n1, n2, n3));
    client.pods().inNamespace(NS).withName("app-local-2").delete();
    awaitNextHops(cluster, vip + "/32", List.of(n1, n3));
    await("app-local-2 gone")
        .atMost(Duration.ofSeconds(60))
        .until(() -> client.pods().inNamespace(NS).withName("app-local-2").get() == null);
    answers = requests(cluster, vip, 80, 30);
    assertEquals(Set.of("app-local-1", "app-local-3"), answers.keySet(), "" + answers);
    SHARED.end("externalTrafficPolicy Local: next hops = nodes with endpoints, pod moved");
  }

  @Test
  @Order(4)
  void aTerminatingEndpointIsWithdrawnBeforeThePodIsGoneAndTrafficKeepsFlowing() throws Exception {
    SHARED.begin();
    Map<String, String> app = Map.of("app", "app-local");
    ClusterNode n1 = cluster.nodes().get(0);
    ClusterNode n3 = cluster.nodes().get(2);
    String vip = awaitAddress(cluster, NS, "app-svc-local");
    // app-local-3 drains for 6 s after its deletion (preStop sleep), as a real application would
    client.pods().inNamespace(NS).withName("app-local-3").delete();
    await("app-local-3 gone")
        .atMost(Duration.ofSeconds(60))
        .until(() -> client.pods().inNamespace(NS).withName("app-local-3").get() == null);
    client.resource(Manifests.pod(NS, "app-local-3", n3.name(), app, 6)).create();
    awaitPodsReady(cluster, NS, app, 2);
    awaitNextHops(cluster, vip + "/32", List.of(n1, n3));

    try (Traffic traffic = Traffic.start(cluster, vip, 80)) {
      client.pods().inNamespace(NS).withName("app-local-3").delete();
      awaitNextHops(cluster, vip + "/32", List.of(n1));
      assertTrue(
          client.pods().inNamespace(NS).withName("app-local-3").get() != null,
          "the route was withdrawn only after the terminating pod was gone");
      await("app-local-3 gone")
          .atMost(Duration.ofSeconds(60))
          .until(() -> client.pods().inNamespace(NS).withName("app-local-3").get() == null);
      Thread.sleep(500);
      Traffic.Result r = traffic.stop();
      System.err.println("traffic during the move: " + r);
      assertEquals(0, r.failed(), "requests lost while the endpoint moved: " + r);
      assertTrue(r.answers().keySet().contains("app-local-1"), "" + r);
    }
    SHARED.end("Local: terminating endpoint withdrawn before the pod is gone, no request lost");
  }

  @Test
  @Order(5)
  void aNodeLosesItsLinksTheTorsStopRoutingToItAndTrafficGoesToTheOthers() {
    SHARED.begin();
    Map<String, String> app = Map.of("app", "app-local");
    ClusterNode n1 = cluster.nodes().get(0);
    ClusterNode n2 = cluster.nodes().get(1);
    client.resource(Manifests.pod(NS, "app-local-2", n2.name(), app, 0)).create();
    awaitPodsReady(cluster, NS, app, 2);
    String vip = awaitAddress(cluster, NS, "app-svc-local");
    awaitNextHops(cluster, vip + "/32", List.of(n1, n2));

    long cut = System.nanoTime();
    cluster.uplinks(n2, false);
    // no BFD yet: the ToRs notice when the hold timer (9 s, from the BGPPeerTemplate) expires
    awaitNextHops(cluster, vip + "/32", List.of(n1));
    System.err.printf(
        "ToRs stopped routing to %s %.1f s after its links went down%n",
        n2, (System.nanoTime() - cut) / 1e9);
    assertEquals(Map.of("app-local-1", 20), requests(cluster, vip, 80, 20));

    cluster.uplinks(n2, true);
    awaitNextHops(cluster, vip + "/32", List.of(n1, n2));
    assertEquals(Set.of("app-local-1", "app-local-2"), requests(cluster, vip, 80, 30).keySet());
    SHARED.end("failure: a node loses its links, the ToRs route around it, it comes back");
  }

  @Test
  @Order(6)
  void restartSartdNodeTheAddressesStayAndTrafficRecovers() {
    SHARED.begin();
    Map<String, String> before = addresses();
    ClusterNode n1 = cluster.nodes().get(0);
    String vip = before.get("app-svc-cluster");
    long t = System.nanoTime();
    cluster.restartSartd(n1);
    // its sessions come back and it announces the Cluster Service's address again
    awaitNextHops(cluster, vip + "/32", cluster.nodes());
    System.err.printf(
        "sartd node restarted on %s: routes back on both ToRs %.1f s after the kill%n",
        n1, (System.nanoTime() - t) / 1e9);
    assertTrue(requests(cluster, vip, 80, 20).size() >= 2);
    assertEquals(before, addresses(), "Service addresses after the restart");
    SHARED.end("restart sartd node (speaker, FIB, agent): addresses kept, traffic recovers");
  }

  @Test
  @Order(7)
  void restartTheControllersTheAddressesStayAndANewServiceGetsAnotherOne() {
    SHARED.begin();
    Map<String, String> before = addresses();
    cluster.restartControllers();
    Map<String, String> app = Map.of("app", "app-cluster");
    client
        .resource(Manifests.loadBalancer(NS, "app-svc-cluster3", app, "Cluster", Map.of()))
        .create();
    String vip3 = awaitAddress(cluster, NS, "app-svc-cluster3");
    assertTrue(!before.containsValue(vip3), vip3 + " was already handed out: " + before);
    Map<String, String> after = addresses();
    after.remove("app-svc-cluster3");
    assertEquals(before, after, "Service addresses after the controllers' restart");
    awaitNextHops(cluster, vip3 + "/32", cluster.nodes());
    assertTrue(requests(cluster, vip3, 80, 20).size() >= 2);
    SHARED.end("restart the controllers: addresses kept, a new Service gets a new address");
  }

  /** Every LoadBalancer Service's addresses, by name. */
  static Map<String, String> addresses() {
    Map<String, String> out = new java.util.TreeMap<>();
    for (var s : client.services().inNamespace(NS).list().getItems()) {
      if (s.getStatus() != null
          && s.getStatus().getLoadBalancer() != null
          && s.getStatus().getLoadBalancer().getIngress() != null) {
        out.put(
            s.getMetadata().getName(),
            s.getStatus().getLoadBalancer().getIngress().stream()
                .map(i -> i.getIp())
                .collect(Collectors.joining(",")));
      }
    }
    return out;
  }
}
