package dev.sart.bgp.rib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.policy.Action;
import dev.sart.bgp.policy.Match;
import dev.sart.bgp.policy.MaxPrefix;
import dev.sart.bgp.policy.PeerPolicy;
import dev.sart.bgp.policy.Policy;
import dev.sart.bgp.policy.PrefixList;
import dev.sart.bgp.policy.Statement;
import dev.sart.bgp.wire.AsPath;
import dev.sart.bgp.wire.Communities;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.LocalPref;
import dev.sart.bgp.wire.MpNextHop;
import dev.sart.bgp.wire.MultiExitDisc;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.PathAttributes;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Import and export policies, soft reconfiguration, max-prefix and route refresh, through the RIB.
 */
@ParameterizedClass(name = "{0} shard(s)")
@ValueSource(ints = {1, 3})
class RibPolicyTest {
  /**
   * The RIB's shards: one, and more than this machine's cores, so prefixes of one UPDATE spread.
   */
  @Parameter int shards;

  static final Set<Family> BOTH = Set.of(Family.IPV4_UNICAST, Family.IPV6_UNICAST);
  static final Prefix P1 = Prefix.parse("203.0.113.0/24");
  static final Prefix P2 = Prefix.parse("198.51.100.0/24");
  static final Prefix P3 = Prefix.parse("192.0.2.128/25");
  static final int C_REJECT = Communities.community(65002, 666);
  static final Policy NO_P2 =
      Policy.of(
          "no-p2", true, Statement.reject(Match.prefixes(PrefixList.of("p2", "198.51.100.0/24"))));
  Rib rib;
  int ids;

  @BeforeEach
  void setUp() {
    rib = new Rib(shards);
    rib.setLocalAs(65001);
  }

  @AfterEach
  void tearDown() {
    rib.close();
  }

  RibPeer peer(String address, long asn) throws Exception {
    return new RibPeer(
        ++ids,
        InetAddress.getByName(address),
        asn,
        ids,
        false,
        new MpNextHop.V4(Ip.parseV4("192.0.2.1")),
        MpNextHop.V6.of("2001:db8::1"),
        BOTH,
        new AdjRibOut(() -> {}));
  }

  static Attrs attrs(PathAttributes a) {
    return Attrs.of(a, new MpNextHop.V4(Ip.parseV4("198.51.100.9")));
  }

  static Attrs path(long... asPath) {
    return attrs(PathAttributes.of(Origin.IGP, AsPath.sequence(asPath)));
  }

  AdjRibOut.Batch sent(RibPeer p) {
    rib.query(v -> null).join();
    return p.out().drain(Integer.MAX_VALUE, BOTH);
  }

  RouteView route(Prefix p) {
    return rib.query(v -> v.route(p)).join();
  }

  @Test
  void theImportPolicyKeepsRejectedRoutesOutOfTheLocRib() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002);
    RibPeer b = peer("192.0.2.3", 65003);
    rib.peerUp(a, PeerPolicy.NONE.withImport(NO_P2), null);
    rib.peerUp(b);
    sent(b);
    rib.update(a, List.of(), null, List.of(P1, P2), null, path(65002));
    assertNotNull(route(P1));
    assertNull(route(P2));
    assertEquals(List.of(P1), sent(b).announce().values().iterator().next());
    assertEquals(1, rib.query(v -> v.accepted(a, Family.IPV4_UNICAST)).join());
  }

  @Test
  void aLocalPrefSetOnImportDecidesTheBestPath() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002);
    RibPeer b = peer("192.0.2.3", 65003);
    rib.peerUp(a);
    rib.peerUp(
        b,
        PeerPolicy.NONE.withImport(
            Policy.of("pref", true, Statement.accept(Match.ANY, new Action.SetLocalPref(200)))),
        null);
    rib.update(a, List.of(), null, List.of(P1), null, path(65002));
    rib.update(b, List.of(), null, List.of(P1), null, path(65003, 64512, 64513));
    RouteView r = route(P1);
    assertSame(b, r.selected().getFirst().source(), "LOCAL_PREF 200 beats the shorter AS_PATH");
    assertEquals(200, r.selected().getFirst().attrs().localPref());
  }

  @Test
  void aReannouncementThePolicyRejectsWithdrawsTheEarlierPath() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002);
    rib.peerUp(
        a,
        PeerPolicy.NONE.withImport(
            Policy.of("no-666", true, Statement.reject(Match.community(C_REJECT)))),
        null);
    rib.update(a, List.of(), null, List.of(P1), null, path(65002));
    assertNotNull(route(P1));
    rib.update(
        a,
        List.of(),
        null,
        List.of(P1),
        null,
        attrs(PathAttributes.of(Origin.IGP, AsPath.sequence(65002), Communities.of(C_REJECT))));
    assertNull(route(P1));
    assertEquals(0, rib.query(v -> v.accepted(a, Family.IPV4_UNICAST)).join());
  }

  @Test
  void withSoftReconfigurationANewImportPolicyAppliesToTheRoutesAsReceived() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002);
    PeerPolicy soft = PeerPolicy.NONE.withImport(NO_P2).withSoftReconfigurationInbound(true);
    rib.peerUp(a, soft, null);
    rib.update(a, List.of(), null, List.of(P1, P2), null, path(65002));
    assertNull(route(P2));
    assertEquals(
        List.of(P2, P1),
        rib.query(v -> v.receivedPrePolicy(a, Family.IPV4_UNICAST)).join().stream()
            .map(Map.Entry::getKey)
            .toList(),
        "both kept as received");
    rib.setPolicy(
        a,
        soft.withImport(
            Policy.of(
                "no-p1",
                true,
                Statement.reject(Match.prefixes(PrefixList.of("p1", "203.0.113.0/24"))))));
    assertNotNull(route(P2), "accepted now, without the peer sending it again");
    assertNull(route(P1), "rejected now");
  }

  @Test
  void withoutSoftReconfigurationANewImportPolicyWaitsForTheRoutesToComeAgain() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002);
    rib.peerUp(a, PeerPolicy.NONE.withImport(NO_P2), null);
    rib.update(a, List.of(), null, List.of(P1, P2), null, path(65002));
    assertNull(
        rib.query(v -> v.receivedPrePolicy(a, Family.IPV4_UNICAST)).join(),
        "nothing kept as received");
    rib.setPolicy(a, PeerPolicy.NONE);
    assertNull(route(P2));
    rib.update(
        a,
        List.of(),
        null,
        List.of(P1, P2),
        null,
        path(65002)); // the peer's answer to ROUTE-REFRESH
    assertNotNull(route(P2));
  }

  @Test
  void theExportPolicySetsMedAndCommunitiesPrependsAndNeverSendsLocalPrefToAnExternalPeer()
      throws Exception {
    RibPeer a = peer("192.0.2.2", 65002);
    RibPeer b = peer("192.0.2.3", 65003);
    rib.peerUp(a);
    rib.peerUp(
        b,
        PeerPolicy.NONE.withExport(
            Policy.of(
                "out",
                true,
                Statement.accept(
                    Match.ANY,
                    new Action.SetMed(50),
                    new Action.SetLocalPref(300),
                    new Action.PrependAsPath(0, 2),
                    new Action.SetCommunities(List.of(Communities.community(65001, 1)), false)))),
        null);
    sent(b);
    rib.update(a, List.of(), null, List.of(P1), null, path(65002));
    Attrs out = sent(b).announce().keySet().iterator().next();
    assertEquals(AsPath.sequence(65001, 65001, 65001, 65002), out.asPath());
    assertEquals(new MultiExitDisc(50), out.attributes().orNull(MultiExitDisc.class));
    assertEquals(
        Communities.of(Communities.community(65001, 1)),
        out.attributes().orNull(Communities.class));
    assertNull(out.attributes().orNull(LocalPref.class), "RFC 4271 §5.1.5");
    assertEquals(new MpNextHop.V4(Ip.parseV4("192.0.2.1")), out.nextHop());
  }

  @Test
  void aNewExportPolicyWithdrawsWhatNoLongerPassesAndKeepsTheRest() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002);
    RibPeer b = peer("192.0.2.3", 65003);
    rib.peerUp(a);
    rib.peerUp(b);
    rib.update(a, List.of(), null, List.of(P1, P2), null, path(65002));
    assertEquals(2, sent(b).announce().values().iterator().next().size());
    rib.setPolicy(b, PeerPolicy.NONE.withExport(NO_P2));
    AdjRibOut.Batch batch = sent(b);
    assertEquals(List.of(P2), batch.withdraw());
    assertTrue(batch.announce().isEmpty(), "P1 is unchanged: not sent again");
  }

  @Test
  void policyResultsAreInternedAcrossUpdates() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002);
    rib.peerUp(
        a,
        PeerPolicy.NONE.withImport(
            Policy.of("med", true, Statement.accept(Match.ANY, new Action.SetMed(9)))),
        null);
    rib.update(a, List.of(), null, List.of(P1), null, path(65002));
    rib.update(a, List.of(), null, List.of(P2), null, path(65002));
    assertSame(route(P1).paths().getFirst().attrs(), route(P2).paths().getFirst().attrs());
  }

  record Exceeded(RibPeer peer, Family family, long accepted, long limit) {}

  @Test
  void exceedingMaxPrefixTellsTheHandlerOnceAndRejectedRoutesDoNotCount() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002);
    List<Exceeded> told = new CopyOnWriteArrayList<>();
    rib.peerUp(
        a,
        PeerPolicy.NONE.withImport(NO_P2).withMaxPrefix(new MaxPrefix(2, false, null)),
        (p, f, n, m) -> told.add(new Exceeded(p, f, n, m.limit())));
    rib.update(
        a, List.of(), null, List.of(P1, P2, Prefix.parse("2001:db8::/32")), null, path(65002));
    rib.query(v -> null).join();
    assertEquals(List.of(), told, "P2 was rejected: one IPv4 prefix accepted");
    rib.update(a, List.of(), null, List.of(P3, Prefix.parse("192.0.2.0/26")), null, path(65002));
    rib.update(a, List.of(), null, List.of(Prefix.parse("192.0.2.64/26")), null, path(65002));
    rib.query(v -> null).join();
    assertEquals(List.of(new Exceeded(a, Family.IPV4_UNICAST, 3, 2)), told);
  }

  @Test
  void inWarningOnlyModeNobodyIsTold() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002);
    List<Exceeded> told = new CopyOnWriteArrayList<>();
    rib.peerUp(
        a,
        PeerPolicy.NONE.withMaxPrefix(new MaxPrefix(1, true, null)),
        (p, f, n, m) -> told.add(new Exceeded(p, f, n, m.limit())));
    rib.update(a, List.of(), null, List.of(P1, P2), null, path(65002));
    rib.query(v -> null).join();
    assertEquals(List.of(), told);
    assertNotNull(route(P2), "the routes stay");
  }

  @Test
  void routesNotSentAgainBetweenThePeersBorrAndEorrAreRemovedAtTheEorr() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002);
    rib.peerUp(a);
    Prefix v6 = Prefix.parse("2001:db8::/32");
    rib.update(a, List.of(), null, List.of(P1, P2, v6), null, path(65002));
    rib.beginningOfRefresh(a, Family.IPV4_UNICAST);
    rib.update(a, List.of(), null, List.of(P1), null, path(65002));
    assertNotNull(route(P2), "stale, but kept until the EoRR");
    rib.endOfRefresh(a, Family.IPV4_UNICAST);
    assertNotNull(route(P1));
    assertNull(route(P2));
    assertNotNull(route(v6), "another family is not touched");
    assertEquals(1, rib.query(v -> v.accepted(a, Family.IPV4_UNICAST)).join());
  }

  @Test
  void withSoftReconfigurationAStaleRouteAlsoLeavesTheRoutesAsReceived() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002);
    rib.peerUp(a, PeerPolicy.NONE.withImport(NO_P2).withSoftReconfigurationInbound(true), null);
    rib.update(a, List.of(), null, List.of(P1, P2), null, path(65002));
    rib.beginningOfRefresh(a, Family.IPV4_UNICAST);
    rib.update(a, List.of(), null, List.of(P1), null, path(65002));
    rib.endOfRefresh(a, Family.IPV4_UNICAST);
    assertEquals(
        List.of(P1),
        rib.query(v -> v.receivedPrePolicy(a, Family.IPV4_UNICAST)).join().stream()
            .map(Map.Entry::getKey)
            .toList());
  }

  @Test
  void aRouteRefreshResendsWhatWasSentAndEndsWithEoRrOnceItIsOut() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002);
    RibPeer b = peer("192.0.2.3", 65003);
    rib.peerUp(a);
    rib.peerUp(b);
    rib.update(a, List.of(), null, List.of(P1, Prefix.parse("2001:db8::/32")), null, path(65002));
    sent(b);
    assertTrue(sent(b).isEmpty());
    rib.resend(b, Family.IPV4_UNICAST, true);
    rib.query(v -> null).join();
    assertTrue(b.out().hasPending());
    assertEquals(List.of(), b.out().takeEndOfRefresh(), "not before the routes went out");
    AdjRibOut.Batch again = b.out().drain(Integer.MAX_VALUE, BOTH);
    assertEquals(
        List.of(P1), again.announce().values().iterator().next(), "only the family asked for");
    assertEquals(List.of(Family.IPV4_UNICAST), b.out().takeEndOfRefresh());
    assertTrue(!b.out().hasPending());
  }
}
