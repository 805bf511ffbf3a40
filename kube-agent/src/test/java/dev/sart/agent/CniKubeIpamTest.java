package dev.sart.agent;

import static dev.sart.agent.cni.CniRuntime.env;
import static dev.sart.agent.cni.CniRuntime.exec;
import static dev.sart.crds.testing.KubeObjects.annotated;
import static dev.sart.crds.testing.KubeObjects.namespace;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sart.agent.cni.AgentConfig;
import dev.sart.agent.cni.CniAgent;
import dev.sart.agent.cni.CniException;
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
import dev.sart.crds.Sart;
import dev.sart.crds.testing.KubeObjects;
import dev.sart.crds.testing.MockApiCleanup;
import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import dev.sart.testbed.Node;
import dev.sart.testbed.Shell;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import dev.sart.testbed.mockapi.EnableMockApi;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The CNI server with its addresses from this node's AddressBlocks, as {@code sartd agent
 * --cni-config} runs it when the configuration lists no blocks: the sart-cni plugin binary executed
 * as a runtime does (CNI_ARGS with the pod's namespace and name), pods as namespaces, Kubernetes as
 * fabric8's mock API server in CRUD mode where the test plays sart's controller (it answers each
 * BlockRequest with an AddressBlock).
 */
@EnableMockApi
class CniKubeIpamTest {
  static KubernetesClient client;
  private static final String NODE = "node1";

  /** The pools' ranges: block i of a pool is {@code prefix + (offset + 16 * i) + "/28"}. */
  private static final Map<String, String> PREFIX =
      Map.of(
          "default-pod-pool", "198.51.100.", "team-pool", "203.0.113.", "pod-pool", "203.0.113.");

  private static final Map<String, Integer> OFFSET =
      Map.of("default-pod-pool", 0, "team-pool", 0, "pod-pool", 128);

  @RegisterExtension final Testbed testbed = new Testbed();

  private Topology t;
  private Node node;
  private Path socket;
  private CniAgent agent;
  private CniRuntime runtime;
  private final Map<String, Integer> given = new HashMap<>();

  // createOr(update): under load fabric8 may retry a POST the mock server already took (409)
  @BeforeEach
  void setUp() {
    t = testbed.topology();
    node = t.node("node");
    socket = t.dir().resolve("sart.sock");
    runtime = new CniRuntime(socket);
    client
        .resource(
            new AddressPool(
                "default-pod-pool",
                new AddressPoolSpec("198.51.100.0/24", AddressType.POD, 28, true)))
        .createOr(NonDeletingOperation::update);
    client
        .resource(
            new AddressPool(
                "team-pool", new AddressPoolSpec("203.0.113.0/25", AddressType.POD, 28, false)))
        .createOr(NonDeletingOperation::update);
    client
        .resource(
            new AddressPool(
                "pod-pool", new AddressPoolSpec("203.0.113.128/25", AddressType.POD, 28, false)))
        .createOr(NonDeletingOperation::update);
    client
        .resource(annotated(namespace("team-a"), Map.of(Sart.ADDRESS_POOL_ANNOTATION, "team-pool")))
        .createOr(NonDeletingOperation::update);
    client.resource(namespace("plain")).createOr(NonDeletingOperation::update);
  }

  @AfterEach
  void tearDown() throws Exception {
    if (agent != null) {
      agent.close();
    }
    MockApiCleanup.deleteIpamObjects(client);
    client.namespaces().delete();
  }

  /** The agent as sartd agent starts it: no blocks in the file, KubeIpam over the API server. */
  private void startAgent(Duration blockWait) throws Exception {
    AgentConfig config =
        AgentConfig.of(
            socket,
            Path.of("/var/run/netns", node.netns()),
            "192.0.2.1",
            "2001:db8::1",
            List.of(),
            null);
    agent =
        CniAgent.start(
            config,
            new KubeIpam(new BlockSource(client, NODE, blockWait), new PoolSelector(client)));
  }

  /** A pod in the API server; {@code pool} is its annotation, or null. */
  private void pod(String namespace, String name, String pool) {
    Pod p = KubeObjects.pod(namespace, name, null);
    client
        .resource(pool == null ? p : annotated(p, Map.of(Sart.ADDRESS_POOL_ANNOTATION, pool)))
        .create();
  }

  /** The environment a runtime gives the plugin for a pod (kubelet's CNI_ARGS). */
  private static Map<String, String> podEnv(
      String command, String id, Node sandbox, String namespace, String name) {
    Map<String, String> env = env(command, id, "/var/run/netns/" + sandbox.netns(), "eth0");
    env.put(
        "CNI_ARGS",
        "IgnoreUnknown=1;K8S_POD_NAMESPACE="
            + namespace
            + ";K8S_POD_NAME="
            + name
            + ";K8S_POD_INFRA_CONTAINER_ID="
            + id);
    return env;
  }

  private CniRuntime.Outcome add(String id, Node sandbox, String namespace, String name) {
    return exec(podEnv("ADD", id, sandbox, namespace, name), runtime.conf("1.0.0"));
  }

  private void del(String id, Node sandbox, String namespace, String name) {
    assertEquals(
        "", exec(podEnv("DEL", id, sandbox, namespace, name), runtime.conf("1.0.0")).ok().stdout());
  }

  /** An ADD that has to wait for a block: the test answers the agent's BlockRequest meanwhile. */
  private JsonNode addAnswering(
      String id, Node sandbox, String namespace, String name, String pool) {
    // a thread of its own: the common pool (one thread on two cores) also completes the client's
    // HTTP calls
    CompletableFuture<CniRuntime.Outcome> f =
        CompletableFuture.supplyAsync(
            () -> add(id, sandbox, namespace, name),
            r -> Thread.ofPlatform().name("runtime").start(r));
    answer(pool);
    return f.join().ok().json();
  }

  /**
   * sart's controller: waits for {@code <pool>-<node>} and assigns the pool's next /28 to the node.
   */
  private String answer(String pool) {
    return answer(pool, 28);
  }

  /**
   * The same with a smaller block ({@code length} 28..30; block i still starts at offset + 16 * i).
   */
  private String answer(String pool, int length) {
    await("BlockRequest for " + pool)
        .atMost(Duration.ofSeconds(20))
        .until(
            () -> client.resources(BlockRequest.class).withName(pool + "-" + NODE).get() != null);
    BlockRequest r = client.resources(BlockRequest.class).withName(pool + "-" + NODE).get();
    assertEquals(pool, r.getSpec().pool());
    assertEquals(NODE, r.getSpec().node());
    int i = given.merge(pool, 1, Integer::sum) - 1;
    String cidr = PREFIX.get(pool) + (OFFSET.get(pool) + 16 * i) + "/" + length;
    AddressBlock b =
        new AddressBlock(
            pool + "-" + i, new AddressBlockSpec(cidr, AddressType.POD, pool, NODE, null));
    b.getMetadata()
        .setLabels(Map.of(Sart.ADDRESS_BLOCK_NODE_LABEL, NODE, Sart.ADDRESS_POOL_LABEL, pool));
    client.resource(b).create();
    return cidr;
  }

  /**
   * The one IPv4 address of an ADD result (the pools are IPv4 only), checked as /32 in {@code
   * block}.
   */
  private static String address(JsonNode result, String block) {
    CniRuntime.validateResult("1.0.0", result);
    List<String> addrs = result.path("ips").findValuesAsText("address");
    assertEquals(1, addrs.size(), result.toString());
    assertTrue(addrs.getFirst().endsWith("/32"), result.toString());
    String a = addrs.getFirst().split("/")[0];
    assertTrue(IpPrefix.parse(block).contains(Ip.parse(a)), a + " is not in " + block);
    return a;
  }

  /** The IPv4 addresses inside the pod's namespace (but loopback's). */
  private static Set<String> inPod(Node pod) {
    Set<String> out = new HashSet<>();
    for (JsonNode link : json(pod.exec("ip", "-4", "-j", "addr", "show"))) {
      if (!link.path("ifname").asText().equals("lo")) {
        link.path("addr_info").forEach(x -> out.add(x.path("local").asText()));
      }
    }
    return out;
  }

  /** The node's routes to its pods (table 120). */
  private Set<String> podRoutesOnNode() {
    Set<String> out = new HashSet<>();
    // before the first pod (and after the last) the table does not exist
    Shell.Result routes = node.tryExec("ip", "-4", "-j", "route", "show", "table", "120");
    if (!routes.ok()) {
      assertTrue(routes.stderr().contains("does not exist"), routes.stderr());
      return out;
    }
    for (JsonNode r : json(routes.stdout())) {
      out.add(r.path("dst").asText());
    }
    return out;
  }

  private static JsonNode json(String s) {
    try {
      return CniRuntime.JSON.readTree(s.isBlank() ? "[]" : s);
    } catch (Exception e) {
      throw new AssertionError(s, e);
    }
  }

  private static Set<String> names(
      List<? extends io.fabric8.kubernetes.api.model.HasMetadata> items) {
    return items.stream().map(x -> x.getMetadata().getName()).collect(Collectors.toSet());
  }

  private Set<String> blocks() {
    return names(
        client
            .resources(AddressBlock.class)
            .withLabel(Sart.ADDRESS_BLOCK_NODE_LABEL, NODE)
            .list()
            .getItems());
  }

  private Set<String> adverts() {
    return names(
        client.resources(BGPAdvertisement.class).inNamespace("kube-system").list().getItems());
  }

  @Test
  void thePoolComesFromThePodThenItsNamespaceThenAutoAssign() throws Exception {
    startAgent(Duration.ofSeconds(30));
    pod("team-a", "p1", null);
    pod("team-a", "p2", "pod-pool");
    pod("plain", "p3", null);
    Node s1 = t.node("s1");
    Node s2 = t.node("s2");
    Node s3 = t.node("s3");

    // the namespace's annotation: the ADD waits while the agent asks for a block of team-pool
    String a1 = address(addAnswering("c1", s1, "team-a", "p1", "team-pool"), "203.0.113.0/28");
    assertEquals(Set.of(a1), inPod(s1));
    // the pod's annotation wins over its namespace's
    String a2 = address(addAnswering("c2", s2, "team-a", "p2", "pod-pool"), "203.0.113.128/28");
    assertEquals(Set.of(a2), inPod(s2));
    // neither: the auto-assign pod pool
    String a3 =
        address(addAnswering("c3", s3, "plain", "p3", "default-pod-pool"), "198.51.100.0/28");
    assertEquals(Set.of(a3), inPod(s3));
    s1.exec("ping", "-c", "1", "-W", "5", a3);

    // what a user sees: one block per pool on the node, each announced, no request left over
    assertEquals(Set.of("team-pool-0", "pod-pool-0", "default-pod-pool-0"), blocks());
    assertEquals(blocks(), adverts());
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> client.resources(BlockRequest.class).list().getItems().isEmpty());
    assertEquals(Set.of(a1, a2, a3), podRoutesOnNode());

    // a second pod of an annotated namespace uses the block the node has: no new request
    pod("team-a", "p4", null);
    Node s4 = t.node("s4");
    String a4 = address(add("c4", s4, "team-a", "p4").ok().json(), "203.0.113.0/28");
    assertNotEquals(a1, a4);
    assertTrue(client.resources(BlockRequest.class).list().getItems().isEmpty());
    assertEquals(3, blocks().size());
  }

  @Test
  void withoutABlockYetTheAddIsTriedAgainLaterAndTheRetrySucceeds() throws Exception {
    startAgent(Duration.ofSeconds(1));
    // CNI 1.1 STATUS: ready before the node has any block (the runtime would not start a pod
    // otherwise)
    assertEquals("", exec(env("STATUS", null, null, null), runtime.conf("1.1.0")).ok().stdout());
    pod("plain", "p1", null);
    Node s1 = t.node("s1");

    JsonNode err = add("c1", s1, "plain", "p1").error(CniException.TRY_AGAIN_LATER);
    assertTrue(err.path("msg").asText().contains("default-pod-pool"), err.toString());
    BlockRequest r =
        client.resources(BlockRequest.class).withName("default-pod-pool-" + NODE).get();
    assertNotNull(r, "the agent asked the controller for a block");
    assertEquals(Set.of(), inPod(s1), "no address in the pod after the failed ADD");
    assertEquals(Set.of(), podRoutesOnNode());
    assertEquals(List.of(), agent.allocations());

    // a /30: two addresses (never the network or broadcast address)
    answer("default-pod-pool", 30);
    String a1 = address(add("c1", s1, "plain", "p1").ok().json(), "198.51.100.0/30");
    assertEquals(Set.of(a1), inPod(s1));
    assertNull(
        client.resources(BlockRequest.class).withName("default-pod-pool-" + NODE).get(),
        "the request is deleted once answered");
    assertEquals(Set.of("default-pod-pool-0"), blocks());
    assertEquals(Set.of("default-pod-pool-0"), adverts());

    pod("plain", "p2", null);
    pod("plain", "p3", null);
    Node s2 = t.node("s2");
    Node s3 = t.node("s3");
    String a2 = address(add("c2", s2, "plain", "p2").ok().json(), "198.51.100.0/30");
    assertEquals(Set.of(a1, a2), podRoutesOnNode());
    // the node's block is full and the controller is slow: try again later, not an IPAM failure
    add("c3", s3, "plain", "p3").error(CniException.TRY_AGAIN_LATER);
    assertNotNull(client.resources(BlockRequest.class).withName("default-pod-pool-" + NODE).get());
    answer("default-pod-pool");
    String a3 = address(add("c3", s3, "plain", "p3").ok().json(), "198.51.100.16/28");
    assertEquals(Set.of(a3), inPod(s3));
    assertEquals(Set.of("default-pod-pool-0", "default-pod-pool-1"), adverts());
  }

  @Test
  void delReleasesTheAddressAndAnEmptyBlockIsGivenBack() throws Exception {
    startAgent(Duration.ofSeconds(30));
    pod("plain", "p1", null);
    pod("plain", "p2", null);
    Node s1 = t.node("s1");
    Node s2 = t.node("s2");
    String a1 =
        address(addAnswering("c1", s1, "plain", "p1", "default-pod-pool"), "198.51.100.0/28");
    String a2 = address(add("c2", s2, "plain", "p2").ok().json(), "198.51.100.0/28");
    assertEquals(Set.of(a1, a2), podRoutesOnNode());

    del("c1", s1, "plain", "p1");
    assertEquals(Set.of(), inPod(s1));
    assertEquals(Set.of(a2), podRoutesOnNode());
    assertEquals(Set.of("default-pod-pool-0"), blocks(), "p2 still uses the block");
    assertEquals(Set.of("default-pod-pool-0"), adverts());

    // the agent restarts: the pod found in the kernel holds its address in the block from the API
    // server
    agent.close();
    agent = null;
    startAgent(Duration.ofSeconds(30));
    assertEquals(1, agent.allocations().size());

    del("c2", s2, "plain", "p2");
    assertEquals(Set.of(), podRoutesOnNode());
    assertEquals(Set.of(), blocks(), "the empty block is given back");
    assertEquals(Set.of(), adverts(), "and no longer announced");
    assertEquals(List.of(), agent.allocations());
    del("c2", s2, "plain", "p2");

    // the next pod needs a block again
    pod("plain", "p3", null);
    Node s3 = t.node("s3");
    String a3 =
        address(addAnswering("c3", s3, "plain", "p3", "default-pod-pool"), "198.51.100.16/28");
    assertEquals(Set.of(a3), inPod(s3));
  }
}
