package dev.sart.testbed.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.crds.BGPPeer;
import dev.sart.crds.BGPPeerCondition;
import dev.sart.testbed.Frr;
import dev.sart.testbed.SessionState;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
  static final String LB_POOL = "198.51.100.0/24";

  @RegisterExtension static final Fixture FIXTURE = new Fixture();

  static final class Fixture implements org.junit.jupiter.api.extension.TestWatcher {
    ClusterFixture f;

    @Override
    public void testFailed(
        org.junit.jupiter.api.extension.ExtensionContext context, Throwable cause) {
      f.testFailed(context, cause);
    }
  }

  static Cluster cluster;
  static KubernetesClient client;

  @BeforeAll
  static void up() {
    FIXTURE.f = new ClusterFixture("LoadBalancerScenariosTest", Cluster.Options.defaults());
    cluster = FIXTURE.f.cluster;
    client = cluster.client();
  }

  @AfterAll
  static void down() {
    if (FIXTURE.f != null) {
      FIXTURE.f.close();
    }
  }

  private static long t0;

  private static void begin() {
    t0 = System.nanoTime();
  }

  private static void end(String scenario) {
    System.err.printf("scenario %s: %.1f s%n", scenario, (System.nanoTime() - t0) / 1e9);
  }

  @Test
  @Order(1)
  void bgpClusterBgpSelectsTheNodesAndTheirSessionsComeUpOnBothTors() {
    begin();
    Manifests.apply(
        client,
        """
        apiVersion: sart.terassyi.net/v1alpha2
        kind: BGPPeerTemplate
        metadata:
          name: tor1
        spec:
          asn: 65100
          addr: 192.0.2.1
          holdTime: 9
          keepaliveTime: 3
        ---
        apiVersion: sart.terassyi.net/v1alpha2
        kind: BGPPeerTemplate
        metadata:
          name: tor2
        spec:
          asn: 65200
          addr: 192.0.2.65
          holdTime: 9
          keepaliveTime: 3
        ---
        apiVersion: sart.terassyi.net/v1alpha2
        kind: ClusterBGP
        metadata:
          name: clusterbgp-a
        spec:
          nodeSelector:
            bgp: a
          asnSelector:
            from: label
          routerIdSelector:
            from: internalAddress
          speaker:
            path: 127.0.0.1:5000
            multipath: true
          peers:
            - peerTemplateRef: tor1
            - peerTemplateRef: tor2
        """);
    await("a BGPPeer per node and ToR, all Established")
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              List<BGPPeer> peers = client.resources(BGPPeer.class).list().getItems();
              return peers.size() == 2 * cluster.nodes().size()
                  && peers.stream().allMatch(LoadBalancerScenariosTest::established);
            });
    for (Frr tor : cluster.tors()) {
      for (ClusterNode n : cluster.nodes()) {
        String addr = tor == cluster.tors().get(0) ? n.internalIp() : n.addressB();
        assertEquals(SessionState.ESTABLISHED, tor.sessionState(addr), tor + " ↔ " + n);
      }
    }
    end("ClusterBGP → sessions Established");
  }

  static boolean established(BGPPeer p) {
    var s = p.getStatus();
    if (s == null || s.conditions() == null || s.conditions().isEmpty()) {
      return false;
    }
    return s.conditions().getLast().status() == BGPPeerCondition.Status.Established;
  }

  @Test
  @Order(2)
  void loadBalancerClusterTheClientReachesTheServiceAndPodsOnSeveralNodesAnswer() {
    begin();
    Manifests.apply(
        client,
        """
        apiVersion: sart.terassyi.net/v1alpha2
        kind: AddressPool
        metadata:
          name: default-lb-pool
        spec:
          cidr: 198.51.100.0/24
          type: service
          allocType: bit
          autoAssign: true
        ---
        apiVersion: sart.terassyi.net/v1alpha2
        kind: AddressPool
        metadata:
          name: default-pod-pool
        spec:
          cidr: 203.0.113.128/25
          type: pod
          allocType: bit
          blockSize: 28
          autoAssign: true
        """);
    Map<String, String> app = Map.of("app", "app-cluster");
    for (ClusterNode n : cluster.nodes()) {
      client.resource(Manifests.pod(NS, "app-cluster-" + n.name(), n.name(), app, 0)).create();
    }
    client
        .resource(Manifests.loadBalancer(NS, "app-svc-cluster", app, "Cluster", Map.of()))
        .create();
    awaitPodsReady(app, cluster.nodes().size());
    String vip = awaitAddress("app-svc-cluster");
    assertTrue(vip.startsWith("198.51.100."), vip + " is not from " + LB_POOL);

    awaitNextHops(vip, cluster.nodes());

    Map<String, Integer> answers = requests(vip, 40);
    assertEquals(40, answers.values().stream().mapToInt(Integer::intValue).sum(), "" + answers);
    Set<String> pods =
        cluster.nodes().stream()
            .map(n -> "app-cluster-" + n.name())
            .collect(Collectors.toCollection(TreeSet::new));
    assertTrue(pods.containsAll(answers.keySet()), "answers from unknown pods: " + answers);
    assertTrue(answers.size() >= 2, "answers from one pod only: " + answers);
    end("LoadBalancer Cluster: address, ECMP on both ToRs, traffic from several pods");
  }

  @Test
  @Order(3)
  void externalTrafficPolicyLocalTheNextHopsAreTheNodesWithReadyEndpointsAndFollowAMovedPod() {
    begin();
    Map<String, String> app = Map.of("app", "app-local");
    ClusterNode n1 = cluster.nodes().get(0);
    ClusterNode n2 = cluster.nodes().get(1);
    ClusterNode n3 = cluster.nodes().get(2);
    client.resource(Manifests.pod(NS, "app-local-1", n1.name(), app, 0)).create();
    client.resource(Manifests.pod(NS, "app-local-2", n2.name(), app, 2)).create();
    client.resource(Manifests.loadBalancer(NS, "app-svc-local", app, "Local", Map.of())).create();
    awaitPodsReady(app, 2);
    String vip = awaitAddress("app-svc-local");
    awaitNextHops(vip, List.of(n1, n2));
    Map<String, Integer> answers = requests(vip, 30);
    assertEquals(Set.of("app-local-1", "app-local-2"), answers.keySet(), "" + answers);

    // the pod on node2 moves to node3: the route follows
    client.resource(Manifests.pod(NS, "app-local-3", n3.name(), app, 0)).create();
    awaitPodsReady(app, 3);
    awaitNextHops(vip, List.of(n1, n2, n3));
    client.pods().inNamespace(NS).withName("app-local-2").delete();
    awaitNextHops(vip, List.of(n1, n3));
    await("app-local-2 gone")
        .atMost(Duration.ofSeconds(60))
        .until(() -> client.pods().inNamespace(NS).withName("app-local-2").get() == null);
    answers = requests(vip, 30);
    assertEquals(Set.of("app-local-1", "app-local-3"), answers.keySet(), "" + answers);
    end("externalTrafficPolicy Local: next hops = nodes with endpoints, pod moved");
  }

  // ---- helpers

  static void awaitPodsReady(Map<String, String> labels, int count) {
    await("%d pods %s Ready".formatted(count, labels))
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(300))
        .until(
            () ->
                client.pods().inNamespace(NS).withLabels(labels).list().getItems().stream()
                        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                        .filter(
                            p ->
                                p.getStatus() != null
                                    && p.getStatus().getConditions() != null
                                    && p.getStatus().getConditions().stream()
                                        .anyMatch(
                                            c ->
                                                c.getType().equals("Ready")
                                                    && c.getStatus().equals("True")))
                        .count()
                    == count);
  }

  static String awaitAddress(String service) {
    return await(service + " has an address")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              Service s = client.services().inNamespace(NS).withName(service).get();
              if (s == null
                  || s.getStatus() == null
                  || s.getStatus().getLoadBalancer() == null
                  || s.getStatus().getLoadBalancer().getIngress() == null
                  || s.getStatus().getLoadBalancer().getIngress().isEmpty()) {
                return null;
              }
              return s.getStatus().getLoadBalancer().getIngress().getFirst().getIp();
            },
            ip -> ip != null);
  }

  /** Both ToRs' kernels route {@code vip}/32 over exactly these nodes. */
  static void awaitNextHops(String vip, List<ClusterNode> nodes) {
    Set<String> a = nodes.stream().map(ClusterNode::internalIp).collect(Collectors.toSet());
    Set<String> b = nodes.stream().map(ClusterNode::addressB).collect(Collectors.toSet());
    List<Frr> tors = cluster.tors();
    await("ToRs route %s over %s".formatted(vip, nodes))
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(300))
        .until(
            () ->
                Cluster.fibNextHops(tors.get(0), vip + "/32").equals(a)
                    && Cluster.fibNextHops(tors.get(1), vip + "/32").equals(b));
  }

  /** {@code n} GETs from the client; the pods that answered and how often. */
  static Map<String, Integer> requests(String vip, int n) {
    Map<String, Integer> answers = new HashMap<>();
    for (int i = 0; i < n; i++) {
      Optional<String> body =
          await("an answer from " + vip)
              .atMost(Duration.ofSeconds(20))
              .pollInterval(Duration.ofMillis(200))
              .until(
                  () -> Http.get(cluster.clientNode(), vip, 80, Duration.ofSeconds(2)),
                  Optional::isPresent);
      answers.merge(body.orElseThrow(), 1, Integer::sum);
    }
    return answers;
  }
}
