package dev.sart.agent.bgp;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.BGPPeerCondition;
import dev.sart.crds.LockedEdit;
import dev.sart.crds.NodeBGP;
import dev.sart.crds.Sart;
import dev.sart.crds.testing.ControllerObjects;
import dev.sart.testbed.Topology;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The node's BGPPeers: their sessions on the speaker, their status, annotations and deletion. */
class BgpAgentPeerTest extends BgpAgentFixture {
  /**
   * The additions {@code bfd} and {@code gracefulRestart} of a BGPPeer reach the speaker's AddPeer,
   * and a change of them its UpdatePeer.
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
    LockedEdit.edit(
        client,
        client.resources(BGPPeer.class).withName(PEER),
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
                  new dev.sart.crds.GracefulRestartSpec(false, 30L, true)));
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
        new dev.sart.bgp.peer.PeerConfig.GracefulRestart(false, Duration.ofSeconds(30), true),
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

  /**
   * A changed hold time restarts the session through the speaker's UpdatePeer: BIRD is told why
   * (Cease / Other Configuration Change, RFC 4486), and the new session has the new hold time.
   */
  @Test
  void aChangedTimerRestartsTheSession() throws Exception {
    start();
    awaitEstablished();
    LockedEdit.edit(
        client,
        client.resources(BGPPeer.class).withName(PEER),
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
    // BIRD's log: "n0: Received: Other configuration change"
    String birdLog = bird.logTail();
    assertTrue(birdLog.contains("Received: Other configuration change"), birdLog);
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

  /**
   * A BGPPeer deleted before the agent put its finalizer on it, while the agent's cache still shows
   * it (a create and a delete in quick succession): nothing of it is set up, so nothing lists it in
   * the NodeBGP, from where it would be created again.
   */
  @Test
  void aPeerDeletedBeforeTheAgentHeldItIsNeitherSetUpNorCreatedAgain() throws Exception {
    speaker = new RealSpeaker(testbed.topology().node("sart")).start();
    NodeBGP nb =
        client
            .resource(ControllerObjects.nodeBgp(NODE, 65001, "192.0.2.1", speaker.endpoint()))
            .create();
    BGPPeer cached = ControllerObjects.peer(NODE, 65003, "192.0.2.6", null, null, null);
    PeerReconciler peers = new PeerReconciler(client);
    try (Speaker api = new Speaker(speaker.endpoint(), Duration.ofSeconds(10))) {
      api.configure(65001, "192.0.2.1");
      // as a pass does: each peer's export policy first
      api.setPolicy(ExportPolicies.policy(PEER2, java.util.Set.of(), java.util.Set.of()));
      peers.reconcile(nb, List.of(cached), api, new PeerWatch(() -> {}));
      assertNull(speaker.bgp.peer(InetAddress.getByName("192.0.2.6")));
      NodeBGP now = nodeBgp();
      assertTrue(
          now.getSpec().peers() == null || now.getSpec().peers().isEmpty(),
          () -> "the NodeBGP lists " + now.getSpec().peers());
      peers.createListed(now, List.of());
      assertNull(client.resources(BGPPeer.class).withName(PEER2).get());
    }
  }

  private static BGPPeer bgpPeer2() {
    return client.resources(BGPPeer.class).withName(PEER2).get();
  }

  @Test
  void aPeerListedInTheNodeBgpGetsItsBgpPeer() throws Exception {
    speakerAndBird(n -> n);
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
