package dev.sart.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.agent.bgp.BgpAgent;
import dev.sart.agent.cni.AgentConfig;
import dev.sart.agent.cni.CniAgent;
import dev.sart.agent.kube.BlockSource;
import dev.sart.agent.kube.KubeIpam;
import dev.sart.agent.kube.PoolSelector;
import dev.sart.crds.AddressBlock;
import dev.sart.crds.AddressBlockSpec;
import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressPoolSpec;
import dev.sart.crds.AddressType;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPAdvertisementStatus;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.BGPPeerSpec;
import dev.sart.crds.NodeBGP;
import dev.sart.crds.NodeBGPSpec;
import dev.sart.crds.Sart;
import dev.sart.crds.SpeakerConfig;
import dev.sart.testbed.Node;
import dev.sart.testbed.Programs;
import dev.sart.testbed.Shell;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Pod-to-pod traffic across two "nodes" with no overlay (DESIGN.md §1): two node namespaces joined
 * by a routed link, each with its own {@code sartd bgp} and {@code sartd fib} processes and the
 * node agent (in the test JVM, against fabric8's mock API server in CRUD mode: BGP side and CNI
 * server with this node's AddressBlocks). A pod is made on each node by the sart-cni plugin's main
 * executed as a runtime executes a plugin (environment + netconf on stdin). The agent announces
 * each node's block to the other node's speaker, that speaker's FIB installs the route into the
 * kernel, and a real ping goes from the pod on one node to the pod on the other.
 *
 * <p>The nodes peer directly (eBGP over the link) rather than through a ToR router in a third
 * namespace: the link is the fabric, a ToR would only add a daemon's start-up to the run time, and
 * the speaker's interoperation with FRR as a peer is covered by {@link AgentE2eTest} and {@link
 * FibInstallTest}. The learned block goes into the main table (254), as sart's CNI set-up does;
 * table 120 keeps only the agent's own routes to local pods (its start-up recovery owns them), and
 * its rule (pref 2000) falls through to the main table for everything else.
 */
@EnableKubernetesMockClient(crud = true)
class CrossNodePodTest {
  static KubernetesClient client;

  private static final String JAVA = ProcessHandle.current().info().command().orElse("java");
  private static final String POOL = "default-pod-pool";

  /** node name, its link address (also the pods' gateway), AS, its pod block. */
  private record Member(String name, String address, long asn, String block) {}

  private static final Member N1 = new Member("node1", "192.0.2.1", 65001, "198.51.100.0/28");
  private static final Member N2 = new Member("node2", "192.0.2.2", 65002, "198.51.100.16/28");
  private static final int BGP_PROTOCOL = 186;

  private static final String FIB_CONFIG =
      """
      endpoint: 127.0.0.1:5001
      channels:
        - name: bgp-to-kernel
          subscribers:
            - protocol: bgp
              endpoint: 127.0.0.1:5000
          publishers:
            - protocol: kernel
              tables: [254]
      """;

  @RegisterExtension final Testbed testbed = new Testbed();

  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : closing.reversed()) {
      c.close();
    }
    client.resources(BGPAdvertisement.class).inAnyNamespace().delete();
    client
        .resources(BGPPeer.class)
        .list()
        .getItems()
        .forEach(
            p ->
                client
                    .resource(p)
                    .edit(
                        c -> {
                          c.getMetadata().getFinalizers().clear();
                          return c;
                        }));
    client.resources(BGPPeer.class).delete();
    client
        .resources(NodeBGP.class)
        .list()
        .getItems()
        .forEach(
            n ->
                client
                    .resource(n)
                    .edit(
                        c -> {
                          c.getMetadata().getFinalizers().clear(); // the agent's
                          return c;
                        }));
    client.resources(NodeBGP.class).delete();
    client.resources(AddressBlock.class).delete();
    client.resources(AddressPool.class).delete();
    client.pods().inAnyNamespace().delete();
  }

  private static String peerName(Member self, Member other) {
    return self.name() + "-" + other.asn() + "-" + other.address();
  }

  /**
   * What sart's controller would have made for {@code self}: NodeBGP, a BGPPeer to the other node,
   * its block.
   */
  private static void cluster(Member self, Member other, int index) {
    client
        .resource(
            new NodeBGP(
                self.name(),
                new NodeBGPSpec(
                    self.asn(),
                    self.address(),
                    new SpeakerConfig("127.0.0.1:5000", 5L, false),
                    null)))
        .create();
    BGPPeer peer =
        new BGPPeer(
            peerName(self, other),
            new BGPPeerSpec(
                other.asn(),
                other.address(),
                9L,
                3L,
                null,
                self.name(),
                null,
                new SpeakerConfig("127.0.0.1:5000", null, null),
                null));
    peer.getMetadata().setLabels(Map.of(Sart.BGP_PEER_NODE_LABEL, self.name()));
    peer.getMetadata().setAnnotations(Map.of("bgppeer.sart.terassyi.net/connect-retry-time", "1"));
    client.resource(peer).create();
    AddressBlock b =
        new AddressBlock(
            POOL + "-" + index,
            new AddressBlockSpec(self.block(), AddressType.POD, POOL, self.name(), null));
    b.getMetadata()
        .setLabels(
            Map.of(Sart.ADDRESS_BLOCK_NODE_LABEL, self.name(), Sart.ADDRESS_POOL_LABEL, POOL));
    client.resource(b).create();
  }

  /**
   * The node's daemons and the CNI side of its agent (which makes the block's BGPAdvertisement at
   * start-up); returns the speaker's API as reached from the test JVM.
   */
  private String startNode(Member self, Node node) throws Exception {
    SartdNode.start(node);
    FibNode.start(node, FIB_CONFIG, "sartd-fib");
    NamespaceRelay relay = NamespaceRelay.into(node, 5000);
    closing.add(relay);
    AgentConfig config =
        AgentConfig.of(
            node.dir().resolve("sart.sock"),
            Path.of("/var/run/netns", node.netns()),
            self.address(),
            null,
            List.of(),
            null);
    closing.add(
        CniAgent.start(
            config,
            new KubeIpam(
                new BlockSource(client, self.name(), Duration.ofSeconds(10)),
                new PoolSelector(client))));
    return "127.0.0.1:" + relay.port();
  }

  /**
   * The BGP side of the node's agent: configures the speaker, its peer, and announces the block.
   */
  private void startBgpAgent(Member self, String speaker) {
    closing.add(new BgpAgent(client, self.name(), Duration.ofSeconds(30), speaker).start());
  }

  @Test
  void aPodPingsAPodOnTheOtherNodeOnceTheBlocksAreAnnouncedAndNotAfterTheWithdrawal()
      throws Exception {
    Topology t = testbed.topology();
    Node n1 = t.node("node1");
    Node n2 = t.node("node2");
    Node podA = t.node("poda");
    Node podB = t.node("podb");
    t.link(n1, n2).addresses(N1.address() + "/30", N2.address() + "/30");
    client
        .resource(
            new AddressPool(
                POOL, new AddressPoolSpec("198.51.100.0/24", AddressType.POD, 28, true)))
        .create();
    cluster(N1, N2, 0);
    cluster(N2, N1, 1);
    String speaker1 = startNode(N1, n1);
    String speaker2 = startNode(N2, n2);

    String a = add(n1, podA, "a1b2c3d4e5f6", "pod-a");
    String b = add(n2, podB, "f6e5d4c3b2a1", "pod-b");
    assertTrue(
        a.startsWith("198.51.100.") && Integer.parseInt(a.substring(11)) < 16,
        a + " is not in " + N1.block());
    assertTrue(
        b.startsWith("198.51.100.") && Integer.parseInt(b.substring(11)) >= 16,
        b + " is not in " + N2.block());
    // the speakers are not configured yet (AS 0, no peer): nothing is announced
    assertEquals("", learned(n1), "no route to node2's pods yet");
    assertFalse(ping(podA, b), "pod A reached pod B before any route was announced");

    // the BGP side of the agents: speakers configured, nodes peered, each block announced
    startBgpAgent(N1, speaker1);
    startBgpAgent(N2, speaker2);
    await("node1 learned node2's block")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> learned(n1).equals(N2.block() + " via " + N2.address()));
    await("node2 learned node1's block")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> learned(n2).equals(N1.block() + " via " + N1.address()));
    await("pod A pings pod B")
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofSeconds(1))
        .until(() -> ping(podA, b));
    assertTrue(ping(podB, a), "pod B pings pod A");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> status(N2).get(peerName(N2, N1)) == AdvertiseStatus.Advertised);

    // the controller withdraws node2's block from its peer: node1 loses the route, the ping fails
    client
        .resources(BGPAdvertisement.class)
        .inNamespace("kube-system")
        .withName(POOL + "-1")
        .editStatus(
            x -> {
              x.setStatus(
                  new BGPAdvertisementStatus(Map.of(peerName(N2, N1), AdvertiseStatus.Withdraw)));
              return x;
            });
    await("node1 forgot node2's block")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> learned(n1).isEmpty());
    assertTrue(
        podB.exec("ip", "-4", "-o", "addr", "show", "dev", "eth0").contains(b + "/32"),
        "pod B keeps its address");
    assertFalse(ping(podA, b), "pod A still reached pod B after the withdrawal");
    assertEquals(N1.block() + " via " + N1.address(), learned(n2), "node2 keeps node1's block");
  }

  /** ADD through the plugin; the pod's IPv4 address from the result. */
  private static String add(Node node, Node pod, String containerId, String podName)
      throws Exception {
    client
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withNamespace("default")
                .withName(podName)
                .endMetadata()
                .build())
        .create();
    String conf =
        "{\"cniVersion\":\"1.0.0\",\"name\":\"sart-network\",\"type\":\"sart-cni\",\"endpoint\":\""
            + node.dir().resolve("sart.sock")
            + "\",\"timeout\":60}";
    Map<String, String> env =
        Map.of(
            "CNI_COMMAND",
            "ADD",
            "CNI_CONTAINERID",
            containerId,
            "CNI_NETNS",
            "/var/run/netns/" + pod.netns(),
            "CNI_IFNAME",
            "eth0",
            "CNI_PATH",
            "/opt/cni/bin",
            "CNI_ARGS",
            "IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME="
                + podName
                + ";K8S_POD_INFRA_CONTAINER_ID="
                + containerId);
    String out = plugin(env, conf);
    JsonNode result = new ObjectMapper().readTree(out);
    List<String> ips = result.path("ips").findValuesAsText("address");
    assertEquals(1, ips.size(), out);
    return ips.getFirst().split("/")[0];
  }

  /**
   * The plugin's main ({@code dev.sart.cni.SartCni}, what sart-cni's launcher runs) executed as a
   * runtime executes a plugin: only the CNI_* environment, the netconf on stdin, the result on
   * stdout.
   */
  private static String plugin(Map<String, String> env, String stdin) throws Exception {
    ProcessBuilder pb =
        Programs.processBuilder(
            JAVA,
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-cp",
            System.getProperty("java.class.path"),
            "dev.sart.cni.SartCni");
    pb.environment().clear();
    pb.environment().put("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
    pb.environment().putAll(env);
    pb.redirectError(ProcessBuilder.Redirect.INHERIT);
    Process p = pb.start();
    try (OutputStream in = p.getOutputStream()) {
      in.write(stdin.getBytes(StandardCharsets.UTF_8));
    }
    String out;
    try (InputStream o = p.getInputStream()) {
      out = new String(o.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the plugin did not finish");
    assertEquals(0, p.exitValue(), "sart-cni " + env.get("CNI_COMMAND") + ": " + out);
    return out;
  }

  /**
   * The BGP routes (protocol 186) in the node's main table, as {@code ip} prints them: "dst via
   * gw", one a line.
   */
  private static String learned(Node node) throws IOException {
    String text =
        node.exec(
                "ip",
                "-4",
                "-j",
                "route",
                "show",
                "table",
                "main",
                "proto",
                Integer.toString(BGP_PROTOCOL))
            .strip();
    List<String> out = new ArrayList<>();
    for (JsonNode r : new ObjectMapper().readTree(text.isEmpty() ? "[]" : text)) {
      out.add(r.get("dst").asText() + " via " + r.path("gateway").asText());
    }
    return String.join("\n", out);
  }

  /**
   * One echo answered out of three (a lost first packet while the neighbour is resolved is normal).
   */
  private static boolean ping(Node from, String to) {
    Shell.Result r = from.tryExec("ping", "-n", "-c", "3", "-i", "0.2", "-W", "1", to);
    return r.ok();
  }

  private static Map<String, AdvertiseStatus> status(Member m) {
    BGPAdvertisement a =
        client
            .resources(BGPAdvertisement.class)
            .inNamespace("kube-system")
            .withName(POOL + "-" + (m == N1 ? 0 : 1))
            .get();
    return a == null || a.getStatus() == null || a.getStatus().peers() == null
        ? Map.of()
        : a.getStatus().peers();
  }
}
