package dev.sart.agent.bgp;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.BGPPeerCondition;
import dev.sart.crds.NodeBGP;
import dev.sart.crds.NodeBGPCondition;
import dev.sart.crds.Sart;
import dev.sart.crds.testing.ControllerObjects;
import dev.sart.testbed.Topology;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The node's NodeBGP: the speaker configured from it, its conditions, its deletion. */
class BgpAgentNodeBgpTest extends BgpAgentFixture {
  /** Until the NodeBGP has a condition. */
  private static void awaitCondition() {
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> NodeBgpReconciler.last(nodeBgp().getStatus()) != null);
  }

  @Test
  void nodeBgpConfiguresTheSpeakerAndSaysSo() throws Exception {
    start();
    await().atMost(Duration.ofSeconds(30)).until(() -> speaker.bgp.localAs() == 65001);
    assertEquals(dev.sart.bgp.wire.Ip.parseV4("192.0.2.1"), speaker.bgp.routerId());
    awaitCondition();
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
    awaitCondition();
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
    awaitCondition();
    assertEquals(
        new NodeBGPCondition(
            NodeBGPCondition.Status.Unavailable, NodeBGPCondition.Reason.InvalidConfiguration),
        NodeBgpReconciler.last(nodeBgp().getStatus()));
    assertEquals(
        65009, speaker.bgp.localAs(), "the agent does not override a speaker configured otherwise");
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

  /**
   * A NodeBGP the agent's cache still shows but the API server no longer has (deleted before the
   * agent held it) is not taken as held, so the agent sets nothing of it up; one it has gets the
   * finalizer.
   */
  @Test
  void theFinalizerIsHeldOnlyOnANodeBgpTheApiServerHas() {
    NodeBgpReconciler nodeBgps = new NodeBgpReconciler(client);
    NodeBGP cached = ControllerObjects.nodeBgp(NODE, 65001, "192.0.2.1", "127.0.0.1:5000");
    assertFalse(nodeBgps.ensureFinalizer(cached));
    assertNull(nodeBgp());
    client.resource(cached).create();
    assertTrue(nodeBgps.ensureFinalizer(nodeBgp()));
    assertTrue(nodeBgp().getMetadata().getFinalizers().contains(Sart.NODE_BGP_FINALIZER));
  }
}
