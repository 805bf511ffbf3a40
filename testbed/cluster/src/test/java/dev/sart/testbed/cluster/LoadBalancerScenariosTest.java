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
}
