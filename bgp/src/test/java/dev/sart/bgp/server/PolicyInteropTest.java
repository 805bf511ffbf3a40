package dev.sart.bgp.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.bgp.fsm.State;
import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.policy.Action;
import dev.sart.bgp.policy.Match;
import dev.sart.bgp.policy.MaxPrefix;
import dev.sart.bgp.policy.PeerPolicy;
import dev.sart.bgp.policy.Policy;
import dev.sart.bgp.policy.PrefixList;
import dev.sart.bgp.policy.Statement;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.rib.Rib;
import dev.sart.bgp.wire.Communities;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.PathAttributes;
import dev.sart.testbed.Bird;
import dev.sart.testbed.Frr;
import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.Route;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.SessionState;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Policies, max-prefix and route refresh against FRR, with FRR's own CLI as the oracle: what it
 * shows of our routes, of the NOTIFICATION we sent, of the refreshes it asked for.
 */
class PolicyInteropTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int UPDATE = 2;
  private static final int ROUTE_REFRESH = 5;

  @RegisterExtension final Testbed testbed = new Testbed();
  private BgpServer server;
  private Frr frr;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  /**
   * sart at 192.0.2.1 (AS 65001) with {@code policy}, FRR at 192.0.2.2 (AS {@code frrAs})
   * originating {@code routes}.
   */
  private Peer pair(long frrAs, PeerPolicy policy, String... routes) throws Exception {
    return pair(frrAs, policy, f -> {}, routes);
  }

  /**
   * As above; {@code frrSetup} runs once FRR is up, before we add the peer (so before the session).
   */
  private Peer pair(
      long frrAs, PeerPolicy policy, java.util.function.Consumer<Frr> frrSetup, String... routes)
      throws Exception {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    Node peer = t.node("peer");
    t.link(sart, peer).addresses("192.0.2.1/30", "192.0.2.2/30");
    server = new BgpServer(179, 1, NamespaceThreads.factory(sart, "bgp-io"));
    server.setLocalAs(65001);
    server.setRouterId(Ip.parseV4("192.0.2.1"));
    server.start();
    frr =
        Frr.withoutZebra(
            peer,
            RouterConfig.of(frrAs, "192.0.2.2")
                .neighbor(Neighbor.of("192.0.2.1", 65001))
                .originate(routes));
    frr.start();
    frrSetup.accept(frr);
    return server.addPeer(
        SpeakerInteropTest.quick(PeerConfig.of(InetAddress.getByName("192.0.2.2"), frrAs)), policy);
  }

  private JsonNode neighbor() throws Exception {
    return JSON.readTree(frr.vtysh("show bgp neighbors 192.0.2.1 json")).path("192.0.2.1");
  }

  private boolean inRib(String prefix) {
    return server.rib().query(v -> v.route(Prefix.parse(prefix))).join() != null;
  }

  @Test
  void exceedingMaxPrefixSendsCeaseOneAndTheSessionStaysDown() throws Exception {
    Peer p =
        pair(
            65002,
            PeerPolicy.NONE.withMaxPrefix(new MaxPrefix(2, false, null)),
            f -> f.vtysh("configure terminal", "router bgp 65002", "bgp log-neighbor-changes"),
            "198.51.100.0/24",
            "198.51.100.128/25",
            "203.0.113.0/24");
    await().atMost(Duration.ofSeconds(30)).until(() -> p.status().flaps() >= 1);
    JsonNode n =
        await()
            .atMost(Duration.ofSeconds(10))
            .until(
                this::neighbor,
                j ->
                    j.path("lastNotificationReason")
                        .asText()
                        .contains("Maximum Number of Prefixes"));
    assertEquals(
        "Cease/Maximum Number of Prefixes Reached",
        n.path("lastNotificationReason").asText(),
        n::toString);
    assertEquals("0601", n.path("lastErrorCodeSubcode").asText(), n::toString);
    assertTrue(
        p.status().lastError().contains("Maximum Number of Prefixes"), p.status()::lastError);
    // FRR logs the data: RFC 4486 §4 AFI 1, SAFI 1, upper bound 2
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                frr.logTail()
                    .contains(
                        "6/1 (Cease/Maximum Number of Prefixes Reached) 7 bytes 00 01 01 00 00 00 02"));
    // no restart timer: the session stays down (FRR keeps trying; we refuse in Idle)
    await()
        .during(Duration.ofSeconds(4))
        .atMost(Duration.ofSeconds(6))
        .until(
            () ->
                p.status().state() == State.IDLE
                    && frr.sessionState("192.0.2.1") != SessionState.ESTABLISHED);
    assertFalse(inRib("198.51.100.0/24"), "the routes went with the session");
  }

  @Test
  void withARestartTimerTheSessionComesBackAfterMaxPrefix() throws Exception {
    Peer p =
        pair(
            65002,
            PeerPolicy.NONE.withMaxPrefix(new MaxPrefix(1, false, Duration.ofSeconds(1))),
            "198.51.100.0/24",
            "203.0.113.0/24");
    // it comes up, is closed for max-prefix, comes up again after the restart timer, is closed
    // again
    await().atMost(Duration.ofSeconds(40)).until(() -> p.status().flaps() >= 2);
    assertTrue(
        neighbor().path("lastNotificationReason").asText().contains("Maximum Number of Prefixes"));
  }

  @Test
  void exportPolicyEffectsAsFrrShowsThem() throws Exception {
    PrefixList noMoreSpecifics =
        PrefixList.of("no-more-specifics", "deny 203.0.113.0/24 ge 25", "permit any");
    Policy out =
        Policy.of(
            "to-frr",
            false,
            Statement.accept(
                Match.prefixes(noMoreSpecifics),
                new Action.SetMed(50),
                new Action.PrependAsPath(0, 2),
                new Action.SetCommunities(List.of(Communities.community(65001, 42)), false),
                new Action.SetLargeCommunities(
                    List.of(Match.LargeCommunity.parse("65001:1:2")), false)));
    pair(65002, PeerPolicy.NONE.withExport(out), "198.51.100.0/24");
    server.addPaths(
        List.of(Prefix.parse("203.0.113.0/24"), Prefix.parse("203.0.113.128/25")),
        PathAttributes.of(Origin.IGP));
    frr.awaitEstablished("192.0.2.1");
    Route r = frr.awaitRoute("203.0.113.0/24");
    assertEquals(List.of(65001L, 65001L, 65001L), r.asPath(), "prepended twice, then our own AS");
    assertEquals(50, r.med().orElseThrow());
    assertTrue(
        r.communities().containsAll(List.of("65001:42", "65001:1:2")), r.communities()::toString);
    assertTrue(
        frr.routes(dev.sart.net.IpPrefix.parse("203.0.113.128/25")).isEmpty(),
        "denied by the prefix list");

    // a new export policy applies at once: the /24 is withdrawn, the /25 announced
    server
        .peer(InetAddress.getByName("192.0.2.2"))
        .setPolicy(
            PeerPolicy.NONE.withExport(
                Policy.of(
                    "only-25",
                    false,
                    Statement.accept(Match.prefixes(PrefixList.of("p", "203.0.113.128/25"))))));
    frr.awaitRoute("203.0.113.128/25");
    frr.awaitNoRoute("203.0.113.0/24");
  }

  @Test
  void anExportedLocalPrefReachesAnInternalPeer() throws Exception {
    pair(
        65001,
        PeerPolicy.NONE.withExport(
            Policy.of("lp", true, Statement.accept(Match.ANY, new Action.SetLocalPref(250)))));
    server.addPaths(List.of(Prefix.parse("203.0.113.0/24")), PathAttributes.of(Origin.IGP));
    assertEquals(250, frr.awaitRoute("203.0.113.0/24").localPref().orElseThrow());
  }

  @Test
  void anImportPolicyFiltersAndAChangedOneAsksFrrForTheRoutesAgain() throws Exception {
    Policy noMoreSpecifics =
        Policy.of(
            "in",
            true,
            Statement.reject(Match.prefixes(PrefixList.of("l", "198.51.100.0/24 ge 25"))),
            Statement.accept(Match.ANY, new Action.SetLocalPref(200)));
    Peer p =
        pair(
            65002,
            PeerPolicy.NONE.withImport(noMoreSpecifics),
            "198.51.100.0/24",
            "198.51.100.128/25");
    await().atMost(Duration.ofSeconds(30)).until(() -> inRib("198.51.100.0/24"));
    assertEquals(
        200,
        server
            .rib()
            .query(
                v ->
                    v.route(Prefix.parse("198.51.100.0/24")).paths().getFirst().attrs().localPref())
            .join());
    assertFalse(inRib("198.51.100.128/25"));
    long refreshesSent = p.status().sent()[ROUTE_REFRESH];

    // no routes kept as received: the change needs FRR to send them again (RFC 2918)
    p.setPolicy(PeerPolicy.NONE);
    await().atMost(Duration.ofSeconds(10)).until(() -> inRib("198.51.100.128/25"));
    assertEquals(refreshesSent + 1, p.status().sent()[ROUTE_REFRESH]);
    assertEquals(
        1, neighbor().path("messageStats").path("routeRefreshRecv").asLong(), neighbor()::toString);
    // FRR answered between BoRR and EoRR; what it sent again stays (RFC 7313 §4 stale routes)
    await().atMost(Duration.ofSeconds(10)).until(() -> p.status().received()[ROUTE_REFRESH] >= 2);
    await()
        .during(Duration.ofSeconds(1))
        .atMost(Duration.ofSeconds(3))
        .until(() -> inRib("198.51.100.0/24") && inRib("198.51.100.128/25"));
  }

  @Test
  void withSoftReconfigurationAChangedImportPolicyNeedsNothingFromFrr() throws Exception {
    Policy reject25 =
        Policy.of(
            "in", true, Statement.reject(Match.prefixes(PrefixList.of("l", "198.51.100.128/25"))));
    PeerPolicy soft = PeerPolicy.NONE.withImport(reject25).withSoftReconfigurationInbound(true);
    Peer p = pair(65002, soft, "198.51.100.0/24", "198.51.100.128/25");
    await().atMost(Duration.ofSeconds(30)).until(() -> inRib("198.51.100.0/24"));
    assertFalse(inRib("198.51.100.128/25"));
    long updates = p.status().received()[UPDATE];
    p.setPolicy(soft.withImport(Policy.ACCEPT_ALL));
    await().atMost(Duration.ofSeconds(10)).until(() -> inRib("198.51.100.128/25"));
    assertEquals(0, p.status().sent()[ROUTE_REFRESH]);
    assertEquals(updates, p.status().received()[UPDATE], "nothing asked of FRR, nothing received");
  }

  @Test
  void enhancedRouteRefreshBothWaysWithBird() throws Exception {
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
            SpeakerInteropTest.quick(PeerConfig.of(InetAddress.getByName("192.0.2.2"), 65002)));
    server.addPaths(List.of(Prefix.parse("203.0.113.0/24")), PathAttributes.of(Origin.IGP));
    Bird bird =
        new Bird(
            peer,
            RouterConfig.of(65002, "192.0.2.2")
                .neighbor(Neighbor.of("192.0.2.1", 65001))
                .originate("198.51.100.0/24"));
    bird.start();
    bird.awaitRoute("203.0.113.0/24");
    await().atMost(Duration.ofSeconds(30)).until(() -> inRib("198.51.100.0/24"));
    assertTrue(bird.birdc("show protocols all n0").contains("Enhanced refresh"), "negotiated");

    // BIRD asks (ROUTE-REFRESH); we answer between BoRR and EoRR; BIRD drops what we do not send
    // again
    bird.birdc("reload in n0");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                p.status().received()[ROUTE_REFRESH] == 1 && p.status().sent()[ROUTE_REFRESH] == 2);
    await()
        .during(Duration.ofSeconds(1))
        .atMost(Duration.ofSeconds(3))
        .until(() -> !bird.routes(dev.sart.net.IpPrefix.parse("203.0.113.0/24")).isEmpty());

    // we ask; BIRD answers between BoRR and EoRR; its route stays with us
    p.requestRouteRefresh();
    await().atMost(Duration.ofSeconds(10)).until(() -> p.status().received()[ROUTE_REFRESH] == 3);
    await()
        .during(Duration.ofSeconds(1))
        .atMost(Duration.ofSeconds(3))
        .until(() -> inRib("198.51.100.0/24"));
  }

  @Test
  void frrsSoftInIsAnsweredWithOurRoutesBetweenBorrAndEorrAndItsSoftOutReachesOurRib()
      throws Exception {
    Peer p = pair(65002, PeerPolicy.NONE, "198.51.100.0/24");
    server.addPaths(List.of(Prefix.parse("203.0.113.0/24")), PathAttributes.of(Origin.IGP));
    frr.awaitRoute("203.0.113.0/24");
    await().atMost(Duration.ofSeconds(30)).until(() -> inRib("198.51.100.0/24"));
    JsonNode caps = neighbor().path("neighborCapabilities");
    assertEquals(
        "advertisedAndReceived", caps.path("enhancedRouteRefresh").asText(), caps::toString);
    long updatesSent = p.status().sent()[UPDATE];

    // FRR asks for our Adj-RIB-Out; with enhanced route refresh it marks our routes stale at the
    // BoRR and drops those not sent again by the EoRR: the route must survive
    frr.vtysh("clear bgp ipv4 unicast 192.0.2.1 soft in");
    await().atMost(Duration.ofSeconds(10)).until(() -> p.status().received()[ROUTE_REFRESH] == 1);
    await().atMost(Duration.ofSeconds(10)).until(() -> p.status().sent()[UPDATE] > updatesSent);
    // BoRR and EoRR are ROUTE-REFRESH messages too
    assertEquals(2, p.status().sent()[ROUTE_REFRESH]);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> neighbor().path("messageStats").path("routeRefreshRecv").asLong() >= 2);
    // FRR purges stale routes at the EoRR: ours stays
    await("203.0.113.0/24 still on FRR after the EoRR")
        .during(Duration.ofMillis(1500))
        .atMost(Duration.ofSeconds(3))
        .until(() -> !frr.routes(dev.sart.net.IpPrefix.parse("203.0.113.0/24")).isEmpty());

    // FRR sends its Adj-RIB-Out again: we take it as an implicit replacement
    long updatesReceived = p.status().received()[UPDATE];
    frr.vtysh("clear bgp ipv4 unicast 192.0.2.1 soft out");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> p.status().received()[UPDATE] > updatesReceived);
    assertTrue(inRib("198.51.100.0/24"));
    assertEquals(State.ESTABLISHED, p.status().state());
    Rib rib = server.rib();
    assertEquals(1, rib.query(v -> v.route(Prefix.parse("198.51.100.0/24")).paths().size()).join());
  }
}
