package dev.sart.e2e;

import static dev.sart.e2e.PodNodes.N1;
import static dev.sart.e2e.PodNodes.N2;
import static dev.sart.e2e.PodNodes.peerName;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.agent.bgp.BgpAgent;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPAdvertisementStatus;
import dev.sart.testbed.Node;
import dev.sart.testbed.Shell;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import dev.sart.testbed.mockapi.EnableMockApi;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
@EnableMockApi
class CrossNodePodTest {
  static KubernetesClient client;

  private static final int BGP_PROTOCOL = 186;

  @RegisterExtension final Testbed testbed = new Testbed();

  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : closing.reversed()) {
      c.close();
    }
    PodNodes.deleteAll(client);
  }

  /**
   * The BGP side of the node's agent: configures the speaker, its peer, and announces the block.
   */
  private void startBgpAgent(PodNodes.Member self, String speaker) {
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
    PodNodes.createClusterObjects(client);
    String speaker1 = "127.0.0.1:" + PodNodes.startNode(client, N1, n1, closing).port();
    String speaker2 = "127.0.0.1:" + PodNodes.startNode(client, N2, n2, closing).port();

    String a = PodNodes.addPod(client, N1, n1, podA, "a1b2c3d4e5f6", "pod-a");
    String b = PodNodes.addPod(client, N2, n2, podB, "f6e5d4c3b2a1", "pod-b");
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
        .withName(PodNodes.blockName(N2))
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

  private static Map<String, AdvertiseStatus> status(PodNodes.Member m) {
    BGPAdvertisement a =
        client
            .resources(BGPAdvertisement.class)
            .inNamespace("kube-system")
            .withName(PodNodes.blockName(m))
            .get();
    return a == null || a.getStatus() == null || a.getStatus().peers() == null
        ? Map.of()
        : a.getStatus().peers();
  }
}
