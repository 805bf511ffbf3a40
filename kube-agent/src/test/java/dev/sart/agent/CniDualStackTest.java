package dev.sart.agent;

import static dev.sart.agent.cni.CniRuntime.env;
import static dev.sart.agent.cni.CniRuntime.exec;
import static dev.sart.crds.testing.KubeObjects.annotated;
import static dev.sart.crds.testing.KubeObjects.namespace;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sart.agent.cni.AgentConfig;
import dev.sart.agent.cni.CniAgent;
import dev.sart.agent.cni.CniRuntime;
import dev.sart.agent.kube.BlockSource;
import dev.sart.agent.kube.KubeIpam;
import dev.sart.agent.kube.PoolSelector;
import dev.sart.crds.AddressBlock;
import dev.sart.crds.AddressBlockSpec;
import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressPoolSpec;
import dev.sart.crds.AddressType;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BlockRequest;
import dev.sart.crds.Protocol;
import dev.sart.crds.Sart;
import dev.sart.crds.testing.KubeObjects;
import dev.sart.crds.testing.MockApiCleanup;
import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import dev.sart.testbed.Node;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import dev.sart.testbed.mockapi.EnableMockApi;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Dual-stack pods from AddressBlocks: an IPv4 and an IPv6 pod pool, each {@code autoAssign} for its
 * family, give a pod one address of each; the node asks for a block of each pool, announces both,
 * and the CNI result (the sart-cni plugin executed as a runtime does) carries both addresses, which
 * answer pings from the node over both families. Kubernetes is fabric8's mock API server in CRUD
 * mode where the test plays sart's controller (it answers each BlockRequest with an AddressBlock).
 */
@EnableMockApi
class CniDualStackTest {
  static KubernetesClient client;
  private static final String NODE = "node1";

  @RegisterExtension final Testbed testbed = new Testbed();

  private Topology t;
  private Node node;
  private Path socket;
  private CniAgent agent;
  private CniRuntime runtime;

  @BeforeEach
  void setUp() throws Exception {
    t = testbed.topology();
    node = t.node("node");
    socket = t.dir().resolve("sart.sock");
    runtime = new CniRuntime(socket);
    pool("pods-v4", "198.51.100.0/24", 28, true);
    pool("pods-v6", "2001:db8:100::/112", 124, true);
    pool("team-v6", "2001:db8:200::/112", 124, false);
    client.resource(namespace("plain")).create();
    agent =
        CniAgent.start(
            AgentConfig.of(
                socket,
                Path.of("/var/run/netns", node.netns()),
                "192.0.2.1",
                "2001:db8::1",
                List.of(),
                null),
            new KubeIpam(
                new BlockSource(client, NODE, Duration.ofSeconds(30)), new PoolSelector(client)));
  }

  @AfterEach
  void tearDown() throws Exception {
    if (agent != null) {
      agent.close();
    }
    MockApiCleanup.deleteIpamObjects(client);
    client.namespaces().delete();
  }

  private static void pool(String name, String cidr, int blockSize, boolean auto) {
    client
        .resource(
            new AddressPool(name, new AddressPoolSpec(cidr, AddressType.POD, blockSize, auto)))
        .create();
  }

  private static void pod(String name, String pool) {
    Pod p = KubeObjects.pod("plain", name, null);
    client
        .resource(pool == null ? p : annotated(p, Map.of(Sart.ADDRESS_POOL_ANNOTATION, pool)))
        .create();
  }

  private static Map<String, String> podEnv(String command, String id, Node sandbox, String name) {
    Map<String, String> env = env(command, id, "/var/run/netns/" + sandbox.netns(), "eth0");
    env.put(
        "CNI_ARGS",
        "IgnoreUnknown=1;K8S_POD_NAMESPACE=plain;K8S_POD_NAME="
            + name
            + ";K8S_POD_INFRA_CONTAINER_ID="
            + id);
    return env;
  }

  /** sart's controller: answers {@code <pool>-<node>} with the block {@code cidr}. */
  private static void answer(String pool, String cidr) {
    await("BlockRequest for " + pool)
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> client.resources(BlockRequest.class).withName(pool + "-" + NODE).get() != null);
    AddressBlock b =
        new AddressBlock(
            pool + "-0", new AddressBlockSpec(cidr, AddressType.POD, pool, NODE, null));
    b.getMetadata()
        .setLabels(Map.of(Sart.ADDRESS_BLOCK_NODE_LABEL, NODE, Sart.ADDRESS_POOL_LABEL, pool));
    client.resource(b).create();
  }

  /** The ADD, answering the block requests of {@code blocks} (pool → cidr) in order meanwhile. */
  private JsonNode add(String id, Node sandbox, String name, Map<String, String> blocks) {
    CompletableFuture<CniRuntime.Outcome> f =
        CompletableFuture.supplyAsync(
            () -> exec(podEnv("ADD", id, sandbox, name), runtime.conf("1.0.0")),
            r -> Thread.ofPlatform().name("runtime").start(r));
    blocks.forEach(CniDualStackTest::answer);
    JsonNode result = f.join().ok().json();
    CniRuntime.validateResult("1.0.0", result);
    return result;
  }

  /** The result's addresses, each checked to lie in one of {@code blocks}, IPv4 first. */
  private static List<String> addresses(JsonNode result, String... blocks) {
    List<String> out = result.path("ips").findValuesAsText("address");
    assertEquals(blocks.length, out.size(), result.toString());
    for (int i = 0; i < blocks.length; i++) {
      String[] a = out.get(i).split("/");
      assertEquals(blocks[i].contains(":") ? "128" : "32", a[1], result.toString());
      assertTrue(
          IpPrefix.parse(blocks[i]).contains(Ip.parse(a[0])), a[0] + " is not in " + blocks[i]);
    }
    return out.stream().map(a -> a.split("/")[0]).toList();
  }

  /** The global addresses inside the pod's namespace (not loopback's, not link-local ones). */
  private static Set<String> inPod(Node pod) throws Exception {
    Set<String> out = new HashSet<>();
    for (JsonNode link : CniRuntime.JSON.readTree(pod.exec("ip", "-j", "addr", "show"))) {
      if (!link.path("ifname").asText().equals("lo")) {
        link.path("addr_info")
            .forEach(
                x -> {
                  if (!"link".equals(x.path("scope").asText())) {
                    out.add(x.path("local").asText());
                  }
                });
      }
    }
    return out;
  }

  private static Map<String, Protocol> adverts() {
    var out = new TreeMap<String, Protocol>();
    client
        .resources(BGPAdvertisement.class)
        .inNamespace("kube-system")
        .list()
        .getItems()
        .forEach(a -> out.put(a.getSpec().cidr(), a.getSpec().protocol()));
    return out;
  }

  @Test
  void anIpv4AndAnIpv6AutoAssignPoolGiveEveryPodBothFamilies() throws Exception {
    pod("p1", null);
    Node s1 = t.node("s1");
    var blocks = new java.util.LinkedHashMap<String, String>();
    blocks.put("pods-v4", "198.51.100.0/28");
    blocks.put("pods-v6", "2001:db8:100::/124");
    List<String> a1 =
        addresses(add("c1", s1, "p1", blocks), "198.51.100.0/28", "2001:db8:100::/124");
    assertEquals(Set.copyOf(a1), inPod(s1), "both addresses on the pod's interface");

    // both blocks are this node's and each is announced in its family
    assertEquals(
        Map.of("198.51.100.0/28", Protocol.IPV4, "2001:db8:100::/124", Protocol.IPV6), adverts());

    // reachable from the node over both families (the node's routes to its pods)
    node.exec("ping", "-c", "1", "-W", "5", a1.get(0));
    node.exec("ping", "-6", "-c", "1", "-W", "5", a1.get(1));

    // a pod naming an IPv6 pool gets it for IPv6 and the auto-assign pool for IPv4
    pod("p2", "team-v6");
    Node s2 = t.node("s2");
    List<String> a2 =
        addresses(
            add("c2", s2, "p2", Map.of("team-v6", "2001:db8:200::/124")),
            "198.51.100.0/28",
            "2001:db8:200::/124");
    assertEquals(Set.copyOf(a2), inPod(s2));
    s1.exec("ping", "-6", "-c", "1", "-W", "5", a2.get(1));

    // DEL of both pods gives both families' blocks back, and their advertisements go
    for (var p : List.of(List.of("c1", "p1"), List.of("c2", "p2"))) {
      Node sandbox = p.get(0).equals("c1") ? s1 : s2;
      assertEquals(
          "",
          exec(podEnv("DEL", p.get(0), sandbox, p.get(1)), runtime.conf("1.0.0")).ok().stdout());
    }
    await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertEquals(Map.of(), adverts()));
    assertTrue(client.resources(AddressBlock.class).list().getItems().isEmpty());
  }
}
