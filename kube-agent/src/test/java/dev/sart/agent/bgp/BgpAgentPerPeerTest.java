package dev.sart.agent.bgp;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.testing.ControllerObjects;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.Router;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.RouterKind;
import dev.sart.testbed.Topology;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Per-peer announcement: two BGPPeers on the node (BIRD at 192.0.2.2, AS 65002, and another BIRD at
 * 192.0.2.6, AS 65003); an advert reaches only the peers its status targets, as each BIRD shows it.
 */
class BgpAgentPerPeerTest extends BgpAgentFixture {
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
}
