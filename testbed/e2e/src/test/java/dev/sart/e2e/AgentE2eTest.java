package dev.sart.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.agent.bgp.BgpAgent;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.BGPPeerCondition;
import dev.sart.crds.NodeBGP;
import dev.sart.crds.Sart;
import dev.sart.crds.testing.ControllerObjects;
import dev.sart.crds.testing.MockApiCleanup;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.Route;
import dev.sart.testbed.Router;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.RouterKind;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import dev.sart.testbed.mockapi.EnableMockApi;
import dev.sart.testbed.mockapi.MockKubeconfig;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The node agent (in the test JVM, against fabric8's mock API server in CRUD mode) driving a real
 * {@code sartd bgp} process in a namespace over its gRPC API, peered with FRR: what the agent does
 * is checked in FRR's own table ({@code vtysh ... json}). The test plays sart's controller: it
 * creates the NodeBGP, the BGPPeer and the BGPAdvertisement with the controller's status entries.
 */
@EnableMockApi
class AgentE2eTest {
  static KubernetesClient client;

  private static final String NODE = "worker1";
  private static final String PEER = ControllerObjects.peerName(NODE, 65000, "192.0.2.1");
  private static final Map<String, String> CONNECT_RETRY_1S =
      Map.of("bgppeer.sart.terassyi.net/connect-retry-time", "1");

  @RegisterExtension final Testbed testbed = new Testbed();
  private BgpAgent agent;
  private NamespaceRelay relay;

  @AfterEach
  void stop() throws Exception {
    if (agent != null) {
      agent.close();
    }
    MockApiCleanup.deleteBgpObjects(client);
    if (relay != null) {
      relay.close();
    }
  }

  @Test
  void anAdvertisementBecomesARouteOnFrrIsWithdrawnAndSurvivesASpeakerRestart() throws Exception {
    Topology t = testbed.topology();
    Node s = t.node("sart");
    Node f = t.node("frr");
    t.link(s, f).addresses("192.0.2.2/30", "192.0.2.1/30");
    SartdNode sartd = SartdNode.start(s);
    Router frr = startFrr(f);
    relay = NamespaceRelay.into(s, 5000);

    client
        .resource(ControllerObjects.nodeBgp(NODE, 65001, "192.0.2.2", "127.0.0.1:" + relay.port()))
        .create();
    client
        .resource(ControllerObjects.peer(NODE, 65000, "192.0.2.1", 9L, 3L, CONNECT_RETRY_1S))
        .create();
    agent = new BgpAgent(client, NODE, Duration.ofSeconds(30)).start();

    frr.awaitEstablished("192.0.2.2");
    await("BGPPeer Established")
        .atMost(Duration.ofSeconds(60))
        .until(() -> peerStatus() == BGPPeerCondition.Status.Established);
    assertEquals(
        "9",
        sartd.json("bgp", "neighbor", "get", "192.0.2.1").get("holdTime").asText(),
        "the BGPPeer's holdTime reaches the session (FRR offers 180)");
    assertEquals(
        "sart-agent-export-" + PEER,
        sartd.json("bgp", "neighbor", "get", "192.0.2.1").get("exportPolicy").asText(),
        "the agent's per-peer export policy, as the sart CLI shows it");

    advert("lb-1", "203.0.113.10/32");
    Route r = frr.awaitRoute("203.0.113.10/32");
    assertEquals(List.of(65001L), r.asPath());
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> advertStatus("lb-1").get(PEER) == AdvertiseStatus.Advertised);

    client.resources(BGPAdvertisement.class).inNamespace("default").withName("lb-1").delete();
    frr.awaitNoRoute("203.0.113.10/32");

    advert("pod-block-1", "198.51.100.0/29");
    frr.awaitRoute("198.51.100.0/29");

    // kill -9 the speaker and start a fresh one (AS 0, no peers, no paths): the agent heals it
    ProcessHandle.of(sartd.process.pid()).ifPresent(ProcessHandle::destroyForcibly);
    await().atMost(Duration.ofSeconds(30)).until(() -> !sartd.process.isAlive());
    SartdNode again = SartdNode.start(s);
    await("speaker configured again")
        .atMost(Duration.ofSeconds(60))
        .until(() -> again.json("bgp", "global", "get").get("asn").asLong() == 65001);
    again.awaitEstablished("192.0.2.1");
    frr.awaitRoute("198.51.100.0/29");
    await("NodeBGP backoff")
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> client.resources(NodeBGP.class).withName(NODE).get().getStatus().backoff() == 1L);
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                peerStatus() == BGPPeerCondition.Status.Established
                    && advertStatus("pod-block-1").get(PEER) == AdvertiseStatus.Advertised);
  }

  /**
   * {@code sartd agent} as its own process (host namespace), configured by kubeconfig and flags
   * only.
   */
  @Test
  void sartdAgentAnnouncesAnAdvertisementOnFrr(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    Topology t = testbed.topology();
    Node s = t.node("sart");
    Node f = t.node("frr");
    t.link(s, f).addresses("192.0.2.2/30", "192.0.2.1/30");
    SartdNode.start(s);
    Router frr = startFrr(f);
    relay = NamespaceRelay.into(s, 5000);
    java.nio.file.Path kubeconfig =
        MockKubeconfig.write(dir.resolve("kubeconfig"), client.getConfiguration());
    client.resource(ControllerObjects.nodeBgp(NODE, 65001, "192.0.2.2", "127.0.0.1:5000")).create();
    client.resource(ControllerObjects.peer(NODE, 65000, "192.0.2.1", null, null, null)).create();
    advert("lb-2", "203.0.113.20/32");
    HostAgent agentProcess =
        HostAgent.start(kubeconfig, NODE, "127.0.0.1:" + relay.port(), dir.resolve("agent.log"));
    try {
      // a JVM with fabric8 starts slowly on a busy machine: wait for the agent's first status write
      await("sartd agent configured the speaker")
          .atMost(Duration.ofSeconds(120))
          .until(AgentE2eTest::nodeBgpHasCondition);
      await("BGPPeer Established")
          .atMost(Duration.ofSeconds(60))
          .until(() -> peerStatus() == BGPPeerCondition.Status.Established);
      frr.awaitEstablished("192.0.2.2");
      frr.awaitRoute("203.0.113.20/32");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> advertStatus("lb-2").get(PEER) == AdvertiseStatus.Advertised);
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError("agent log:\n" + agentProcess.log(), e);
    } finally {
      agentProcess.close();
    }
  }

  /**
   * {@code sartd node} (speaker, FIB and agent in one JVM) inside the node's namespace, reaching
   * the mock API server through a relay out of the namespace: an advert becomes a route on FRR, and
   * a route FRR announces lands in the namespace's main table (the FIB's default channel).
   */
  @Test
  void sartdNodeRunsTheSpeakerTheFibAndTheAgentTogether(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    Topology t = testbed.topology();
    Node s = t.node("sart");
    Node f = t.node("frr");
    t.link(s, f).addresses("192.0.2.2/30", "192.0.2.1/30");
    Router frr = startFrr(f, "198.51.100.128/25");
    java.nio.file.Path kubeconfig = kubeconfigInside(s, dir);
    client.resource(ControllerObjects.nodeBgp(NODE, 65001, "192.0.2.2", "127.0.0.1:5000")).create();
    client.resource(ControllerObjects.peer(NODE, 65000, "192.0.2.1", null, null, null)).create();
    advert("lb-3", "203.0.113.30/32");
    dev.sart.testbed.ManagedProcess node =
        s.spawn(
            "sartd-node",
            JavaMains.sartd(
                "node",
                "--kubeconfig",
                kubeconfig.toString(),
                "--node-name",
                NODE,
                "--agent-metrics-address",
                "127.0.0.1:8000"));
    try {
      await("sartd node configured its speaker")
          .atMost(Duration.ofSeconds(120))
          .until(AgentE2eTest::nodeBgpHasCondition);
      frr.awaitEstablished("192.0.2.2");
      frr.awaitRoute("203.0.113.30/32");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> advertStatus("lb-3").get(PEER) == AdvertiseStatus.Advertised);
      await("the agent's endpoint in sartd node ready")
          .atMost(Duration.ofSeconds(30))
          .until(() -> NodeHttp.get(s, "/readyz").code() == 200);
      assertTrue(
          NodeHttp.get(s, "/metrics")
              .body()
              .contains(
                  "sart_agent_bgp_peer_status{peer=\"" + PEER + "\",status=\"Established\"} 1.0"));
      // FRR's route, learned by the speaker, installed by the FIB in the same process
      await("FRR's route in the kernel")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () ->
                  s.exec("ip", "-4", "-o", "route", "show", "table", "main", "proto", "186")
                      .strip(),
              r -> r.startsWith("198.51.100.128/25 via 192.0.2.1 "));
      // the agent (which announced) and the FIB (which installed) reached the speaker's API in
      // process: its TCP port, kept for the CLI, has no connection (DESIGN.md §3)
      assertTrue(
          java.nio.file.Files.readString(node.log()).contains("in_process=true"),
          "the speaker's API is served in process");
      assertEquals(
          "",
          s.exec("ss", "-Htn", "state", "established", "( sport = :5000 or dport = :5000 )")
              .strip(),
          "connections to the speaker's API over TCP");
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError("sartd node log:\n" + node.tail(60), e);
    } finally {
      node.stop();
    }
  }

  /**
   * {@code sartd agent} inside the node's namespace serves /healthz, /readyz and /metrics on
   * 127.0.0.1:8000 there: not ready (and the NodeBGP Unavailable, errors counted) while its speaker
   * is not running; ready once {@code sartd bgp} is up and configured, with the peer's state, the
   * NodeBGP's condition and the passes in sart's metric names.
   */
  @Test
  void sartdAgentServesHealthReadinessAndMetrics(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    Topology t = testbed.topology();
    Node s = t.node("sart");
    Node f = t.node("frr");
    t.link(s, f).addresses("192.0.2.2/30", "192.0.2.1/30");
    Router frr = startFrr(f);
    java.nio.file.Path kubeconfig = kubeconfigInside(s, dir);
    client.resource(ControllerObjects.nodeBgp(NODE, 65001, "192.0.2.2", "127.0.0.1:5000")).create();
    client
        .resource(ControllerObjects.peer(NODE, 65000, "192.0.2.1", null, null, CONNECT_RETRY_1S))
        .create();
    dev.sart.testbed.ManagedProcess agentProcess =
        s.spawn(
            "sartd-agent",
            JavaMains.sartd(
                "agent", "--mode=lb", "--kubeconfig", kubeconfig.toString(), "--node-name", NODE));
    try {
      await("sartd agent serves /healthz")
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(500))
          .failFast("sartd agent exited", () -> !agentProcess.isAlive())
          .until(() -> NodeHttp.get(s, "/healthz").code() == 200);
      // no speaker yet: the NodeBGP says so, the agent is not ready and counts failed passes
      await("NodeBGP Unavailable")
          .atMost(Duration.ofSeconds(60))
          .until(AgentE2eTest::nodeBgpHasCondition);
      assertEquals(503, NodeHttp.get(s, "/readyz").code(), "ready without a speaker");
      // the pass that wrote the status ends after it (the BGPPeer's status too): then it is counted
      await("a failed pass counted")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () ->
                  NodeHttp.metric(
                          NodeHttp.get(s, "/metrics").body(),
                          "sart_agent_reconciliation_errors_total{instance=\"worker1\",resource=\"bgp\"}")
                      >= 1);
      String m = NodeHttp.get(s, "/metrics").body();
      assertTrue(
          m.contains("sart_agent_node_bgp_status{name=\"worker1\",status=\"Unavailable\"} 1.0"), m);

      // the speaker starts: configured, peered, ready
      SartdNode.start(s);
      await("sartd agent ready")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> NodeHttp.get(s, "/readyz").code() == 200);
      frr.awaitEstablished("192.0.2.2");
      await("peer state in the metrics")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () ->
                  NodeHttp.get(s, "/metrics")
                      .body()
                      .contains(
                          "sart_agent_bgp_peer_status{peer=\""
                              + PEER
                              + "\",status=\"Established\"} 1.0"));
      m = NodeHttp.get(s, "/metrics").body();
      assertTrue(
          m.contains("sart_agent_node_bgp_status{name=\"worker1\",status=\"Available\"} 1.0"), m);
      assertEquals(
          0.0, NodeHttp.metric(m, "sart_agent_node_bgp_backoff_count_total{name=\"worker1\"}"), m);
      assertTrue(
          NodeHttp.metric(
                  m, "sart_agent_reconciliation_total{instance=\"worker1\",resource=\"bgp\"}")
              >= 2,
          m);
      assertTrue(m.contains("sart_agent_reconcile_duration_seconds_bucket{"), m);
      assertTrue(
          m.contains("jvm_memory_used_bytes"),
          "the JVM's meters, as sartd bgp's endpoint has them");
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError("sartd agent log:\n" + agentProcess.tail(60), e);
    } finally {
      agentProcess.stop();
    }
  }

  /**
   * {@code sartd agent --cni-config} (addresses from this node's AddressBlocks): the block's
   * BGPAdvertisement lists a BGPPeer added to the node at once, not at the next resync (300 s
   * here).
   */
  @Test
  void sartdAgentListsANewPeerInTheBlockAdvertisementAtOnce(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    Topology t = testbed.topology();
    Node s = t.node("sart");
    java.nio.file.Path kubeconfig = kubeconfigInside(s, dir);
    java.nio.file.Path cni =
        java.nio.file.Files.writeString(
            dir.resolve("cni.json"),
            "{\"socket\": \"" + dir.resolve("sart.sock") + "\", \"nodeAddress4\": \"192.0.2.2\"}");
    client.resource(ControllerObjects.nodeBgp(NODE, 65001, "192.0.2.2", "127.0.0.1:5000")).create();
    client.resource(ControllerObjects.peer(NODE, 65000, "192.0.2.1", null, null, null)).create();
    dev.sart.crds.AddressBlock block =
        new dev.sart.crds.AddressBlock(
            "pod-pool-0",
            new dev.sart.crds.AddressBlockSpec(
                "198.51.100.0/28", dev.sart.crds.AddressType.POD, "pod-pool", NODE, null));
    block
        .getMetadata()
        .setLabels(
            Map.of(Sart.ADDRESS_BLOCK_NODE_LABEL, NODE, Sart.ADDRESS_POOL_LABEL, "pod-pool"));
    client.resource(block).create();
    dev.sart.testbed.ManagedProcess agentProcess =
        s.spawn(
            "sartd-agent",
            JavaMains.sartd(
                "agent",
                "--mode=cni",
                "--kubeconfig",
                kubeconfig.toString(),
                "--node-name",
                NODE,
                "--cni-config",
                cni.toString(),
                "--resync",
                "300"));
    try {
      await("the block's advertisement")
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(500))
          .failFast("sartd agent exited", () -> !agentProcess.isAlive())
          .until(() -> blockAdvertPeers().equals(Map.of(PEER, AdvertiseStatus.NotAdvertised)));
      String second = ControllerObjects.peerName(NODE, 65003, "192.0.2.9");
      client.resource(ControllerObjects.peer(NODE, 65003, "192.0.2.9", null, null, null)).create();
      await("the new peer in the block's advertisement")
          .atMost(Duration.ofSeconds(15))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> blockAdvertPeers().containsKey(second));
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError("sartd agent log:\n" + agentProcess.tail(60), e);
    } finally {
      agentProcess.stop();
      client
          .resources(dev.sart.crds.AddressBlock.class)
          .list()
          .getItems()
          .forEach(
              b ->
                  client
                      .resource(b)
                      .edit(
                          c -> {
                            c.getMetadata().getFinalizers().clear();
                            return c;
                          }));
      client.resources(dev.sart.crds.AddressBlock.class).delete();
    }
  }

  private static Map<String, AdvertiseStatus> blockAdvertPeers() {
    BGPAdvertisement a =
        client
            .resources(BGPAdvertisement.class)
            .inNamespace("kube-system")
            .withName("pod-pool-0")
            .get();
    return a == null || a.getStatus() == null || a.getStatus().peers() == null
        ? Map.of()
        : a.getStatus().peers();
  }

  /**
   * FRR in {@code f}: AS 65000 at 192.0.2.1, peering with AS 65001 at 192.0.2.2 (the node),
   * announcing {@code originate}.
   */
  private static Router startFrr(Node f, String... originate) {
    return RouterKind.FRR
        .create(
            f,
            RouterConfig.of(65000, "192.0.2.1")
                .neighbor(Neighbor.of("192.0.2.2", 65001))
                .originate(originate))
        .start();
  }

  /**
   * A kubeconfig in {@code dir} for a process inside the node: the mock API server reached through
   * a relay out of the node's namespace.
   */
  private java.nio.file.Path kubeconfigInside(Node node, java.nio.file.Path dir)
      throws java.io.IOException {
    java.net.URI api = java.net.URI.create(client.getConfiguration().getMasterUrl());
    relay = NamespaceRelay.outOf(node, api.getPort());
    // the relay carries TLS through: the mock's certificate names 127.0.0.1
    return MockKubeconfig.write(
        dir.resolve("kubeconfig"),
        "https://127.0.0.1:" + relay.port(),
        client.getConfiguration().getCaCertData());
  }

  /** The agent wrote the NodeBGP's status: it has reached (or failed to reach) its speaker. */
  private static boolean nodeBgpHasCondition() {
    NodeBGP nb = client.resources(NodeBGP.class).withName(NODE).get();
    return nb.getStatus() != null
        && nb.getStatus().conditions() != null
        && !nb.getStatus().conditions().isEmpty();
  }

  private static BGPPeerCondition.Status peerStatus() {
    BGPPeer p = client.resources(BGPPeer.class).withName(PEER).get();
    if (p.getStatus() == null
        || p.getStatus().conditions() == null
        || p.getStatus().conditions().isEmpty()) {
      return null;
    }
    return p.getStatus().conditions().getLast().status();
  }

  /** The Service's advertisement as the controller makes it: to be announced to the peer. */
  private static void advert(String name, String cidr) {
    ControllerObjects.advert(
        client, "default", name, cidr, Map.of(PEER, AdvertiseStatus.NotAdvertised));
  }

  private static Map<String, AdvertiseStatus> advertStatus(String name) {
    BGPAdvertisement a =
        client.resources(BGPAdvertisement.class).inNamespace("default").withName(name).get();
    return a.getStatus() == null || a.getStatus().peers() == null
        ? Map.of()
        : a.getStatus().peers();
  }
}
