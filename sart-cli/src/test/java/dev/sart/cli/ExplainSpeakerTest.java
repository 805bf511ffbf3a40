package dev.sart.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sart.bgp.fsm.State;
import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.policy.Match;
import dev.sart.bgp.policy.PeerPolicy;
import dev.sart.bgp.policy.Policy;
import dev.sart.bgp.policy.PrefixList;
import dev.sart.bgp.policy.Statement;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.server.BgpServer;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.PathAttributes;
import dev.sart.crds.AddressBlock;
import dev.sart.crds.AddressBlockSpec;
import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressPoolSpec;
import dev.sart.crds.AddressType;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPAdvertisementSpec;
import dev.sart.crds.BGPAdvertisementStatus;
import dev.sart.crds.BGPPeerCondition;
import dev.sart.crds.NodeBGP;
import dev.sart.crds.Protocol;
import dev.sart.crds.testing.KubeObjects;
import dev.sart.testbed.Frr;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import io.grpc.Server;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code sart explain} down to the router: node-a's speaker (a real {@code BgpServer} in a network
 * namespace, its API on loopback, reached through {@code --speaker}) peers with FRR; the API server
 * is fabric8's mock holding what the controller and the agent would have written. The speaker's
 * links broken on purpose (an export policy denying the prefix, the peer down) are named, and FRR's
 * own table agrees.
 */
class ExplainSpeakerTest {
  private static final String IP = "203.0.113.1";

  @RegisterExtension final Testbed testbed = new Testbed();
  private ExplainCluster cluster;
  private BgpServer speaker;
  private Server api;
  private Frr frr;
  private Peer peer;
  private Node tor;

  private final List<AutoCloseable> closing = new java.util.ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : closing.reversed()) {
      c.close();
    }
    if (api != null) {
      api.shutdownNow();
    }
    if (speaker != null) {
      speaker.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  /** node-a's speaker (AS 65001, 192.0.2.1) and FRR (AS 65000, 192.0.2.2), the cluster's view. */
  private void up(PeerPolicy policy) throws Exception {
    Topology t = testbed.topology();
    Node nodeA = t.node("nodea");
    tor = t.node("tor");
    t.link(nodeA, tor).addresses("192.0.2.1/30", "192.0.2.2/30");
    NamespaceSpeaker a = NamespaceSpeaker.start(nodeA, 65001, "192.0.2.1");
    speaker = a.speaker();
    api = a.api();
    frr =
        Frr.withoutZebra(
            tor, RouterConfig.of(65000, "192.0.2.2").neighbor(Neighbor.of("192.0.2.1", 65001)));
    frr.start();
    // what the agent does: the BGPPeer as a neighbour, the advertised address as a path
    peer = speaker.addPeer(peerConfig("tor", "192.0.2.2"), policy);
    speaker.addPaths(List.of(Prefix.parse(IP + "/32")), PathAttributes.of(Origin.IGP));

    cluster = new ExplainCluster();
    cluster.pool("lb", "203.0.113.0/28", true);
    cluster.service("web", "Cluster", Map.of(), IP);
    cluster.endpoints("web", "node-a", true);
    cluster.nodeBgp("node-a", "127.0.0.1:5000");
    String name = cluster.peer("node-a", "192.0.2.2", BGPPeerCondition.Status.Established);
    cluster.advertisement("web", IP, Map.of(name, AdvertiseStatus.Advertised));
    cluster.speakerOverrides.add("node-a=127.0.0.1:" + api.getPort());
    frr.awaitEstablished("192.0.2.1");
  }

  @Test
  void anAnnouncedAddressHoldsEveryLinkAndFrrHasTheRoute() throws Exception {
    up(PeerPolicy.NONE);
    frr.awaitRoute(IP + "/32");
    ExplainCluster.Run r = cluster.explain("service", "default/web");
    assertEquals(0, r.code(), r.out() + r.err());
    assertTrue(r.out().contains("announced on 1 of 1 peer(s) on 1 node(s)"), r.out());
    assertTrue(r.out().contains("session ESTABLISHED; " + IP + "/32 in its Adj-RIB-Out"), r.out());
    assertTrue(r.out().endsWith("every link holds\n"), r.out());
    sample("explain-service-ok.txt", r.out());
    JsonNode doc = cluster.explain("-o", "json", "address", IP).json();
    assertEquals("ok", doc.path("result").asText());
  }

  @Test
  void anExportPolicyDenyingThePrefixNamesThePolicyAndItsStatement() throws Exception {
    Policy noLb =
        Policy.of(
            "no-lb",
            true,
            Statement.reject(Match.prefixes(PrefixList.of("lb", "203.0.113.0/24 le 32"))));
    up(PeerPolicy.NONE.withExport(noLb));
    ExplainCluster.Run r = cluster.explain("-o", "json", "service", "default/web");
    assertEquals(ExplainCommands.BROKEN, r.code(), r.out() + r.err());
    JsonNode b = r.json().path("firstBroken");
    assertEquals("peer", b.path("kind").asText());
    assertTrue(
        b.path("summary").asText().contains("export policy no-lb rejects it at statement 1"),
        b::toString);
    assertTrue(b.path("fix").asText().startsWith("change export policy no-lb"), b::toString);
    assertTrue(frr.routes(dev.sart.net.IpPrefix.parse(IP + "/32")).isEmpty(), "FRR agrees");
    sample("explain-service-policy.txt", cluster.explain("service", "default/web").out());
  }

  @Test
  void aPeerThatIsDownIsTheBrokenLinkAndNothingIsAnnounced() throws Exception {
    up(PeerPolicy.NONE);
    frr.awaitRoute(IP + "/32");
    frr.stop();
    await().atMost(Duration.ofSeconds(30)).until(() -> peer.status().state() != State.ESTABLISHED);
    ExplainCluster.Run r = cluster.explain("service", "default/web");
    assertEquals(ExplainCommands.BROKEN, r.code(), r.out() + r.err());
    assertTrue(
        r.out().contains("announced on 0 of 1 peer(s) on 0 node(s): no Established peer has it"),
        r.out());
    assertTrue(r.out().contains("first broken link: peer node-a-65000-192.0.2.2"), r.out());
    assertTrue(r.out().contains(": nothing is sent to it"), r.out());
    // why the session went down: FRR 8.4 ends on SIGTERM without a NOTIFICATION (a Cease would do)
    assertTrue(
        java.util.regex.Pattern.compile(
                "session [A-Z_]+ \\(down \\d\\d:\\d\\d:\\d\\d: (connection closed without a"
                    + " NOTIFICATION in ESTABLISHED|received Cease)")
            .matcher(r.out())
            .find(),
        r.out());
    sample("explain-service-peer-down.txt", r.out());
  }

  @Test
  void explainPodFollowsTheBlockOfItsNodeToTheRouter() throws Exception {
    up(PeerPolicy.NONE);
    podOnNodeA();

    ExplainCluster.Run missing = cluster.explain("-o", "json", "pod", "default/web-1");
    assertEquals(ExplainCommands.BROKEN, missing.code(), missing.out() + missing.err());
    assertTrue(
        missing
            .json()
            .path("firstBroken")
            .path("summary")
            .asText()
            .contains("no path to the prefix in the Loc-RIB"),
        missing.out());

    speaker.addPaths(List.of(Prefix.parse("198.51.100.0/26")), PathAttributes.of(Origin.IGP));
    frr.awaitRoute("198.51.100.0/26");
    ExplainCluster.Run r = cluster.explain("address", "198.51.100.7");
    assertEquals(0, r.code(), r.out() + r.err());
    assertTrue(r.out().startsWith("[ok] pod default/web-1: on node node-a"), r.out());
    assertTrue(r.out().contains("block 198.51.100.0/26 announced on 1 of 1 peer(s)"), r.out());
    sample("explain-pod-ok.txt", r.out());
  }

  /**
   * explain run on a node, as a user runs it there: every NodeBGP names the same node-local speaker
   * address (127.0.0.1:5000 in a cluster), which from node-a reaches node-a's speaker. node-b, with
   * a BGPPeer to the same ToR address, must not be explained with node-a's session and Adj-RIB-Out
   * (it was: "announced on 2 of 2 peer(s) on 2 node(s)"), nor its kernel with node-a's FIB: the
   * speaker answers with node-a's AS and router id, and node-b's links say so.
   */
  @Test
  void aNodeLocalSpeakerAddressIsNotTakenForAnotherNodesSpeaker() throws Exception {
    up(PeerPolicy.NONE);
    frr.awaitRoute(IP + "/32");
    String local = "127.0.0.1:" + api.getPort();
    cluster.nodeBgp("node-b", local, 65002L, "192.0.2.5");
    String peerB = cluster.peer("node-b", "192.0.2.2", BGPPeerCondition.Status.Established);
    advertisedOnBoth(peerB);

    // it answers as node-a's NodeBGP: explain runs on node-a, and node-b cannot be seen from here
    // (not broken: nothing is known to be wrong there)
    ExplainCluster.Run r = cluster.explain("-o", "json", "service", "default/web");
    assertEquals(0, r.code(), r.out() + r.err());
    JsonNode b = nodeLink(r.json().path("chain"), "node-b");
    assertEquals("warning", b.path("state").asText(), b::toString);
    assertTrue(
        b.path("summary")
            .asText()
            .endsWith(
                "; not asked from here: "
                    + local
                    + " reaches node-a's speaker (explain runs on"
                    + " node-a)"),
        b::toString);
    assertTrue(b.path("fix").asText().contains("--speaker node-b=HOST:PORT"), b::toString);
    String plain = cluster.explain("service", "default/web").out();
    assertTrue(
        plain.endsWith("every link checked holds; 1 marked [? ] could not be told\n"), plain);
    assertTrue(
        plain.contains(
            "announced on 1 of 2 peer(s) on 1 node(s); 1 not asked (their node's speaker could not"
                + " be reached or answered as another node: below)"),
        plain);
    assertTrue(plain.contains("peer node-a-65000-192.0.2.2: "), plain);
    assertTrue(!plain.contains("peer " + peerB), plain);
    sample("explain-service-other-speaker.txt", plain);

    // explain pod: node-b's FIB, at its speaker's host, would be node-a's too
    podOnNodeA();
    speaker.addPaths(List.of(Prefix.parse("198.51.100.0/26")), PathAttributes.of(Origin.IGP));
    String pod = cluster.explain("pod", "default/web-1").out();
    assertTrue(
        pod.contains(
            "kernel node-b: not checked: its FIB is reached at its speaker's host, and the speaker"
                + " at "
                + local
                + " answers as AS 65001"),
        pod);
  }

  @Test
  void aSpeakerAnsweringAsNoNodesNodeBgpIsBroken() throws Exception {
    up(PeerPolicy.NONE);
    frr.awaitRoute(IP + "/32");
    // node-a's NodeBGP says another router id than its speaker has: the agent has not (yet)
    // configured the speaker as the NodeBGP says, and no node's NodeBGP matches its answer
    NodeBGP nb = cluster.client.resources(NodeBGP.class).withName("node-a").get();
    nb.setSpec(
        new dev.sart.crds.NodeBGPSpec(
            nb.getSpec().asn(), "192.0.2.9", nb.getSpec().speaker(), nb.getSpec().peers()));
    cluster.client.resource(nb).update();
    ExplainCluster.Run r = cluster.explain("-o", "json", "service", "default/web");
    assertEquals(ExplainCommands.BROKEN, r.code(), r.out() + r.err());
    JsonNode b = r.json().path("firstBroken");
    assertEquals("node-a", b.path("name").asText(), b::toString);
    assertTrue(
        b.path("summary")
            .asText()
            .contains(
                " answers as AS 65001, router id 192.0.2.1, not as node-a's NodeBGP (AS 65001,"
                    + " router id 192.0.2.9)"),
        b::toString);
    assertTrue(
        b.path("fix").asText().startsWith("no node's NodeBGP has the AS and router id"),
        b::toString);
  }

  /** The link of {@code node} under the chain's address. */
  private static JsonNode nodeLink(JsonNode chain, String node) {
    for (JsonNode address : chain.path("links")) {
      for (JsonNode l : address.path("links")) {
        if (l.path("kind").asText().equals("node") && l.path("name").asText().equals(node)) {
          return l;
        }
      }
    }
    throw new AssertionError("no node link " + node + " in " + chain);
  }

  /** The Service's advertisement as the controller and the agents leave it for two nodes. */
  private void advertisedOnBoth(String peerB) {
    var adv =
        cluster
            .client
            .resources(BGPAdvertisement.class)
            .inNamespace("default")
            .withName("web-203-0-113-1")
            .get();
    adv.setStatus(
        new BGPAdvertisementStatus(
            Map.of(
                "node-a-65000-192.0.2.2",
                AdvertiseStatus.Advertised,
                peerB,
                AdvertiseStatus.Advertised)));
    cluster.client.resource(adv).updateStatus();
  }

  /** The agent's block on node-a, its kube-system advertisement, a pod there (no path yet). */
  private void podOnNodeA() {
    cluster
        .client
        .resource(
            new AddressPool(
                "pods", new AddressPoolSpec("198.51.100.0/24", AddressType.POD, 26, true)))
        .create();
    cluster
        .client
        .resource(
            new AddressBlock(
                "pods-0",
                new AddressBlockSpec("198.51.100.0/26", AddressType.POD, "pods", "node-a", true)))
        .create();
    var adv =
        cluster
            .client
            .resource(
                new BGPAdvertisement(
                    "kube-system",
                    "pods-0",
                    new BGPAdvertisementSpec(
                        "198.51.100.0/26", AddressType.POD, Protocol.IPV4, null)))
            .create();
    adv.setStatus(
        new BGPAdvertisementStatus(Map.of("node-a-65000-192.0.2.2", AdvertiseStatus.Advertised)));
    cluster.client.resource(adv).updateStatus();
    var pod = cluster.client.resource(KubeObjects.pod("default", "web-1", "node-a")).create();
    pod.setStatus(KubeObjects.startedStatus("198.51.100.7"));
    cluster.client.resource(pod).updateStatus();
  }

  /**
   * Whether FRR took the route, from what it sends back: FRR returns its best path to the peer it
   * came from (it does not check the receiver's AS unless told to), so node-a drops its own route
   * as an AS_PATH loop and says FRR selected it; node-b (AS 65002), announcing the same address
   * later, gets node-a's route from FRR and says FRR prefers another route; once an outbound
   * route-map on FRR keeps the address from node-a, it sends nothing back and node-a says
   * "unknown". {@code vtysh} agrees on FRR's best path.
   */
  @Test
  void whetherThePeerTookTheRouteIsToldFromWhatItSendsBack() throws Exception {
    up(PeerPolicy.NONE);
    frr.awaitRoute(IP + "/32");
    String selected =
        IP
            + "/32 in its Adj-RIB-Out; the peer selected it (sends it back with AS_PATH 65000"
            + " 65001)";
    await("FRR sends node-a's route back to node-a")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> cluster.explain("service", "default/web").out().contains(selected));

    // node-b: its own speaker, peering with FRR over a second link, announcing the same address
    Topology t = testbed.topology();
    Node nodeB = t.node("nodeb");
    t.link(nodeB, tor).addresses("192.0.2.5/30", "192.0.2.6/30");
    NamespaceSpeaker onB = NamespaceSpeaker.start(nodeB, 65002, "192.0.2.5");
    closing.add(onB);
    BgpServer b = onB.speaker();
    Server apiB = onB.api();
    frr.vtysh(
        "configure",
        "router bgp 65000",
        "neighbor 192.0.2.5 remote-as 65002",
        "address-family ipv4 unicast",
        "neighbor 192.0.2.5 activate");
    Peer toB = b.addPeer(peerConfig("tor-b", "192.0.2.6"), PeerPolicy.NONE);
    b.addPaths(List.of(Prefix.parse(IP + "/32")), PathAttributes.of(Origin.IGP));
    cluster.nodeBgp("node-b", "127.0.0.1:5000", 65002L, "192.0.2.5");
    String peerB = cluster.peer("node-b", "192.0.2.6", BGPPeerCondition.Status.Established);
    advertisedOnBoth(peerB);
    cluster.speakerOverrides.add("node-b=127.0.0.1:" + apiB.getPort());
    await("node-b Established with FRR")
        .atMost(Duration.ofSeconds(60))
        .until(() -> toB.status().state() == State.ESTABLISHED);
    String other =
        IP
            + "/32 in its Adj-RIB-Out; the peer prefers another route to it (sends back AS_PATH"
            + " 65000 65001)";
    await("node-b gets node-a's route from FRR")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> cluster.explain("service", "default/web").out().contains(other));
    ExplainCluster.Run both = cluster.explain("service", "default/web");
    assertEquals(0, both.code(), both.out() + both.err());
    assertTrue(both.out().contains("peer node-a-65000-192.0.2.2: "), both.out());
    assertTrue(both.out().contains(selected), both.out());
    assertTrue(both.out().contains("announced on 2 of 2 peer(s) on 2 node(s)"), both.out());
    // FRR's own view: its best path for the address is node-a's
    JsonNode route =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .readTree(frr.vtysh("show bgp ipv4 unicast " + IP + "/32 json"));
    String bestFrom = "";
    for (JsonNode path : route.path("paths")) {
      if (path.path("bestpath").path("overall").asBoolean()) {
        bestFrom = path.path("peer").path("peerId").asText();
      }
    }
    assertEquals("192.0.2.1", bestFrom, route::toString);
    sample("explain-service-accepted.txt", both.out());

    // FRR told not to send the address to node-a (an outbound filter): nothing comes back, unknown
    frr.vtysh(
        "configure",
        "ip prefix-list no-echo seq 5 deny " + IP + "/32",
        "ip prefix-list no-echo seq 10 permit any",
        "route-map no-echo permit 10",
        "match ip address prefix-list no-echo",
        "exit",
        "router bgp 65000",
        "address-family ipv4 unicast",
        "neighbor 192.0.2.1 route-map no-echo out");
    frr.vtysh("clear bgp ipv4 unicast 192.0.2.1 soft out");
    String unknown =
        IP
            + "/32 in its Adj-RIB-Out; whether the peer accepted it: unknown (it sends nothing"
            + " back)";
    try {
      await("FRR withdraws node-a's own route from node-a")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> cluster.explain("service", "default/web").out().contains(unknown));
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError(
          cluster.explain("service", "default/web").out()
              + frr.vtysh("show bgp ipv4 unicast neighbors 192.0.2.1 advertised-routes"),
          e);
    }
    assertTrue(frr.routes(dev.sart.net.IpPrefix.parse(IP + "/32")).size() > 0, "FRR keeps it");
  }

  private static PeerConfig peerConfig(String name, String address) throws Exception {
    PeerConfig c = PeerConfig.of(InetAddress.getByName(address), 65000);
    return c.toBuilder()
        .name(name)
        .passive(false)
        .password(null)
        .multihopTtl(0)
        .ttlSecurity(false)
        .holdTime(Duration.ofSeconds(9))
        .keepaliveTime(Duration.ofSeconds(3))
        .connectRetryTime(Duration.ofSeconds(1))
        .families(Set.of(Family.IPV4_UNICAST))
        .gracefulRestart(PeerConfig.GracefulRestart.DEFAULT)
        .build();
  }

  /** Keeps a real output for the README (target/explain/). */
  private static void sample(String file, String text) throws Exception {
    Path dir = Path.of("target", "explain");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(file), text);
  }
}
