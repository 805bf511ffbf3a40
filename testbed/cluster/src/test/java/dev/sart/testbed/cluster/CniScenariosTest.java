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
import dev.sart.crds.Sart;
import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import dev.sart.testbed.Node;
import dev.sart.testbed.Shell;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
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
    // as sart's CNI suite: the controllers in cni mode, switched to dual at the end
    cluster = SHARED.start("CniScenariosTest", Cluster.Options.defaults().withMode("cni"));
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
    cluster.ensureNamespace(NS, Map.of());
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
    // sart explain pod, run on a node as a user runs it there: on node2 the chain of node2's pod
    // holds down to its veth; on node1, 127.0.0.1:5000 is node1's speaker, whose sessions and
    // kernel routes must not be read as node2's (they were: node2's peer and kernel named broken)
    ClusterNode n1 = nodes.get(0);
    ClusterNode n2 = nodes.get(1);
    String pod = NS + "/" + name(n2, "a");
    Shell.Result own = explain(n2, "pod", pod);
    assertEquals(0, own.exitCode(), own.stdout() + own.stderr());
    assertTrue(own.stdout().contains("kernel " + n2.name() + " (the pod's): "), own.stdout());
    assertTrue(own.stdout().contains(", link up"), own.stdout());
    // from node1, node2's speaker and kernel cannot be seen: not asked, marked [? ], nothing broken
    Shell.Result other = explain(n1, "-o", "json", "pod", pod);
    assertEquals(0, other.exitCode(), other.stdout() + other.stderr());
    var doc = json(other.stdout());
    assertEquals("ok", doc.path("result").asText(), other.stdout());
    var node2 = link(doc.path("chain"), "node", n2.name());
    assertEquals("warning", node2.path("state").asText(), other.stdout());
    assertTrue(
        node2
            .path("summary")
            .asText()
            .contains(" reaches " + n1.name() + "'s speaker (explain runs on " + n1.name() + ")"),
        other.stdout());
    var kernel = link(doc.path("chain"), "kernel", n2.name() + " (the pod's)");
    assertEquals("warning", kernel.path("state").asText(), other.stdout());
    SHARED.end("CNI: pod ↔ pod across nodes, node ↔ pod, client ↔ pod; explain pod on two nodes");
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

  @Test
  @Order(6)
  void nonDefaultPoolByPodAnnotationAndByNamespaceAnnotation() {
    SHARED.begin();
    Manifests.apply(
        client,
        """
        apiVersion: sart.terassyi.net/v1alpha2
        kind: AddressPool
        metadata:
          name: non-default-pod-pool
        spec:
          cidr: 198.51.100.0/27
          type: pod
          allocType: bit
          blockSize: 29
          autoAssign: false
        """);
    ClusterNode n1 = cluster.nodes().get(0);
    ClusterNode n2 = cluster.nodes().get(1);
    Pod byPod = Manifests.pod(NS, "pod-annotated", n1.name(), Map.of("app", "annotated"), 0);
    byPod
        .getMetadata()
        .setAnnotations(Map.of(Sart.ADDRESS_POOL_ANNOTATION, "non-default-pod-pool"));
    client.resource(byPod).create();
    String other = "test-non-default";
    cluster.ensureNamespace(other, Map.of(Sart.ADDRESS_POOL_ANNOTATION, "non-default-pod-pool"));
    client
        .resource(Manifests.pod(other, "pod-in-namespace", n2.name(), Map.of("app", "ns"), 0))
        .create();
    Pod a = awaitPodsReady(cluster, NS, Map.of("app", "annotated"), 1).getFirst();
    Pod b = awaitPodsReady(cluster, other, Map.of("app", "ns"), 1).getFirst();
    for (Pod p : List.of(a, b)) {
      AddressBlock block = blockOf(p.getStatus().getPodIP());
      assertNotNull(block, p.getStatus().getPodIP() + " is in no block");
      assertEquals("non-default-pod-pool", block.getSpec().poolRef(), p.getStatus().getPodIP());
      assertEquals(p.getSpec().getNodeName(), block.getSpec().nodeRef());
    }
    assertAnswers(cluster.clientNode(), NS, "pod-annotated");
    assertAnswers(podNetns(name(n2, "a")), NS, "pod-annotated");
    assertAnswers(cluster.clientNode(), other, "pod-in-namespace");
    assertAnswers(podNetns(name(n1, "a")), other, "pod-in-namespace");
    SHARED.end("CNI: non-default pool by pod and by namespace annotation");
  }

  @Test
  @Order(7)
  void restartSartdNodeWithPodsRunningNoAddressLostOrDoubled() {
    SHARED.begin();
    ClusterNode n1 = cluster.nodes().get(0);
    Map<String, String> before = podAddresses();
    List<AddressBlock> blocksBefore = blocksOf(n1);
    cluster.restartSartd(n1);
    for (AddressBlock b : blocksBefore) {
      awaitNextHops(cluster, b.getSpec().cidr(), List.of(n1));
    }
    assertAnswers(podNetns(name(cluster.nodes().get(1), "a")), NS, name(n1, "a"));
    assertAnswers(cluster.clientNode(), NS, name(n1, "b"));
    assertEquals(before, podAddresses(), "pod addresses after the restart");
    assertEquals(
        blocksBefore.stream().map(b -> b.getSpec().cidr()).sorted().toList(),
        blocksOf(n1).stream().map(b -> b.getSpec().cidr()).sorted().toList());

    client.resource(Manifests.pod(NS, name(n1, "c"), n1.name(), APP, 0)).create();
    awaitPodsReady(cluster, NS, APP, 2 * cluster.nodes().size() - 2 + 1);
    String ip = client.pods().inNamespace(NS).withName(name(n1, "c")).get().getStatus().getPodIP();
    assertTrue(!before.containsValue(ip), ip + " is held by another pod: " + before);
    assertEquals(n1.name(), blockOf(ip).getSpec().nodeRef());
    assertAnswers(podNetns(name(cluster.nodes().get(1), "a")), NS, name(n1, "c"));
    SHARED.end("CNI: restart sartd node with pods running");
  }

  @Test
  @Order(8)
  void restartTheControllersWithPodsRunningAddressesKeptNewPodGetsAFreshOne() {
    SHARED.begin();
    Map<String, String> before = podAddresses();
    cluster.restartControllers();
    ClusterNode n3 = cluster.nodes().get(2);
    // node3 has no block any more (released above): its new pod needs a new one from the controller
    client.resource(Manifests.pod(NS, name(n3, "c"), n3.name(), APP, 0)).create();
    Pod p =
        await("the new pod on " + n3 + " Ready")
            .atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofMillis(300))
            .until(
                () -> client.pods().inNamespace(NS).withName(name(n3, "c")).get(),
                x -> x != null && Scenarios.ready(x));
    String ip = p.getStatus().getPodIP();
    assertTrue(!before.containsValue(ip), ip + " is held by another pod: " + before);
    assertEquals(n3.name(), blockOf(ip).getSpec().nodeRef());
    assertEquals(before, withoutPod(podAddresses(), NS + "/" + name(n3, "c")));
    assertAnswers(cluster.clientNode(), NS, name(n3, "c"));
    assertAnswers(podNetns(name(cluster.nodes().get(0), "a")), NS, name(n3, "c"));
    SHARED.end("CNI: restart the controllers with pods running");
  }

  @Test
  @Order(9)
  void switchTheModeToDualLoadBalancerPoolAndTrafficInDualMode() {
    SHARED.begin();
    // a service pool apart from the pod pools (198.51.100.0/27 is one)
    Manifests.apply(
        client,
        """
        apiVersion: sart.terassyi.net/v1alpha2
        kind: AddressPool
        metadata:
          name: dual-lb-pool
        spec:
          cidr: 198.51.100.128/25
          type: service
          allocType: bit
          autoAssign: true
        """);
    client
        .resource(
            Manifests.loadBalancer(
                NS, "lb-in-dual", Map.of("app", "annotated"), "Cluster", Map.of()))
        .create();
    // in cni mode the controllers hand out no LoadBalancer address
    await("no address in cni mode")
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .until(
            () -> {
              var svc = client.services().inNamespace(NS).withName("lb-in-dual").get();
              return svc.getStatus() == null
                  || svc.getStatus().getLoadBalancer() == null
                  || svc.getStatus().getLoadBalancer().getIngress() == null
                  || svc.getStatus().getLoadBalancer().getIngress().isEmpty();
            });
    cluster.restartControllers("dual");
    String vip = Scenarios.awaitAddress(cluster, NS, "lb-in-dual");
    assertTrue(vip.startsWith("198.51.100.") && Integer.parseInt(vip.substring(11)) >= 128, vip);
    awaitNextHops(cluster, vip + "/32", cluster.nodes());
    assertEquals(Map.of("pod-annotated", 10), Scenarios.requests(cluster, vip, 80, 10));
    assertAnswers(cluster.clientNode(), NS, name(cluster.nodes().get(0), "a"));
    SHARED.end("CNI: switch the controllers from cni to dual, LoadBalancer in dual mode");
  }

  @Test
  @Order(10)
  void clusterIpAPodReachesTheServicesPodsOnEveryNodeThroughItsClusterIp() {
    SHARED.begin();
    client.resource(Manifests.clusterIp(NS, "app-clusterip", APP)).create();
    // a real API server allocates it at create; on the mock the ClusterIP stand-in does
    String clusterIp =
        await("app-clusterip has a ClusterIP")
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(200))
            .until(
                () ->
                    client
                        .services()
                        .inNamespace(NS)
                        .withName("app-clusterip")
                        .get()
                        .getSpec()
                        .getClusterIP(),
                ip -> ip != null && !ip.isEmpty() && !ip.equals("None"));
    var ready = awaitPodsReady(cluster, NS, APP, 2 * cluster.nodes().size() - 2 + 2);
    var pods = ready.stream().map(p -> p.getMetadata().getName()).collect(Collectors.toSet());
    var nodes = ready.stream().map(p -> p.getSpec().getNodeName()).collect(Collectors.toSet());
    assertEquals(3, nodes.size(), "the Service's pods run on every node: " + pods);
    // from a pod: kube-proxy's DNAT on its node, then the pod routes across nodes (a node itself
    // has no route to the ClusterIP range in this fabric, no default route: its connect fails
    // before kube-proxy's output hook, as on any node without one)
    ClusterNode n2 = cluster.nodes().get(1);
    Map<String, Integer> fromPod = Scenarios.requests(podNetns(name(n2, "a")), clusterIp, 80, 30);
    assertEquals(30, fromPod.values().stream().mapToInt(Integer::intValue).sum(), "" + fromPod);
    assertTrue(pods.containsAll(fromPod.keySet()), "answers from other pods: " + fromPod);
    var answeringNodes =
        ready.stream()
            .filter(p -> fromPod.containsKey(p.getMetadata().getName()))
            .map(p -> p.getSpec().getNodeName())
            .collect(Collectors.toSet());
    assertTrue(answeringNodes.size() >= 2, "answers from one node only: " + fromPod);
    // a pod that is one of the endpoints reaches itself too (hairpin, masqueraded)
    Map<String, Integer> own = Scenarios.requests(podNetns(name(n2, "b")), clusterIp, 80, 50);
    assertEquals(50, own.values().stream().mapToInt(Integer::intValue).sum(), "" + own);
    assertTrue(own.containsKey(name(n2, "b")), "never answered by itself: " + own);
    SHARED.end("ClusterIP: pod → ClusterIP → pods on every node, hairpin");
  }

  @Test
  @Order(11)
  void ipv6PodsAndALoadBalancerServiceOverIpv6SessionsReachedFromTheClient() {
    SHARED.begin();
    // an IPv6 session per node and ToR next to the IPv4 one, IPv6 pools for pods and Services
    Manifests.apply(client, Scenarios.CLUSTER_BGP_V6 + "---\n" + Scenarios.V6_POOLS);
    Scenarios.awaitPeersEstablished(cluster, 4);
    Map<String, String> v6 = Map.of("app", "v6");
    ClusterNode n1 = cluster.nodes().get(0);
    ClusterNode n2 = cluster.nodes().get(1);
    for (ClusterNode n : List.of(n1, n2)) {
      Pod p = Manifests.pod(NS, "v6-" + n.name(), n.name(), v6, 0);
      p.getMetadata().setAnnotations(Map.of(Sart.ADDRESS_POOL_ANNOTATION, "v6-pod-pool"));
      client.resource(p).create();
    }
    for (Pod p : awaitPodsReady(cluster, NS, v6, 2)) {
      // the annotation names the IPv6 pool; the IPv4 family it leaves out gets the IPv4
      // auto-assign pod pool (README, compatibility): a dual-stack pod, IPv4 first
      List<String> ips = p.getStatus().getPodIPs().stream().map(i -> i.getIp()).toList();
      assertEquals(2, ips.size(), "" + ips);
      assertTrue(ips.getFirst().indexOf(':') < 0 && ips.getLast().indexOf(':') > 0, "" + ips);
      assertEquals("default-pod-pool", blockOf(ips.getFirst()).getSpec().poolRef(), "" + ips);
      String ip = ips.getLast();
      AddressBlock block = blockOf(ip);
      assertNotNull(block, ip + " is in no block");
      assertEquals("v6-pod-pool", block.getSpec().poolRef(), ip);
      assertEquals(p.getSpec().getNodeName(), block.getSpec().nodeRef(), ip);
      // the block is announced over the IPv6 sessions of its node only
      awaitNextHops(
          cluster, block.getSpec().cidr(), List.of(cluster.node(block.getSpec().nodeRef())));
    }
    // pod ↔ pod over IPv6 across nodes (the routes learnt from the ToRs in each node's table)
    assertAnswers(cluster.pod(NS, "v6-" + n1.name()).orElseThrow().netns(), NS, "v6-" + n2.name());

    // an IPv6 LoadBalancer Service: announced over the IPv6 sessions, reached from the client
    var svc =
        Manifests.loadBalancer(
            NS, "lb-v6", v6, "Cluster", Map.of(Sart.ADDRESS_POOL_ANNOTATION, "v6-lb-pool"));
    svc.getSpec().setIpFamilies(List.of("IPv6"));
    svc.getSpec().setIpFamilyPolicy("SingleStack");
    client.resource(svc).create();
    String vip = Scenarios.awaitAddress(cluster, NS, "lb-v6");
    assertTrue(vip.startsWith("2001:db8:1b::"), vip + " is not from v6-lb-pool");
    awaitNextHops(cluster, vip + "/128", cluster.nodes());
    Map<String, Integer> answers = Scenarios.requests(cluster, vip, 80, 30);
    assertEquals(Set.of("v6-" + n1.name(), "v6-" + n2.name()), answers.keySet(), "" + answers);

    // a dual-stack Service: one address per family, each announced over the sessions of its
    // family (reached over IPv4 too: its pods are dual-stack)
    var dual =
        Manifests.loadBalancer(
            NS,
            "lb-dual",
            v6,
            "Cluster",
            Map.of(Sart.ADDRESS_POOL_ANNOTATION, "dual-lb-pool,v6-lb-pool"));
    dual.getSpec().setIpFamilies(List.of("IPv4", "IPv6"));
    dual.getSpec().setIpFamilyPolicy("RequireDualStack");
    client.resource(dual).create();
    List<String> both =
        await("lb-dual has an address of each family")
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(200))
            .until(
                () -> {
                  var x = client.services().inNamespace(NS).withName("lb-dual").get();
                  return x.getStatus() == null
                          || x.getStatus().getLoadBalancer() == null
                          || x.getStatus().getLoadBalancer().getIngress() == null
                      ? List.<String>of()
                      : x.getStatus().getLoadBalancer().getIngress().stream()
                          .map(i -> i.getIp())
                          .toList();
                },
                l -> l.size() == 2);
    String dual4 = both.stream().filter(a -> !a.contains(":")).findFirst().orElseThrow();
    String dual6 = both.stream().filter(a -> a.contains(":")).findFirst().orElseThrow();
    awaitNextHops(cluster, dual4 + "/32", cluster.nodes());
    awaitNextHops(cluster, dual6 + "/128", cluster.nodes());
    for (var advert :
        client
            .resources(BGPAdvertisement.class)
            .inNamespace(NS)
            .withLabel(Sart.SERVICE_NAME_LABEL, "lb-dual")
            .list()
            .getItems()) {
      boolean v6Advert = advert.getSpec().cidr().contains(":");
      for (String peer : advert.getStatus().peers().keySet()) {
        String addr =
            client.resources(dev.sart.crds.BGPPeer.class).withName(peer).get().getSpec().addr();
        assertEquals(v6Advert, addr.contains(":"), advert.getSpec().cidr() + " targets " + peer);
      }
    }
    assertEquals(
        Set.of("v6-" + n1.name(), "v6-" + n2.name()),
        Scenarios.requests(cluster, dual6, 80, 20).keySet());
    SHARED.end("IPv6: pods, block routes, LoadBalancer over IPv6 sessions, dual-stack Service");
  }

  static Map<String, String> withoutPod(Map<String, String> m, String key) {
    Map<String, String> out = new java.util.TreeMap<>(m);
    out.remove(key);
    return out;
  }

  /** Every running pod's address, by namespace/name. */
  static Map<String, String> podAddresses() {
    Map<String, String> out = new java.util.TreeMap<>();
    for (Pod p : client.pods().inAnyNamespace().list().getItems()) {
      if (p.getStatus() != null && p.getStatus().getPodIP() != null) {
        out.put(
            p.getMetadata().getNamespace() + "/" + p.getMetadata().getName(),
            p.getStatus().getPodIP());
      }
    }
    return out;
  }

  // ---- helpers

  /** The first link of {@code kind} and {@code name} in an explain chain (JSON), depth first. */
  static com.fasterxml.jackson.databind.JsonNode link(
      com.fasterxml.jackson.databind.JsonNode chain, String kind, String name) {
    if (chain.path("kind").asText().equals(kind) && chain.path("name").asText().equals(name)) {
      return chain;
    }
    for (var l : chain.path("links")) {
      var found = link(l, kind, name);
      if (!found.isMissingNode()) {
        return found;
      }
    }
    return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
  }

  /** {@code sart explain ARGS} in {@code node}'s namespace, with the node's kubeconfig. */
  static Shell.Result explain(ClusterNode node, String... args) {
    List<String> argv = new java.util.ArrayList<>(List.of("explain"));
    argv.addAll(List.of(args));
    argv.add("--kubeconfig");
    argv.add(node.netns().dir().resolve("kubeconfig").toString());
    return node.sart(argv.toArray(String[]::new));
  }

  private static com.fasterxml.jackson.databind.JsonNode json(String text) {
    try {
      return new com.fasterxml.jackson.databind.ObjectMapper().readTree(text);
    } catch (java.io.IOException e) {
      throw new AssertionError(text, e);
    }
  }

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
        .filter(b -> IpPrefix.parseCidr(b.getSpec().cidr()).contains(Ip.parse(ip)))
        .findFirst()
        .orElse(null);
  }

  /** A GET from {@code from} to the pod's address:8080 is answered by that pod. */
  static void assertAnswers(Node from, String pod) {
    assertAnswers(from, NS, pod);
  }

  /** The same for a pod of another namespace. */
  static void assertAnswers(Node from, String ns, String pod) {
    String ip = client.pods().inNamespace(ns).withName(pod).get().getStatus().getPodIP();
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
