package dev.sart.agent.bgp;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.BGPPeerCondition;
import dev.sart.crds.NodeBGP;
import dev.sart.crds.NodeBGPCondition;
import dev.sart.crds.Sart;
import dev.sart.crds.testing.ControllerObjects;
import dev.sart.crds.testing.MockApiCleanup;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.Router;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.RouterKind;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * sart's agent behaviours (sart.md §6.5; its agent_node_bgp, agent_bgp_peer and
 * agent_bgp_advertisement tests) against fabric8's mock API server in CRUD mode, a real speaker
 * (BgpServer + BgpApiService over gRPC) and a real BGP daemon (BIRD) as the peer, whose routing
 * table is the oracle. The test plays the controller: it creates the objects and the status entries
 * the controller would write.
 */
@EnableKubernetesMockClient(crud = true)
class BgpAgentTest {
  static KubernetesClient client;
  static KubernetesMockServer server;

  private static final String NODE = "node1";
  private static final String PEER = NODE + "-65002-192.0.2.2";
  private static final String PEER2 = NODE + "-65003-192.0.2.6";

  @RegisterExtension final Testbed testbed = new Testbed();
  private RealSpeaker speaker;

  /** The speaker's own graceful restart (RFC 4724 §4.1) for {@link #start}; null: none. */
  private dev.sart.bgp.peer.RestartingSpeaker.Settings restart;

  private BgpAgent agent;
  private Router bird;

  @AfterEach
  void stop() throws Exception {
    if (agent != null) {
      agent.close();
    }
    if (speaker != null) {
      speaker.close();
    }
    MockApiCleanup.deleteBgpObjects(client);
  }

  /**
   * The speaker's namespace (192.0.2.1, AS 65001 once configured) and BIRD (192.0.2.2, AS 65002).
   */
  private void start(UnaryOperator<Neighbor> birdSide, Map<String, String> peerAnnotations)
      throws Exception {
    Topology t = testbed.topology();
    Node s = t.node("sart");
    Node p = t.node("peer");
    t.link(s, p).addresses("192.0.2.1/30", "192.0.2.2/30");
    speaker = new RealSpeaker(s).start(restart);
    bird =
        RouterKind.BIRD
            .create(
                p,
                RouterConfig.of(65002, "192.0.2.2")
                    .neighbor(birdSide.apply(Neighbor.of("192.0.2.1", 65001))))
            .start();
    client
        .resource(ControllerObjects.nodeBgp(NODE, 65001, "192.0.2.1", speaker.endpoint()))
        .create();
    client
        .resource(ControllerObjects.peer(NODE, 65002, "192.0.2.2", 30L, 10L, peerAnnotations))
        .create();
    agent = new BgpAgent(client, NODE, Duration.ofSeconds(30)).start();
  }

  private void start() throws Exception {
    start(n -> n, Map.of(PeerOptions.CONNECT_RETRY_TIME, "1"));
  }

  private static NodeBGP nodeBgp() {
    return client.resources(NodeBGP.class).withName(NODE).get();
  }

  private static BGPPeer bgpPeer() {
    return client.resources(BGPPeer.class).withName(PEER).get();
  }

  private static BGPPeerCondition.Status peerStatus() {
    BGPPeer p = bgpPeer();
    BGPPeerCondition c = p == null ? null : PeerReconciler.last(p.getStatus());
    return c == null ? null : c.status();
  }

  private static Map<String, AdvertiseStatus> advertStatus(String name) {
    BGPAdvertisement a =
        client.resources(BGPAdvertisement.class).inNamespace("default").withName(name).get();
    return a.getStatus() == null || a.getStatus().peers() == null
        ? Map.of()
        : a.getStatus().peers();
  }

  private void awaitEstablished() {
    await("BGPPeer Established")
        .atMost(Duration.ofSeconds(60))
        .until(() -> peerStatus() == BGPPeerCondition.Status.Established);
    bird.awaitEstablished("192.0.2.1");
  }

  @Test
  void nodeBgpConfiguresTheSpeakerAndSaysSo() throws Exception {
    start();
    await().atMost(Duration.ofSeconds(30)).until(() -> speaker.bgp.localAs() == 65001);
    assertEquals(dev.sart.bgp.wire.Ip.parseV4("192.0.2.1"), speaker.bgp.routerId());
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> NodeBgpReconciler.last(nodeBgp().getStatus()) != null);
    NodeBGP nb = nodeBgp();
    assertEquals(
        new NodeBGPCondition(NodeBGPCondition.Status.Available, NodeBGPCondition.Reason.Configured),
        NodeBgpReconciler.last(nb.getStatus()));
    assertEquals(0L, nb.getStatus().backoff());
  }

  @Test
  void anUnreachableSpeakerIsUnavailableWithoutABackoffUntilItWasEverAvailable() {
    client.resource(ControllerObjects.nodeBgp(NODE, 65001, "192.0.2.1", "127.0.0.1:1")).create();
    agent = new BgpAgent(client, NODE, Duration.ofSeconds(30)).start();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> NodeBgpReconciler.last(nodeBgp().getStatus()) != null);
    assertEquals(
        new NodeBGPCondition(
            NodeBGPCondition.Status.Unavailable, NodeBGPCondition.Reason.NotConfigured),
        NodeBgpReconciler.last(nodeBgp().getStatus()));
    assertEquals(0L, nodeBgp().getStatus().backoff());
  }

  @Test
  void aSpeakerWithAnotherAsIsInvalidConfiguration() throws Exception {
    Topology t = testbed.topology();
    speaker = new RealSpeaker(t.node("sart")).start();
    speaker.bgp.setLocalAs(65009);
    client
        .resource(ControllerObjects.nodeBgp(NODE, 65001, "192.0.2.1", speaker.endpoint()))
        .create();
    agent = new BgpAgent(client, NODE, Duration.ofSeconds(30)).start();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> NodeBgpReconciler.last(nodeBgp().getStatus()) != null);
    assertEquals(
        new NodeBGPCondition(
            NodeBGPCondition.Status.Unavailable, NodeBGPCondition.Reason.InvalidConfiguration),
        NodeBgpReconciler.last(nodeBgp().getStatus()));
    assertEquals(
        65009, speaker.bgp.localAs(), "the agent does not override a speaker configured otherwise");
  }

  /**
   * The additions {@code bfd} and {@code gracefulRestart} of a BGPPeer reach the speaker's AddPeer;
   * the speaker has no UpdatePeer, so a change replaces the session.
   */
  @Test
  void bfdAndGracefulRestartOfTheSpecReachTheSpeakerAndAChangeReplacesTheSession()
      throws Exception {
    start();
    awaitEstablished();
    InetAddress addr = InetAddress.getByName("192.0.2.2");
    assertEquals(null, speaker.bgp.peer(addr).config().bfd());
    assertEquals(
        dev.sart.bgp.peer.PeerConfig.GracefulRestart.DEFAULT,
        speaker.bgp.peer(addr).config().gracefulRestart());
    client
        .resources(BGPPeer.class)
        .withName(PEER)
        .edit(
            p -> {
              var s = p.getSpec();
              p.setSpec(
                  new dev.sart.crds.BGPPeerSpec(
                      s.asn(),
                      s.addr(),
                      s.holdTime(),
                      s.keepaliveTime(),
                      s.capabilities(),
                      s.nodeBGPRef(),
                      s.clusterBGPRef(),
                      s.speaker(),
                      s.groups(),
                      new dev.sart.crds.BfdSpec(100L, 200L, 5L),
                      new dev.sart.crds.GracefulRestartSpec(false, 30L)));
              return p;
            });
    await("the new settings in the speaker")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                speaker.bgp.peer(addr) != null
                    && dev.sart.bgp.bfd.BfdConfig.ofMillis(100, 200, 5)
                        .equals(speaker.bgp.peer(addr).config().bfd()));
    assertEquals(
        new dev.sart.bgp.peer.PeerConfig.GracefulRestart(false, Duration.ofSeconds(30)),
        speaker.bgp.peer(addr).config().gracefulRestart());
  }

  @Test
  void aPeerComesUpWithTheTimersOfItsSpecAndIsListedInTheNodeBgp() throws Exception {
    start();
    awaitEstablished();
    dev.sart.bgp.peer.Peer p = speaker.bgp.peer(InetAddress.getByName("192.0.2.2"));
    assertEquals(
        Duration.ofSeconds(30), p.config().holdTime(), "holdTime of the BGPPeer (sart ignored it)");
    assertEquals(Duration.ofSeconds(10), p.config().keepaliveTime());
    assertEquals(
        Duration.ofSeconds(30),
        p.status().holdTime(),
        "negotiated: the smaller of 30 and BIRD's 240");
    assertTrue(bgpPeer().getMetadata().getFinalizers().contains(Sart.BGP_PEER_FINALIZER));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                nodeBgp().getSpec().peers() != null
                    && nodeBgp().getSpec().peers().stream().anyMatch(x -> x.name().equals(PEER)));
  }

  @Test
  void aChangedTimerReplacesTheSession() throws Exception {
    start();
    awaitEstablished();
    client
        .resources(BGPPeer.class)
        .withName(PEER)
        .edit(
            p -> {
              p.setSpec(
                  new dev.sart.crds.BGPPeerSpec(
                      p.getSpec().asn(),
                      p.getSpec().addr(),
                      20L,
                      5L,
                      null,
                      p.getSpec().nodeBGPRef(),
                      null,
                      p.getSpec().speaker(),
                      null));
              return p;
            });
    await("session with the new hold time")
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              dev.sart.bgp.peer.Peer p = speaker.bgp.peer(InetAddress.getByName("192.0.2.2"));
              return p != null
                  && p.config().holdTime().equals(Duration.ofSeconds(20))
                  && p.status().holdTime().equals(Duration.ofSeconds(20));
            });
    awaitEstablished();
  }

  @Test
  void aPeerStateChangeReachesTheStatusFromTheStreamAndCountsABackoff() throws Exception {
    start();
    awaitEstablished();
    bird.stop();
    await("BGPPeer leaves Established")
        .atMost(Duration.ofSeconds(60))
        .until(() -> peerStatus() != BGPPeerCondition.Status.Established);
    assertEquals(1L, bgpPeer().getStatus().backoff());
  }

  /**
   * {@code sartd node}'s speaker after a start (RFC 4724 §4.1): it sends nothing, End-of-RIB
   * included, until the agent has re-added its paths and said so after its first full pass; the
   * selection deferral time (here 300 s) is not what ends the wait.
   */
  @Test
  void aRestartingSpeakerSendsItsRoutesOnceTheAgentsFirstPassHasAddedThemAll() throws Exception {
    restart = new dev.sart.bgp.peer.RestartingSpeaker.Settings(true, Duration.ofSeconds(300), true);
    ControllerObjects.advert(
        client,
        "default",
        "svc-203.0.113.10",
        "203.0.113.10/32",
        Map.of(PEER, AdvertiseStatus.NotAdvertised));
    start();
    awaitEstablished();
    bird.awaitRoute("203.0.113.10/32");
    assertTrue(speaker.bgp.restart().complete());
    assertEquals(List.of(), speaker.bgp.restart().waitingFor());
  }

  @Test
  void anAdvertisementIsAnnouncedToAnEstablishedPeerAndWithdrawn() throws Exception {
    start();
    ControllerObjects.advert(
        client,
        "default",
        "svc-203.0.113.10",
        "203.0.113.10/32",
        Map.of(
            PEER,
            AdvertiseStatus.NotAdvertised,
            "node2-65002-192.0.2.9",
            AdvertiseStatus.NotAdvertised));
    awaitEstablished();
    bird.awaitRoute("203.0.113.10/32");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> advertStatus("svc-203.0.113.10").get(PEER) == AdvertiseStatus.Advertised);
    assertEquals(
        AdvertiseStatus.NotAdvertised,
        advertStatus("svc-203.0.113.10").get("node2-65002-192.0.2.9"),
        "another node's peer is that node's agent's business");

    client
        .resources(BGPAdvertisement.class)
        .inNamespace("default")
        .withName("svc-203.0.113.10")
        .editStatus(
            a -> {
              a.getStatus().peers().put(PEER, AdvertiseStatus.Withdraw);
              return a;
            });
    bird.awaitNoRoute("203.0.113.10/32");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> !advertStatus("svc-203.0.113.10").containsKey(PEER));
  }

  /**
   * Per-peer announcement: two BGPPeers on the node (BIRD at 192.0.2.2, AS 65002, and another BIRD
   * at 192.0.2.6, AS 65003); an advert reaches only the peers its status targets, as each BIRD
   * shows it.
   */
  @Test
  void anAdvertisementGoesOnlyToItsTargetPeersAndFollowsThem() throws Exception {
    Router bird2 = twoPeers();
    client
        .resource(ControllerObjects.nodeBgp(NODE, 65001, "192.0.2.1", speaker.endpoint()))
        .create();
    client
        .resource(
            ControllerObjects.peer(
                NODE, 65002, "192.0.2.2", 30L, 10L, Map.of(PeerOptions.CONNECT_RETRY_TIME, "1")))
        .create();
    client
        .resource(
            ControllerObjects.peer(
                NODE, 65003, "192.0.2.6", 30L, 10L, Map.of(PeerOptions.CONNECT_RETRY_TIME, "1")))
        .create();
    // a route the speaker learns from one peer and passes on to the other (transit): not the
    // agent's
    bird2.announce("198.51.100.128/25");
    ControllerObjects.advert(
        client, "default", "svc", "203.0.113.40/32", Map.of(PEER, AdvertiseStatus.NotAdvertised));
    agent = new BgpAgent(client, NODE, Duration.ofSeconds(30)).start();
    awaitEstablished();
    bird2.awaitEstablished("192.0.2.5");

    // targeted at the first peer only
    bird.awaitRoute("203.0.113.40/32");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> advertStatus("svc").get(PEER) == AdvertiseStatus.Advertised);
    assertNoRouteFor(bird2, "203.0.113.40/32");
    assertNull(advertStatus("svc").get(PEER2));
    bird.awaitRoute("198.51.100.128/25");

    // the controller moves it to the second peer
    setTargets("svc", Map.of(PEER, AdvertiseStatus.Withdraw, PEER2, AdvertiseStatus.NotAdvertised));
    bird2.awaitRoute("203.0.113.40/32");
    bird.awaitNoRoute("203.0.113.40/32");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                !advertStatus("svc").containsKey(PEER)
                    && advertStatus("svc").get(PEER2) == AdvertiseStatus.Advertised);
    assertTrue(bird.bestRoute("198.51.100.128/25").isPresent(), "transit routes still pass");

    // a restarted speaker gets the per-peer policies again: still only the second peer
    speaker.stop();
    speaker.start();
    await("speaker configured again")
        .atMost(Duration.ofSeconds(60))
        .until(() -> speaker.bgp.localAs() == 65001);
    bird2.awaitSessionState(
        "192.0.2.5", dev.sart.testbed.SessionState.ESTABLISHED, Duration.ofSeconds(60));
    bird.awaitSessionState(
        "192.0.2.1", dev.sart.testbed.SessionState.ESTABLISHED, Duration.ofSeconds(60));
    bird2.awaitRoute("203.0.113.40/32");
    bird.awaitRoute("198.51.100.128/25");
    assertNoRouteFor(bird, "203.0.113.40/32");

    // both peers
    setTargets("svc", Map.of(PEER, AdvertiseStatus.NotAdvertised));
    bird.awaitRoute("203.0.113.40/32");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                advertStatus("svc").get(PEER) == AdvertiseStatus.Advertised
                    && advertStatus("svc").get(PEER2) == AdvertiseStatus.Advertised);
    assertTrue(bird2.bestRoute("203.0.113.40/32").isPresent());

    // Withdraw for the second peer only, then for the first
    setTargets("svc", Map.of(PEER2, AdvertiseStatus.Withdraw));
    bird2.awaitNoRoute("203.0.113.40/32");
    assertTrue(bird.bestRoute("203.0.113.40/32").isPresent(), "the first peer keeps it");
    setTargets("svc", Map.of(PEER, AdvertiseStatus.Withdraw));
    bird.awaitNoRoute("203.0.113.40/32");
    await().atMost(Duration.ofSeconds(30)).until(() -> advertStatus("svc").isEmpty());

    // a deleted peer's policy goes with it
    client.resources(BGPPeer.class).withName(PEER2).delete();
    await("policy of the deleted peer removed")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                speaker.bgp.policies().all().stream()
                    .map(dev.sart.bgp.policy.Policy::name)
                    .toList()
                    .equals(java.util.List.of(ExportPolicies.name(PEER))));
  }

  /**
   * An agent (re)started against a speaker that already has the node's peers without the agent's
   * export policies and a prefix sent to both (as an agent without per-peer export left it): the
   * peers are adopted and given their policies, and the prefix leaves the peer it does not target.
   */
  @Test
  void adoptedPeersGetTheirExportPolicies() throws Exception {
    Router bird2 = twoPeers();
    try (Speaker api = new Speaker(speaker.endpoint(), Duration.ofSeconds(10))) {
      api.configure(65001, "192.0.2.1");
      for (String[] p : new String[][] {{"192.0.2.2", "65002"}, {"192.0.2.6", "65003"}}) {
        api.addPeer(
            dev.sart.proto.v1.Peer.newBuilder()
                .setAddress(p[0])
                .setAsn(Integer.parseInt(p[1]))
                .setConnectRetryTime(1)
                .setAdvertisePeerAs(true)
                .build());
      }
      api.addPath("203.0.113.50/32");
    }
    bird.awaitRoute("203.0.113.50/32");
    bird2.awaitRoute("203.0.113.50/32");
    dev.sart.bgp.peer.Peer session1 = speaker.bgp.peer(InetAddress.getByName("192.0.2.2"));
    dev.sart.bgp.peer.Peer session2 = speaker.bgp.peer(InetAddress.getByName("192.0.2.6"));

    client
        .resource(ControllerObjects.nodeBgp(NODE, 65001, "192.0.2.1", speaker.endpoint()))
        .create();
    client.resource(ControllerObjects.peer(NODE, 65002, "192.0.2.2", null, null, null)).create();
    client.resource(ControllerObjects.peer(NODE, 65003, "192.0.2.6", null, null, null)).create();
    ControllerObjects.advert(
        client, "default", "svc", "203.0.113.50/32", Map.of(PEER, AdvertiseStatus.NotAdvertised));
    agent = new BgpAgent(client, NODE, Duration.ofSeconds(30)).start();

    bird2.awaitNoRoute("203.0.113.50/32");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> advertStatus("svc").get(PEER) == AdvertiseStatus.Advertised);
    assertTrue(bird.bestRoute("203.0.113.50/32").isPresent(), "the targeted peer keeps it");
    assertEquals(
        ExportPolicies.name(PEER2),
        speaker.bgp.peer(InetAddress.getByName("192.0.2.6")).policy().exportPolicy().name());
    assertTrue(
        speaker.bgp.peer(InetAddress.getByName("192.0.2.6")).policy().advertisePeerAs(),
        "the speaker's own setting survives the new export policy");
    assertSame(
        session1, speaker.bgp.peer(InetAddress.getByName("192.0.2.2")), "adopted, not re-added");
    assertSame(
        session2, speaker.bgp.peer(InetAddress.getByName("192.0.2.6")), "adopted, not re-added");
  }

  /**
   * The speaker's namespace with two links: BIRD at 192.0.2.2 (AS 65002, {@link #bird}) and another
   * BIRD at 192.0.2.6 (AS 65003, returned), both peering with the speaker (AS 65001).
   */
  private Router twoPeers() throws Exception {
    Topology t = testbed.topology();
    Node s = t.node("sart");
    Node p1 = t.node("peer");
    Node p2 = t.node("peer2");
    t.link(s, p1).addresses("192.0.2.1/30", "192.0.2.2/30");
    t.link(s, p2).addresses("192.0.2.5/30", "192.0.2.6/30");
    speaker = new RealSpeaker(s).start(restart);
    bird =
        RouterKind.BIRD
            .create(
                p1, RouterConfig.of(65002, "192.0.2.2").neighbor(Neighbor.of("192.0.2.1", 65001)))
            .start();
    return RouterKind.BIRD
        .create(p2, RouterConfig.of(65003, "192.0.2.6").neighbor(Neighbor.of("192.0.2.5", 65001)))
        .start();
  }

  /**
   * The router does not get the route, now or in the next few seconds (the other peer already has
   * it).
   */
  private static void assertNoRouteFor(Router r, String prefix) {
    await(r + " never gets " + prefix)
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(10))
        .until(() -> r.routes(dev.sart.net.IpPrefix.parse(prefix)).isEmpty());
  }

  /** The controller's writes: each given entry set (or replaced), the others kept. */
  private static void setTargets(String advert, Map<String, AdvertiseStatus> entries) {
    client
        .resources(BGPAdvertisement.class)
        .inNamespace("default")
        .withName(advert)
        .editStatus(
            a -> {
              a.getStatus().peers().putAll(entries);
              return a;
            });
  }

  @Test
  void deletingAnAdvertisementWithdrawsThePrefix() throws Exception {
    start();
    awaitEstablished();
    ControllerObjects.advert(
        client,
        "default",
        "pod-block",
        "198.51.100.0/29",
        Map.of(PEER, AdvertiseStatus.NotAdvertised));
    bird.awaitRoute("198.51.100.0/29");
    client.resources(BGPAdvertisement.class).inNamespace("default").withName("pod-block").delete();
    bird.awaitNoRoute("198.51.100.0/29");
  }

  /** An advert as the controller makes it: with its finalizer, which waits for the agents. */
  private static void heldAdvert(String name, String cidr) {
    ControllerObjects.advert(
        client, "default", name, cidr, Map.of(PEER, AdvertiseStatus.NotAdvertised));
    client
        .resources(BGPAdvertisement.class)
        .inNamespace("default")
        .withName(name)
        .edit(
            a -> {
              a.getMetadata().setFinalizers(List.of(Sart.BGP_ADVERTISEMENT_FINALIZER));
              return a;
            });
  }

  private static void delete(String name) {
    client.resources(BGPAdvertisement.class).inNamespace("default").withName(name).delete();
  }

  /** The controller's side: the finalizer goes once the agents left no entry; then it is gone. */
  private static void awaitReleasedAndGone(String name) {
    await(name + " has no entry left")
        .atMost(Duration.ofSeconds(30))
        .until(() -> advertStatus(name).isEmpty());
    client
        .resources(BGPAdvertisement.class)
        .inNamespace("default")
        .withName(name)
        .edit(
            a -> {
              a.getMetadata().setFinalizers(List.of());
              return a;
            });
    await(name + " gone")
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                client.resources(BGPAdvertisement.class).inNamespace("default").withName(name).get()
                    == null);
  }

  /**
   * Issue 19: a BGPAdvertisement being deleted (the controller's finalizer holds it) is withdrawn
   * by the agent, whose entries then leave the status, whether the agent sees it first after the
   * deletion, while it is announced, or while the controller's Withdraw races with the deletion.
   */
  @Test
  void aDeletedAdvertisementIsWithdrawnAndLeftToTheControllerBeforeDuringAndAfter()
      throws Exception {
    start();
    awaitEstablished();

    // deleted before the agent ever announced it: never announced, its entry removed
    heldAdvert("early", "203.0.113.20/32");
    delete("early");
    assertNoRouteFor(bird, "203.0.113.20/32");
    awaitReleasedAndGone("early");

    // deleted while announced, the controller not having written Withdraw yet
    heldAdvert("announced", "203.0.113.21/32");
    bird.awaitRoute("203.0.113.21/32");
    delete("announced");
    bird.awaitNoRoute("203.0.113.21/32");
    awaitReleasedAndGone("announced");

    // the controller's Withdraw right after the deletion, racing with the agent's own removal
    heldAdvert("racing", "203.0.113.22/32");
    bird.awaitRoute("203.0.113.22/32");
    delete("racing");
    try {
      setTargets("racing", Map.of(PEER, AdvertiseStatus.Withdraw));
    } catch (RuntimeException alreadyRemoved) {
      // the agent was first
    }
    bird.awaitNoRoute("203.0.113.22/32");
    awaitReleasedAndGone("racing");

    // after: gone for good, nothing comes back
    assertNoRouteFor(bird, "203.0.113.21/32");
  }

  @Test
  void aRestartedSpeakerIsConfiguredAgainWithItsPeersAndPrefixes() throws Exception {
    start();
    ControllerObjects.advert(
        client, "default", "svc", "203.0.113.20/32", Map.of(PEER, AdvertiseStatus.NotAdvertised));
    awaitEstablished();
    bird.awaitRoute("203.0.113.20/32");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> advertStatus("svc").get(PEER) == AdvertiseStatus.Advertised);

    speaker.stop();
    speaker.start();
    assertEquals(0, speaker.bgp.localAs(), "a restarted speaker knows nothing");

    await("speaker configured again")
        .atMost(Duration.ofSeconds(60))
        .until(() -> speaker.bgp.localAs() == 65001);
    await("NodeBGP backoff")
        .atMost(Duration.ofSeconds(30))
        .until(() -> nodeBgp().getStatus().backoff() == 1L);
    await("BGPPeer Established again")
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                speaker.bgp.peer(InetAddress.getByName("192.0.2.2")) != null
                    && peerStatus() == BGPPeerCondition.Status.Established);
    bird.awaitRoute("203.0.113.20/32");
    assertTrue(bgpPeer().getStatus().backoff() >= 1, "the session went down with the speaker");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> advertStatus("svc").get(PEER) == AdvertiseStatus.Advertised);
  }

  @Test
  void aDeletedPeerLeavesTheSpeakerTheNodeBgpAndTheAdvertisements() throws Exception {
    start();
    ControllerObjects.advert(
        client, "default", "svc", "203.0.113.30/32", Map.of(PEER, AdvertiseStatus.NotAdvertised));
    awaitEstablished();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> advertStatus("svc").get(PEER) == AdvertiseStatus.Advertised);
    client.resources(BGPPeer.class).withName(PEER).delete();
    await("BGPPeer gone (finalizer removed)")
        .atMost(Duration.ofSeconds(30))
        .until(() -> bgpPeer() == null);
    assertNull(speaker.bgp.peer(InetAddress.getByName("192.0.2.2")));
    assertTrue(nodeBgp().getSpec().peers() == null || nodeBgp().getSpec().peers().isEmpty());
    assertTrue(advertStatus("svc").isEmpty(), advertStatus("svc")::toString);
    bird.awaitNoRoute("203.0.113.30/32");
  }

  @Test
  void aDeletedNodeBgpIsHeldWhileTheSpeakerHasNeighboursThenClearsTheSpeaker() throws Exception {
    start();
    ControllerObjects.advert(
        client, "default", "svc", "203.0.113.60/32", Map.of(PEER, AdvertiseStatus.NotAdvertised));
    awaitEstablished();
    bird.awaitRoute("203.0.113.60/32");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> nodeBgp().getMetadata().getFinalizers().contains(Sart.NODE_BGP_FINALIZER));

    client.resources(NodeBGP.class).withName(NODE).delete();
    // sart: refused while the speaker has a neighbour; the agent keeps serving the node meanwhile
    await("NodeBGP held")
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              NodeBGP nb = nodeBgp();
              return nb != null
                  && nb.getMetadata().getDeletionTimestamp() != null
                  && speaker.bgp.localAs() == 65001
                  && speaker.bgp.peer(InetAddress.getByName("192.0.2.2")) != null;
            });
    bird.awaitRoute("203.0.113.60/32");
    assertEquals(BGPPeerCondition.Status.Established, peerStatus());

    // the node's last BGPPeer goes: its neighbour leaves the speaker, then the NodeBGP goes and
    // takes the speaker's configuration along (ClearBgpInfo)
    client.resources(BGPPeer.class).withName(PEER).delete();
    await("NodeBGP gone").atMost(Duration.ofSeconds(30)).until(() -> nodeBgp() == null);
    assertNull(bgpPeer());
    assertEquals(0, speaker.bgp.localAs(), "ClearBgpInfo: AS 0");
    assertEquals(0, speaker.bgp.routerId(), "ClearBgpInfo: no router id");
    assertTrue(speaker.bgp.peers().isEmpty());
    bird.awaitNoRoute("203.0.113.60/32");
    // and it stays cleared: the agent does not configure a speaker for a NodeBGP that is gone
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .until(() -> speaker.bgp.localAs() == 0);
  }

  @Test
  void theNodesBgpPeersComingAndGoingAreToldToListeners() throws Exception {
    Topology t = testbed.topology();
    speaker = new RealSpeaker(t.node("sart")).start();
    client
        .resource(ControllerObjects.nodeBgp(NODE, 65001, "192.0.2.1", speaker.endpoint()))
        .create();
    client.resource(ControllerObjects.peer(NODE, 65002, "192.0.2.2", null, null, null)).create();
    java.util.concurrent.atomic.AtomicInteger told =
        new java.util.concurrent.atomic.AtomicInteger();
    agent =
        new BgpAgent(client, NODE, Duration.ofSeconds(30))
            .onPeersChanged(told::incrementAndGet)
            .start();
    await("the existing peer").atMost(Duration.ofSeconds(10)).until(() -> told.get() == 1);
    client.resource(ControllerObjects.peer(NODE, 65003, "192.0.2.6", null, null, null)).create();
    await("a new peer").atMost(Duration.ofSeconds(10)).until(() -> told.get() == 2);
    // another node's peer is none of ours
    client.resource(ControllerObjects.peer("node2", 65004, "192.0.2.9", null, null, null)).create();
    client.resources(BGPPeer.class).withName(PEER2).delete();
    await("a deleted peer (finalizer: being deleted, then gone)")
        .atMost(Duration.ofSeconds(30))
        .until(() -> told.get() >= 3 && bgpPeer2() == null);
    int n = told.get();
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(4))
        .until(() -> told.get() == n);
  }

  private static BGPPeer bgpPeer2() {
    return client.resources(BGPPeer.class).withName(PEER2).get();
  }

  @Test
  void aPeerListedInTheNodeBgpGetsItsBgpPeer() throws Exception {
    Topology t = testbed.topology();
    Node s = t.node("sart");
    Node p = t.node("peer");
    t.link(s, p).addresses("192.0.2.1/30", "192.0.2.2/30");
    speaker = new RealSpeaker(s).start(restart);
    bird =
        RouterKind.BIRD
            .create(
                p, RouterConfig.of(65002, "192.0.2.2").neighbor(Neighbor.of("192.0.2.1", 65001)))
            .start();
    NodeBGP nb = ControllerObjects.nodeBgp(NODE, 65001, "192.0.2.1", speaker.endpoint());
    nb.setSpec(
        new dev.sart.crds.NodeBGPSpec(
            65001L,
            "192.0.2.1",
            nb.getSpec().speaker(),
            java.util.List.of(
                new dev.sart.crds.NodeBGPPeer(
                    PEER,
                    ControllerObjects.peer(NODE, 65002, "192.0.2.2", null, null, null)
                        .getSpec()))));
    client.resource(nb).create();
    agent = new BgpAgent(client, NODE, Duration.ofSeconds(30)).start();
    await().atMost(Duration.ofSeconds(30)).until(() -> bgpPeer() != null);
    assertEquals(NODE, bgpPeer().getMetadata().getLabels().get(Sart.BGP_PEER_NODE_LABEL));
    awaitEstablished();
  }

  @Test
  void thePasswordComesFromASecret() throws Exception {
    client
        .secrets()
        .inNamespace("kube-system")
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName("peer-md5")
                .endMetadata()
                .addToStringData("password", "s3cret")
                .build())
        .create();
    start(
        n -> n.withPassword("s3cret"),
        Map.of(
            PeerOptions.CONNECT_RETRY_TIME,
            "1",
            PeerOptions.PASSWORD_SECRET,
            "kube-system/peer-md5"));
    awaitEstablished();
  }

  @Test
  void aBadAnnotationIsReportedInTheStatus() throws Exception {
    start(n -> n, Map.of(PeerOptions.MULTIHOP_TTL, "300"));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> peerStatus() == BGPPeerCondition.Status.Unknown);
    String reason = PeerReconciler.last(bgpPeer().getStatus()).reason();
    assertTrue(
        reason.startsWith("InvalidConfiguration") && reason.contains("multihop-ttl"), reason);
    assertNull(speaker.bgp.peer(InetAddress.getByName("192.0.2.2")));
  }
}
