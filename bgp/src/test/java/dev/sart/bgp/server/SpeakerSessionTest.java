package dev.sart.bgp.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.wire.Communities;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.LargeCommunities;
import dev.sart.bgp.wire.LocalPref;
import dev.sart.bgp.wire.MultiExitDisc;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.PathAttributes;
import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.Route;
import dev.sart.testbed.Router;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.RouterKind;
import dev.sart.testbed.SessionState;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Attributes as FRR shows them over iBGP and eBGP, and peer deletion. MD5, passive, iBGP with each
 * daemon: {@link SpeakerOptionsInteropTest}.
 */
class SpeakerSessionTest {
  @RegisterExtension final Testbed testbed = new Testbed();
  private BgpServer server;
  private Router router;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  /** sart at 192.0.2.1 (AS 65001), the daemon at 192.0.2.2 (AS {@code peerAs}). */
  private Peer pair(
      RouterKind kind, long peerAs, UnaryOperator<PeerConfig> ours, UnaryOperator<Neighbor> theirs)
      throws Exception {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    Node peer = t.node("peer");
    t.link(sart, peer).addresses("192.0.2.1/30", "192.0.2.2/30");
    server = new BgpServer(179, 1, NamespaceThreads.factory(sart, "bgp-io"));
    server.setLocalAs(65001);
    server.setRouterId(Ip.parseV4("192.0.2.1"));
    server.start();
    Peer p =
        server.addPeer(
            ours.apply(
                SpeakerInteropTest.quick(
                    PeerConfig.of(InetAddress.getByName("192.0.2.2"), peerAs))));
    router =
        kind.create(
                peer,
                RouterConfig.of(peerAs, "192.0.2.2")
                    .neighbor(theirs.apply(Neighbor.of("192.0.2.1", 65001)))
                    .originate("198.51.100.0/24"))
            .start();
    return p;
  }

  @Test
  void anIbgpSessionCarriesLocalPrefAndCommunitiesAsFrrShowsThem() throws Exception {
    pair(RouterKind.FRR, 65001, c -> c, n -> n);
    router.awaitEstablished("192.0.2.1");
    server.addPaths(
        List.of(Prefix.parse("203.0.113.0/24")),
        PathAttributes.of(
            Origin.IGP,
            new LocalPref(250),
            new MultiExitDisc(42),
            Communities.of(Communities.community(65001, 100)),
            LargeCommunities.of(65001, 7, 8)));
    Route r = router.awaitRoute("203.0.113.0/24");
    assertEquals(List.of(), r.asPath(), "iBGP: no AS prepended");
    assertEquals(250, r.localPref().orElseThrow());
    assertEquals(42, r.med().orElseThrow());
    assertTrue(
        r.communities().containsAll(List.of("65001:100", "65001:7:8")), r.communities()::toString);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> server.rib().query(v -> v.route(Prefix.parse("198.51.100.0/24"))).join() != null);
    // FRR sends LOCAL_PREF 100 to an internal peer
    long lp =
        server
            .rib()
            .query(
                v ->
                    v.route(Prefix.parse("198.51.100.0/24")).paths().getFirst().attrs().localPref())
            .join();
    assertEquals(100, lp);
  }

  @Test
  void anEbgpPeerGetsOurMedButNotOurLocalPref() throws Exception {
    pair(RouterKind.FRR, 65002, c -> c, n -> n);
    router.awaitEstablished("192.0.2.1");
    server.addPaths(
        List.of(Prefix.parse("203.0.113.0/24")),
        PathAttributes.of(Origin.IGP, new LocalPref(250), new MultiExitDisc(42)));
    Route r = router.awaitRoute("203.0.113.0/24");
    assertEquals(List.of(65001L), r.asPath());
    assertEquals(
        42, r.med().orElseThrow(), "RFC 4271 §5.1.4: our own MED goes to the neighbouring AS");
    assertTrue(
        r.localPref().isEmpty() || r.localPref().getAsLong() == 100,
        "LOCAL_PREF is not sent over eBGP");
  }

  @Test
  void deletingAPeerSendsCeaseAndTheDaemonDropsOurRoutes() throws Exception {
    pair(RouterKind.FRR, 65002, c -> c, n -> n);
    router.awaitEstablished("192.0.2.1");
    server.addPaths(List.of(Prefix.parse("203.0.113.0/24")), PathAttributes.of(Origin.IGP));
    router.awaitRoute("203.0.113.0/24");
    server.deletePeer(InetAddress.getByName("192.0.2.2")).join();
    router.awaitNoRoute("203.0.113.0/24");
    assertNotEquals(SessionState.ESTABLISHED, router.sessionState("192.0.2.1"));
  }
}
