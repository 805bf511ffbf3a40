package dev.sart.testbed.cluster;

import static dev.sart.testbed.cluster.Scenarios.awaitNextHops;
import static dev.sart.testbed.cluster.Scenarios.awaitPodsReady;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.crds.AddressBlock;
import dev.sart.crds.AddressType;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.Cidr;
import dev.sart.testbed.Node;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * sart's CNI scenarios (reference sart.md §8.1, "Kubernetes CNI") on the cluster on one machine:
 * pods started by the kubelet stand-in through the installed sart-cni plugin get addresses from
 * their node's block, each block is one route on both ToRs, and traffic goes pod ↔ pod across
 * nodes, node ↔ pod and client ↔ pod (the pool is routable); the answer names the pod that served
 * it.
 *
 * <p>Runs unchanged against a real API server: {@code SART_E2E_KUBECONFIG=~/.kube/config}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CniScenariosTest {
  static final String NS = "test";
  static final Map<String, String> APP = Map.of("app", "cni-test");

  @RegisterExtension static final SharedCluster SHARED = new SharedCluster();

  static Cluster cluster;
  static KubernetesClient client;

  @BeforeAll
  static void up() {
    cluster = SHARED.start("CniScenariosTest", Cluster.Options.defaults());
    client = cluster.client();
  }

  @AfterAll
  static void down() {
    SHARED.close();
  }

  @Test
  @Order(1)
  void prepareBgpAndThePodPool() {
    SHARED.begin();
    Manifests.apply(client, Scenarios.CLUSTER_BGP + "---\n" + Scenarios.POD_POOL);
    Scenarios.awaitPeersEstablished(cluster);
    if (client.namespaces().withName(NS).get() == null) {
      client
          .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
          .create();
    }
    SHARED.end("CNI: ClusterBGP and pod pool");
  }

  @Test
  @Order(2)
  void createPodsEachGetsAnAddressFromItsNodesBlockAnnouncedToBothTors() {
    SHARED.begin();
    for (ClusterNode n : cluster.nodes()) {
      for (String s : List.of("a", "b")) {
        client.resource(Manifests.pod(NS, name(n, s), n.name(), APP, 0)).create();
      }
    }
    List<Pod> pods = awaitPodsReady(cluster, NS, APP, 2 * cluster.nodes().size());
    for (Pod p : pods) {
      String node = p.getSpec().getNodeName();
      AddressBlock block = blockOf(p.getStatus().getPodIP());
      assertNotNull(block, p.getMetadata().getName() + " " + p.getStatus().getPodIP());
      assertEquals(node, block.getSpec().nodeRef(), "the block of " + p.getStatus().getPodIP());
    }
    for (ClusterNode n : cluster.nodes()) {
      List<AddressBlock> blocks = blocksOf(n);
      assertEquals(1, blocks.size(), "one block on " + n + ": " + blocks);
      String cidr = blocks.getFirst().getSpec().cidr();
      assertNotNull(
          client
              .resources(BGPAdvertisement.class)
              .inNamespace("kube-system")
              .withName(blocks.getFirst().getMetadata().getName())
              .get(),
          "the block's BGPAdvertisement");
      awaitNextHops(cluster, cidr, List.of(n));
    }
    SHARED.end("CNI: pods on every node, addresses from their node's block, block routes on ToRs");
  }

  @Test
  @Order(3)
  void trafficPodToPodAcrossNodesNodeToPodAndClientToPod() {
    SHARED.begin();
    List<ClusterNode> nodes = cluster.nodes();
    for (ClusterNode from : nodes) {
      Node src = podNetns(name(from, "a"));
      for (ClusterNode to : nodes) {
        if (to != from) {
          assertAnswers(src, name(to, "b"));
        }
      }
    }
    for (int i = 0; i < nodes.size(); i++) {
      ClusterNode from = nodes.get(i);
      ClusterNode to = nodes.get((i + 1) % nodes.size());
      assertAnswers(from.netns(), name(to, "a"));
      assertAnswers(from.netns(), name(from, "b"));
    }
    for (ClusterNode n : nodes) {
      assertAnswers(cluster.clientNode(), name(n, "a"));
    }
    SHARED.end("CNI: pod ↔ pod across nodes, node ↔ pod, client ↔ pod");
  }

  @Test
  @Order(4)
  void deleteAndRecreateAPodItGetsAnAddressOfItsNodeAgainAndIsReachable() {
    SHARED.begin();
    ClusterNode n3 = cluster.nodes().get(2);
    String pod = name(n3, "a");
    client.pods().inNamespace(NS).withName(pod).delete();
    await(pod + " gone")
        .atMost(Duration.ofSeconds(60))
        .until(() -> client.pods().inNamespace(NS).withName(pod).get() == null);
    client.resource(Manifests.pod(NS, pod, n3.name(), APP, 0)).create();
    awaitPodsReady(cluster, NS, APP, 2 * cluster.nodes().size());
    Pod p = client.pods().inNamespace(NS).withName(pod).get();
    assertEquals(n3.name(), blockOf(p.getStatus().getPodIP()).getSpec().nodeRef());
    assertAnswers(podNetns(name(cluster.nodes().get(0), "a")), pod);
    assertAnswers(cluster.clientNode(), pod);
    SHARED.end("CNI: delete and re-create a pod");
  }

  @Test
  @Order(5)
  void releaseUnusedAddressBlockTheNodesLastPodGoesItsBlockIsDeletedAndWithdrawn() {
    SHARED.begin();
    ClusterNode n3 = cluster.nodes().get(2);
    String cidr = blocksOf(n3).getFirst().getSpec().cidr();
    for (String s : List.of("a", "b")) {
      client.pods().inNamespace(NS).withName(name(n3, s)).delete();
    }
    await("the AddressBlock of " + n3 + " deleted")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(300))
        .until(() -> blocksOf(n3).isEmpty());
    awaitNextHops(cluster, cidr, List.of());
    assertAnswers(cluster.clientNode(), name(cluster.nodes().get(0), "a"));
    SHARED.end("CNI: release an unused block");
  }

  // ---- helpers

  static String name(ClusterNode n, String suffix) {
    return "pod-" + n.name() + "-" + suffix;
  }

  static Node podNetns(String pod) {
    return cluster.pod(NS, pod).orElseThrow(() -> new AssertionError(pod + " not running")).netns();
  }

  static List<AddressBlock> blocksOf(ClusterNode n) {
    return client.resources(AddressBlock.class).list().getItems().stream()
        .filter(b -> b.getSpec().type() == AddressType.POD)
        .filter(b -> n.name().equals(b.getSpec().nodeRef()))
        .toList();
  }

  static AddressBlock blockOf(String ip) {
    return client.resources(AddressBlock.class).list().getItems().stream()
        .filter(b -> b.getSpec().type() == AddressType.POD)
        .filter(b -> Cidr.parse(b.getSpec().cidr()).contains(Cidr.parseAddress(ip)))
        .findFirst()
        .orElse(null);
  }

  /** A GET from {@code from} to the pod's address:8080 is answered by that pod. */
  static void assertAnswers(Node from, String pod) {
    String ip = client.pods().inNamespace(NS).withName(pod).get().getStatus().getPodIP();
    Optional<String> body =
        await(from.name() + " → " + pod + " (" + ip + ")")
            .atMost(Duration.ofSeconds(20))
            .pollInterval(Duration.ofMillis(200))
            .until(
                () -> Http.get(from, ip, KubeletStandIn.HTTP_PORT, Duration.ofSeconds(2)),
                Optional::isPresent);
    assertTrue(body.isPresent());
    assertEquals(pod, body.get(), from.name() + " → " + ip);
  }
}
