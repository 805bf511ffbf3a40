package dev.sart.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.agent.bgp.BgpAgent;
import dev.sart.crds.AddressType;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPAdvertisementSpec;
import dev.sart.crds.BGPAdvertisementStatus;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.BGPPeerCondition;
import dev.sart.crds.BGPPeerSpec;
import dev.sart.crds.NodeBGP;
import dev.sart.crds.NodeBGPSpec;
import dev.sart.crds.Protocol;
import dev.sart.crds.Sart;
import dev.sart.crds.SpeakerConfig;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.Programs;
import dev.sart.testbed.Route;
import dev.sart.testbed.Router;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.RouterKind;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
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
@EnableKubernetesMockClient(crud = true)
class AgentE2eTest {
  static KubernetesClient client;

  private static final String NODE = "worker1";
  private static final String PEER = NODE + "-65000-192.0.2.1";

  @RegisterExtension final Testbed testbed = new Testbed();
  private BgpAgent agent;
  private NamespaceRelay relay;

  @AfterEach
  void stop() throws Exception {
    if (agent != null) {
      agent.close();
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
    Router frr =
        RouterKind.FRR
            .create(
                f, RouterConfig.of(65000, "192.0.2.1").neighbor(Neighbor.of("192.0.2.2", 65001)))
            .start();
    relay = NamespaceRelay.into(s, 5000);

    client
        .resource(
            new NodeBGP(
                NODE,
                new NodeBGPSpec(
                    65001L,
                    "192.0.2.2",
                    new SpeakerConfig("127.0.0.1:" + relay.port(), 5L, false),
                    null)))
        .create();
    BGPPeer peer =
        new BGPPeer(
            PEER,
            new BGPPeerSpec(
                65000L,
                "192.0.2.1",
                9L,
                3L,
                null,
                NODE,
                null,
                new SpeakerConfig("127.0.0.1:5000", null, null),
                null));
    peer.getMetadata().setLabels(Map.of(Sart.BGP_PEER_NODE_LABEL, NODE));
    peer.getMetadata().setAnnotations(Map.of("bgppeer.sart.terassyi.net/connect-retry-time", "1"));
    client.resource(peer).create();
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
    Router frr =
        RouterKind.FRR
            .create(
                f, RouterConfig.of(65000, "192.0.2.1").neighbor(Neighbor.of("192.0.2.2", 65001)))
            .start();
    relay = NamespaceRelay.into(s, 5000);
    java.nio.file.Path kubeconfig = dir.resolve("kubeconfig");
    java.nio.file.Files.writeString(
        kubeconfig,
        String.join(
            "\n",
            "apiVersion: v1",
            "kind: Config",
            "clusters:",
            "- name: mock",
            "  cluster:",
            "    server: " + client.getConfiguration().getMasterUrl(),
            "    insecure-skip-tls-verify: true",
            "users:",
            "- name: agent",
            "  user:",
            "    token: test",
            "contexts:",
            "- name: mock",
            "  context:",
            "    cluster: mock",
            "    user: agent",
            "current-context: mock",
            ""));
    client
        .resource(
            new NodeBGP(
                NODE,
                new NodeBGPSpec(
                    65001L, "192.0.2.2", new SpeakerConfig("127.0.0.1:5000", 5L, false), null)))
        .create();
    BGPPeer peer =
        new BGPPeer(
            PEER,
            new BGPPeerSpec(
                65000L,
                "192.0.2.1",
                null,
                null,
                null,
                NODE,
                null,
                new SpeakerConfig("127.0.0.1:5000", null, null),
                null));
    peer.getMetadata().setLabels(Map.of(Sart.BGP_PEER_NODE_LABEL, NODE));
    client.resource(peer).create();
    advert("lb-2", "203.0.113.20/32");
    Process agentProcess =
        Programs.processBuilder(
                ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.sart.sartd.Sartd",
                "agent",
                "--mode=lb",
                "--kubeconfig",
                kubeconfig.toString(),
                "--node-name",
                NODE,
                "--speaker-endpoint",
                "127.0.0.1:" + relay.port(),
                "--metrics-address",
                "127.0.0.1:0")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("agent.log").toFile())
            .start();
    try {
      // a JVM with fabric8 starts slowly on a busy machine: wait for the agent's first status write
      await("sartd agent configured the speaker")
          .atMost(Duration.ofSeconds(120))
          .until(
              () -> {
                NodeBGP nb = client.resources(NodeBGP.class).withName(NODE).get();
                return nb.getStatus() != null
                    && nb.getStatus().conditions() != null
                    && !nb.getStatus().conditions().isEmpty();
              });
      await("BGPPeer Established")
          .atMost(Duration.ofSeconds(60))
          .until(() -> peerStatus() == BGPPeerCondition.Status.Established);
      frr.awaitEstablished("192.0.2.2");
      frr.awaitRoute("203.0.113.20/32");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> advertStatus("lb-2").get(PEER) == AdvertiseStatus.Advertised);
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError(
          "agent log:\n" + java.nio.file.Files.readString(dir.resolve("agent.log")), e);
    } finally {
      agentProcess.destroy();
      if (!agentProcess.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
        agentProcess.destroyForcibly();
      }
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
    Router frr =
        RouterKind.FRR
            .create(
                f,
                RouterConfig.of(65000, "192.0.2.1")
                    .neighbor(Neighbor.of("192.0.2.2", 65001))
                    .originate("198.51.100.128/25"))
            .start();
    relay =
        NamespaceRelay.outOf(
            s, java.net.URI.create(client.getConfiguration().getMasterUrl()).getPort());
    java.nio.file.Path kubeconfig = kubeconfig(dir, "https://127.0.0.1:" + relay.port());
    client
        .resource(
            new NodeBGP(
                NODE,
                new NodeBGPSpec(
                    65001L, "192.0.2.2", new SpeakerConfig("127.0.0.1:5000", 5L, false), null)))
        .create();
    BGPPeer peer =
        new BGPPeer(
            PEER,
            new BGPPeerSpec(
                65000L,
                "192.0.2.1",
                null,
                null,
                null,
                NODE,
                null,
                new SpeakerConfig("127.0.0.1:5000", null, null),
                null));
    peer.getMetadata().setLabels(Map.of(Sart.BGP_PEER_NODE_LABEL, NODE));
    client.resource(peer).create();
    advert("lb-3", "203.0.113.30/32");
    dev.sart.testbed.ManagedProcess node =
        s.spawn(
            "sartd-node",
            List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.sart.sartd.Sartd",
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
          .until(
              () -> {
                NodeBGP nb = client.resources(NodeBGP.class).withName(NODE).get();
                return nb.getStatus() != null
                    && nb.getStatus().conditions() != null
                    && !nb.getStatus().conditions().isEmpty();
              });
      frr.awaitEstablished("192.0.2.2");
      frr.awaitRoute("203.0.113.30/32");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> advertStatus("lb-3").get(PEER) == AdvertiseStatus.Advertised);
      await("the agent's endpoint in sartd node ready")
          .atMost(Duration.ofSeconds(30))
          .until(() -> http(s, "/readyz").code() == 200);
      assertTrue(
          http(s, "/metrics")
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
    Router frr =
        RouterKind.FRR
            .create(
                f, RouterConfig.of(65000, "192.0.2.1").neighbor(Neighbor.of("192.0.2.2", 65001)))
            .start();
    relay =
        NamespaceRelay.outOf(
            s, java.net.URI.create(client.getConfiguration().getMasterUrl()).getPort());
    java.nio.file.Path kubeconfig = kubeconfig(dir, "https://127.0.0.1:" + relay.port());
    client
        .resource(
            new NodeBGP(
                NODE,
                new NodeBGPSpec(
                    65001L, "192.0.2.2", new SpeakerConfig("127.0.0.1:5000", 5L, false), null)))
        .create();
    BGPPeer peer =
        new BGPPeer(
            PEER,
            new BGPPeerSpec(
                65000L,
                "192.0.2.1",
                null,
                null,
                null,
                NODE,
                null,
                new SpeakerConfig("127.0.0.1:5000", null, null),
                null));
    peer.getMetadata().setLabels(Map.of(Sart.BGP_PEER_NODE_LABEL, NODE));
    peer.getMetadata().setAnnotations(Map.of("bgppeer.sart.terassyi.net/connect-retry-time", "1"));
    client.resource(peer).create();
    dev.sart.testbed.ManagedProcess agentProcess =
        s.spawn(
            "sartd-agent",
            List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.sart.sartd.Sartd",
                "agent",
                "--mode=lb",
                "--kubeconfig",
                kubeconfig.toString(),
                "--node-name",
                NODE));
    try {
      await("sartd agent serves /healthz")
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(500))
          .failFast("sartd agent exited", () -> !agentProcess.isAlive())
          .until(() -> http(s, "/healthz").code() == 200);
      // no speaker yet: the NodeBGP says so, the agent is not ready and counts failed passes
      await("NodeBGP Unavailable")
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                NodeBGP nb = client.resources(NodeBGP.class).withName(NODE).get();
                return nb.getStatus() != null
                    && nb.getStatus().conditions() != null
                    && !nb.getStatus().conditions().isEmpty();
              });
      assertEquals(503, http(s, "/readyz").code(), "ready without a speaker");
      // the pass that wrote the status ends after it (the BGPPeer's status too): then it is counted
      await("a failed pass counted")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () ->
                  metric(
                          http(s, "/metrics").body(),
                          "sart_agent_reconciliation_errors_total{instance=\"worker1\",resource=\"bgp\"}")
                      >= 1);
      String m = http(s, "/metrics").body();
      assertTrue(
          m.contains("sart_agent_node_bgp_status{name=\"worker1\",status=\"Unavailable\"} 1.0"), m);

      // the speaker starts: configured, peered, ready
      SartdNode.start(s);
      await("sartd agent ready")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> http(s, "/readyz").code() == 200);
      frr.awaitEstablished("192.0.2.2");
      await("peer state in the metrics")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () ->
                  http(s, "/metrics")
                      .body()
                      .contains(
                          "sart_agent_bgp_peer_status{peer=\""
                              + PEER
                              + "\",status=\"Established\"} 1.0"));
      m = http(s, "/metrics").body();
      assertTrue(
          m.contains("sart_agent_node_bgp_status{name=\"worker1\",status=\"Available\"} 1.0"), m);
      assertEquals(0.0, metric(m, "sart_agent_node_bgp_backoff_count_total{name=\"worker1\"}"), m);
      assertTrue(
          metric(m, "sart_agent_reconciliation_total{instance=\"worker1\",resource=\"bgp\"}") >= 2,
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
    relay =
        NamespaceRelay.outOf(
            s, java.net.URI.create(client.getConfiguration().getMasterUrl()).getPort());
    java.nio.file.Path kubeconfig = kubeconfig(dir, "https://127.0.0.1:" + relay.port());
    java.nio.file.Path cni =
        java.nio.file.Files.writeString(
            dir.resolve("cni.json"),
            "{\"socket\": \"" + dir.resolve("sart.sock") + "\", \"nodeAddress4\": \"192.0.2.2\"}");
    client
        .resource(
            new NodeBGP(
                NODE,
                new NodeBGPSpec(
                    65001L, "192.0.2.2", new SpeakerConfig("127.0.0.1:5000", 5L, false), null)))
        .create();
    client.resource(peer(PEER, 65000L, "192.0.2.1")).create();
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
            List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.sart.sartd.Sartd",
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
      String second = NODE + "-65003-192.0.2.9";
      client.resource(peer(second, 65003L, "192.0.2.9")).create();
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

  private static BGPPeer peer(String name, long asn, String addr) {
    BGPPeer p =
        new BGPPeer(
            name,
            new BGPPeerSpec(
                asn,
                addr,
                null,
                null,
                null,
                NODE,
                null,
                new SpeakerConfig("127.0.0.1:5000", null, null),
                null));
    p.getMetadata().setLabels(Map.of(Sart.BGP_PEER_NODE_LABEL, NODE));
    return p;
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

  private record Http(int code, String body) {}

  /** GET http://127.0.0.1:8000/path inside the node (the agent listens on the node's loopback). */
  private static Http http(Node node, String path) throws Exception {
    java.util.concurrent.ExecutorService ex =
        java.util.concurrent.Executors.newSingleThreadExecutor(
            dev.sart.testbed.NamespaceThreads.factory(node, "http"));
    try {
      return ex.submit(
              () -> {
                java.net.HttpURLConnection c =
                    (java.net.HttpURLConnection)
                        java.net
                            .URI
                            .create("http://127.0.0.1:8000" + path)
                            .toURL()
                            .openConnection();
                try {
                  int code = c.getResponseCode();
                  java.io.InputStream in = code < 400 ? c.getInputStream() : c.getErrorStream();
                  return new Http(
                      code,
                      in == null
                          ? ""
                          : new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
                } catch (java.io.IOException e) {
                  return new Http(-1, e.toString());
                } finally {
                  c.disconnect();
                }
              })
          .get();
    } finally {
      ex.shutdownNow();
    }
  }

  /** The value of one series in a Prometheus exposition (NaN when absent). */
  private static double metric(String exposition, String series) {
    return exposition
        .lines()
        .filter(l -> l.startsWith(series + " "))
        .mapToDouble(l -> Double.parseDouble(l.substring(series.length() + 1).strip()))
        .findFirst()
        .orElse(Double.NaN);
  }

  private static java.nio.file.Path kubeconfig(java.nio.file.Path dir, String server)
      throws java.io.IOException {
    return java.nio.file.Files.writeString(
        dir.resolve("kubeconfig"),
        String.join(
            "\n",
            "apiVersion: v1",
            "kind: Config",
            "clusters:",
            "- name: mock",
            "  cluster:",
            "    server: " + server,
            "    insecure-skip-tls-verify: true",
            "users:",
            "- name: agent",
            "  user:",
            "    token: test",
            "contexts:",
            "- name: mock",
            "  context:",
            "    cluster: mock",
            "    user: agent",
            "current-context: mock",
            ""));
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

  private static void advert(String name, String cidr) {
    client
        .resource(
            new BGPAdvertisement(
                "default",
                name,
                new BGPAdvertisementSpec(cidr, AddressType.SERVICE, Protocol.IPV4, null)))
        .create();
    client
        .resources(BGPAdvertisement.class)
        .inNamespace("default")
        .withName(name)
        .editStatus(
            a -> {
              a.setStatus(new BGPAdvertisementStatus(Map.of(PEER, AdvertiseStatus.NotAdvertised)));
              return a;
            });
  }

  private static Map<String, AdvertiseStatus> advertStatus(String name) {
    BGPAdvertisement a =
        client.resources(BGPAdvertisement.class).inNamespace("default").withName(name).get();
    return a.getStatus() == null || a.getStatus().peers() == null
        ? Map.of()
        : a.getStatus().peers();
  }
}
