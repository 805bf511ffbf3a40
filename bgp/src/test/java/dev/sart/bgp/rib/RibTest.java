package dev.sart.bgp.rib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.wire.AsPath;
import dev.sart.bgp.wire.Communities;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Iana;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;

/** The RIB with peers whose Adj-RIB-Out the test drains: what each peer would be sent. */
@ParameterizedClass(name = "{0} shard(s)")
@ValueSource(ints = {1, 3})
class RibTest {
  /**
   * The RIB's shards: one, and more than this machine's cores, so prefixes of one UPDATE spread.
   */
  @Parameter int shards;

  static final Set<Family> BOTH = Set.of(Family.IPV4_UNICAST, Family.IPV6_UNICAST);
  static final Prefix P = Prefix.parse("203.0.113.0/24");
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

  RibPeer peer(String address, long asn, boolean internal) throws Exception {
    return new RibPeer(
        ++ids,
        InetAddress.getByName(address),
        asn,
        ids,
        internal,
        new MpNextHop.V4(Ip.parseV4("192.0.2.1")),
        MpNextHop.V6.of("2001:db8::1"),
        BOTH,
        new AdjRibOut(() -> {}));
  }

  static Attrs attrs(long... asPath) {
    return Attrs.of(
        PathAttributes.of(Origin.IGP, AsPath.sequence(asPath), new MultiExitDisc(7)),
        new MpNextHop.V4(Ip.parseV4("198.51.100.9")));
  }

  /**
   * Waits until the RIB processed everything submitted so far, then drains the peer's Adj-RIB-Out.
   */
  AdjRibOut.Batch sent(RibPeer p) {
    rib.query(v -> null).join();
    return p.out().drain(Integer.MAX_VALUE, BOTH);
  }

  @Test
  void aNewPeerGetsTheTableThenEndOfRib() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002, false);
    rib.peerUp(a);
    rib.update(a, List.of(), null, List.of(P), null, attrs(65002));
    RibPeer b = peer("192.0.2.3", 65003, false);
    rib.peerUp(b);
    AdjRibOut.Batch batch = sent(b);
    assertEquals(1, batch.announce().size());
    assertTrue(batch.endOfRib());
    Attrs out = batch.announce().keySet().iterator().next();
    assertEquals(List.of(P), batch.announce().get(out));
    // eBGP: our AS prepended, next hop self, the learned MED not passed on
    assertEquals(AsPath.sequence(65001, 65002), out.asPath());
    assertEquals(new MpNextHop.V4(Ip.parseV4("192.0.2.1")), out.nextHop());
    assertNull(out.attributes().orNull(MultiExitDisc.class));
  }

  @Test
  void aRestartingPeersRoutesStayStaleAndAreReplacedWithoutAWithdrawal() throws Exception {
    Prefix q = Prefix.parse("198.51.100.0/24");
    Prefix v6 = Prefix.parse("2001:db8:9::/48");
    java.util.Queue<String> events = new java.util.concurrent.ConcurrentLinkedQueue<>();
    rib.addListener((p, now) -> events.add(p + (now.selected().isEmpty() ? " gone" : " up")));
    RibPeer old = peer("192.0.2.2", 65002, false);
    RibPeer other = peer("192.0.2.3", 65003, false);
    rib.peerUp(old);
    rib.peerUp(other);
    rib.update(old, List.of(), null, List.of(P, q), null, attrs(65002));
    rib.update(old, List.of(), null, List.of(v6), null, attrs(65002));
    sent(other);
    events.clear();

    // the session drops; the peer's graceful restart capability listed IPv4 only
    rib.peerRestarting(old, Set.of(Family.IPV4_UNICAST));
    rib.query(v -> null).join();
    assertEquals(List.of(v6 + " gone"), List.copyOf(events), "IPv6 was not kept");
    Path kept = rib.query(v -> v.route(P).paths().getFirst()).join();
    assertTrue(rib.isStale(kept));
    assertTrue(sent(other).withdraw().equals(List.of(v6)), "the other peer keeps P and q");

    // the new session sends P again: it replaces the stale path in one decision
    RibPeer nu = peer("192.0.2.2", 65002, false);
    rib.peerUp(nu);
    rib.update(nu, List.of(), null, List.of(P), null, attrs(65002));
    rib.query(v -> null).join();
    RouteView r = rib.query(v -> v.route(P)).join();
    assertEquals(1, r.paths().size());
    assertEquals(nu, r.paths().getFirst().source());
    assertFalse(rib.isStale(r.paths().getFirst()));
    assertTrue(rib.isStale(rib.query(v -> v.route(q).paths().getFirst()).join()));
    AdjRibOut.Batch b = sent(other);
    assertTrue(b.withdraw().isEmpty() && b.announce().isEmpty(), "nothing changed for them");
    // its End-of-RIB: what it did not send again goes
    rib.flushStale(old, Family.IPV4_UNICAST);
    rib.flushStale(old, null);
    rib.query(v -> null).join();
    assertNull(rib.query(v -> v.route(q)).join());
    assertEquals(List.of(q), sent(other).withdraw());
    assertFalse(rib.isStale(kept));
    assertEquals(List.of(v6 + " gone", P + " up", q + " gone"), List.copyOf(events));
  }

  @Test
  void aRouteIsNotSentBackToItsSender() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002, false);
    rib.peerUp(a);
    sent(a);
    rib.update(a, List.of(), null, List.of(P), null, attrs(65002));
    assertTrue(sent(a).announce().isEmpty());
  }

  @Test
  void ibgpLearnedRoutesAreNotSentToIbgpPeersButToEbgpOnes() throws Exception {
    RibPeer i1 = peer("192.0.2.2", 65001, true);
    RibPeer i2 = peer("192.0.2.3", 65001, true);
    RibPeer e = peer("192.0.2.4", 65009, false);
    for (RibPeer p : List.of(i1, i2, e)) {
      rib.peerUp(p);
      sent(p);
    }
    rib.update(i1, List.of(), null, List.of(P), null, attrs(65005));
    assertTrue(sent(i2).announce().isEmpty());
    assertEquals(1, sent(e).announce().size());
  }

  @Test
  void ourOwnRoutesGoToIbgpPeersWithLocalPrefAndOurNextHop() throws Exception {
    RibPeer i = peer("192.0.2.2", 65001, true);
    rib.peerUp(i);
    sent(i);
    rib.originate(List.of(P), Attrs.of(PathAttributes.of(Origin.IGP), new MpNextHop.V4(0)));
    Attrs out = sent(i).announce().keySet().iterator().next();
    assertEquals(
        AsPath.EMPTY,
        out.attributes().orNull(AsPath.class),
        "an empty AS_PATH, present (well-known mandatory)");
    assertEquals(new LocalPref(100), out.attributes().orNull(LocalPref.class));
    assertEquals(new MpNextHop.V4(Ip.parseV4("192.0.2.1")), out.nextHop());
  }

  @Test
  void noExportStaysInsideTheAsAndNoAdvertiseGoesNowhere() throws Exception {
    RibPeer src = peer("192.0.2.2", 65002, false);
    RibPeer ibgp = peer("192.0.2.3", 65001, true);
    RibPeer ebgp = peer("192.0.2.4", 65009, false);
    for (RibPeer p : List.of(src, ibgp, ebgp)) {
      rib.peerUp(p);
      sent(p);
    }
    Attrs noExport =
        Attrs.of(
            PathAttributes.of(
                Origin.IGP,
                AsPath.sequence(65002),
                Communities.of(Iana.WellKnownCommunity.NO_EXPORT)),
            new MpNextHop.V4(Ip.parseV4("192.0.2.2")));
    rib.update(src, List.of(), null, List.of(P), null, noExport);
    assertEquals(1, sent(ibgp).announce().size());
    assertTrue(sent(ebgp).announce().isEmpty());
  }

  @Test
  void aReannouncementReplacesThePathAndAWithdrawalRemovesIt() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002, false);
    RibPeer b = peer("192.0.2.3", 65003, false);
    rib.peerUp(a);
    rib.peerUp(b);
    sent(b);
    rib.update(a, List.of(), null, List.of(P), null, attrs(65002));
    rib.update(a, List.of(), null, List.of(P), null, attrs(65002, 64512));
    Map<Attrs, List<Prefix>> announced = sent(b).announce();
    assertEquals(1, announced.size(), "coalesced into the latest");
    assertEquals(
        AsPath.sequence(65001, 65002, 64512), announced.keySet().iterator().next().asPath());
    assertEquals(
        1, rib.query(v -> v.route(P).paths().size()).join(), "implicit withdraw: one path");
    rib.update(a, List.of(P), null, List.of(), null, null);
    assertEquals(List.of(P), sent(b).withdraw());
    assertNull(rib.query(v -> v.route(P)).join());
  }

  @Test
  void aPeerGoingDownTakesItsPathsWith() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002, false);
    RibPeer b = peer("192.0.2.3", 65003, false);
    rib.peerUp(a);
    rib.peerUp(b);
    rib.update(a, List.of(), null, List.of(P), null, attrs(65002));
    sent(b);
    rib.peerDown(a);
    assertEquals(List.of(P), sent(b).withdraw());
    assertEquals(0, rib.query(RibView::size).join());
  }

  @Test
  void aPathWithOurAsIsALoopAndIsDropped() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002, false);
    rib.peerUp(a);
    rib.update(a, List.of(), null, List.of(P), null, attrs(65002, 65001, 3));
    assertNull(rib.query(v -> v.route(P)).join());
  }

  @Test
  void whatAPeerSendsBackIsKeptLoopsIncludedUntilItIsWithdrawnOrThePeerGoes() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002, false);
    rib.peerUp(a);
    rib.update(a, List.of(), null, List.of(P), null, attrs(65002, 65001));
    assertNull(rib.query(v -> v.route(P)).join(), "a loop stays out of the Loc-RIB");
    assertEquals(List.of(attrs(65002, 65001)), rib.query(v -> v.sentBack(a, P)).join());
    rib.update(a, List.of(), null, List.of(P), null, attrs(65002, 64512));
    assertEquals(
        List.of(attrs(65002, 64512)),
        rib.query(v -> v.sentBack(a, P)).join(),
        "the loop is replaced by the accepted path");
    rib.update(a, List.of(P), null, List.of(), null, null);
    assertEquals(List.of(), rib.query(v -> v.sentBack(a, P)).join(), "withdrawn");
    rib.update(a, List.of(), null, List.of(P), null, attrs(65002, 65001));
    assertEquals(1, rib.query(v -> v.sentBack(a, P).size()).join());
    rib.peerDown(a);
    assertEquals(List.of(), rib.query(v -> v.sentBack(a, P)).join(), "the peer went down");
  }

  @Test
  void selectionChangesReachTheListeners() throws Exception {
    List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    rib.addListener((p, s) -> seen.add(p + " " + s.selected().size()));
    RibPeer a = peer("192.0.2.2", 65002, false);
    rib.peerUp(a);
    rib.update(a, List.of(), null, List.of(P), null, attrs(65002));
    rib.update(a, List.of(P), null, List.of(), null, null);
    rib.query(v -> null).join();
    assertEquals(List.of("203.0.113.0/24 1", "203.0.113.0/24 0"), seen);
  }

  @Test
  void nothingAlreadyAdvertisedIsSentAgain() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002, false);
    RibPeer b = peer("192.0.2.3", 65003, false);
    rib.peerUp(a);
    rib.peerUp(b);
    rib.update(a, List.of(), null, List.of(P), null, attrs(65002));
    assertFalse(sent(b).announce().isEmpty());
    // the same route again from another path of a (ADD-PATH id 0 replaced by itself): no change to
    // b
    rib.update(a, List.of(), null, List.of(P), null, attrs(65002));
    assertTrue(sent(b).isEmpty());
  }

  /**
   * What each peer holds after the UPDATEs it was sent equals the Adj-RIB-Out the API shows (the
   * Loc-RIB's selection exported to it), at every step of a best path moving between peers.
   */
  @Test
  void eachPeerHoldsWhatTheAdjRibOutViewShowsAsTheBestPathMoves() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002, false);
    RibPeer b = peer("192.0.2.3", 65003, false);
    RibPeer c = peer("192.0.2.4", 65009, false);
    List<RibPeer> all = List.of(a, b, c);
    Map<RibPeer, Map<Prefix, Attrs>> held = new java.util.HashMap<>();
    for (RibPeer p : all) {
      rib.peerUp(p);
      held.put(p, new java.util.HashMap<>());
    }
    Runnable check =
        () -> {
          for (RibPeer p : all) {
            AdjRibOutTest.apply(sent(p), held.get(p));
            Map<Prefix, Attrs> view = new java.util.HashMap<>();
            rib.query(v -> v.advertisedTo(p, Family.IPV4_UNICAST))
                .join()
                .forEach(e -> view.put(e.getKey(), e.getValue()));
            assertEquals(view, held.get(p), "peer " + p);
            assertEquals(view.size(), p.out().advertisedCount(), "peer " + p);
            assertEquals(view.size(), p.counters().advertised(Family.IPV4_UNICAST), "peer " + p);
          }
        };
    rib.update(a, List.of(), null, List.of(P), null, attrs(65002, 64512));
    check.run();
    assertEquals(Set.of(P), held.get(b).keySet());
    rib.update(b, List.of(), null, List.of(P), null, attrs(65003)); // shorter: b's path wins
    check.run();
    assertEquals(AsPath.sequence(65001, 65003), held.get(a).get(P).asPath());
    assertEquals(Map.of(), held.get(b), "withdrawn from b: its own route is best now");
    rib.update(b, List.of(P), null, List.of(), null, null); // back to a's path
    check.run();
    assertEquals(Map.of(), held.get(a));
    rib.update(a, List.of(P), null, List.of(), null, null);
    check.run();
    for (RibPeer p : all) {
      assertEquals(Map.of(), held.get(p));
    }
  }

  /**
   * 768 IPv4 host routes (the three documentation /24s) and 1,000 IPv6 ones: they spread over any
   * shards.
   */
  static List<Prefix> many() {
    List<Prefix> out = new java.util.ArrayList<>();
    for (String net : List.of("192.0.2.", "198.51.100.", "203.0.113.")) {
      for (int i = 0; i < 256; i++) {
        out.add(Prefix.parse(net + i + "/32"));
      }
    }
    for (int i = 0; i < 1000; i++) {
      out.add(Prefix.v6(0x2001_0db8_0000_0000L, i, 128));
    }
    return out;
  }

  @Test
  void oneUpdateSpreadOverTheShardsIsAppliedWholeAndTheEndOfRibComesAfterTheWholeTable()
      throws Exception {
    RibPeer a = peer("192.0.2.2", 65002, false);
    rib.peerUp(a);
    List<Prefix> all = many();
    rib.update(a, List.of(), null, all, null, attrs(65002));
    List<Prefix> withdrawn = all.subList(0, 500);
    rib.update(a, withdrawn, null, List.of(), null, null);
    RibPeer b = peer("192.0.2.3", 65003, false);
    rib.peerUp(b);
    rib.query(v -> null).join();
    java.util.Set<Prefix> got = new java.util.HashSet<>();
    boolean endOfRib = false;
    while (!endOfRib) {
      AdjRibOut.Batch batch = b.out().drain(100, BOTH);
      assertFalse(batch.isEmpty(), "the drain ran dry before End-of-RIB");
      batch.announce().values().forEach(got::addAll);
      assertTrue(batch.withdraw().isEmpty());
      endOfRib = batch.endOfRib();
      if (endOfRib) {
        assertEquals(
            all.size() - withdrawn.size(), got.size(), "End-of-RIB before the whole table");
      }
    }
    assertEquals(new java.util.HashSet<>(all.subList(500, all.size())), got);
    assertEquals(all.size() - withdrawn.size(), rib.query(RibView::size).join());
    assertEquals(256 * 3 - 500, a.counters().accepted(Family.IPV4_UNICAST));
    assertEquals(1000, a.counters().received(Family.IPV6_UNICAST));
    assertEquals(1000, rib.query(v -> v.routes(Family.IPV6_UNICAST)).join().size());
    assertEquals(1000, rib.query(v -> v.accepted(a, Family.IPV6_UNICAST)).join());
    // the peer going down takes its paths out of every shard
    rib.peerDown(a);
    assertEquals(0, rib.query(RibView::size).join());
    assertEquals(
        0, a.counters().received(Family.IPV4_UNICAST) + a.counters().received(Family.IPV6_UNICAST));
  }

  @Test
  void aSubscriberGetsEveryShardsTableThenTheChanges() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002, false);
    rib.peerUp(a);
    List<Prefix> all = many();
    rib.update(a, List.of(), null, all, null, attrs(65002));
    java.util.Queue<String> events = new java.util.concurrent.ConcurrentLinkedQueue<>();
    rib.subscribe(
        (p, s) -> events.add("initial " + p),
        () -> events.add("end"),
        (p, s) -> events.add(s.selected().isEmpty() ? "gone " + p : "now " + p));
    rib.update(a, List.of(all.getFirst()), null, List.of(), null, null);
    rib.query(v -> null).join();
    List<String> seen = List.copyOf(events);
    assertEquals(all.size() + 2, seen.size());
    assertEquals(
        "end", seen.get(all.size()), "every shard's table before the end of the initial dump");
    assertEquals("gone " + all.getFirst(), seen.getLast());
  }

  @Test
  void anExternalPeerIsNotSentRoutesWithItsAsInThePathUnlessItAsksForThem() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002, false);
    RibPeer sameAs = peer("192.0.2.3", 65002, false); // another router of a's AS
    RibPeer c = peer("192.0.2.4", 65003, false);
    RibPeer allowing = peer("192.0.2.5", 65002, false); // accepts its own AS (allowas-in)
    rib.peerUp(a);
    rib.peerUp(sameAs);
    rib.peerUp(c);
    rib.peerUp(allowing, dev.sart.bgp.policy.PeerPolicy.NONE.withAdvertisePeerAs(true), null);
    for (RibPeer p : List.of(a, sameAs, c, allowing)) {
      sent(p);
    }
    rib.update(a, List.of(), null, List.of(P), null, attrs(65002, 64512));
    assertTrue(
        sent(sameAs).announce().isEmpty(), "65002 is in the path: it would drop it as a loop");
    assertEquals(
        AsPath.sequence(65001, 65002, 64512),
        sent(c).announce().keySet().iterator().next().asPath());
    assertEquals(
        AsPath.sequence(65001, 65002, 64512),
        sent(allowing).announce().keySet().iterator().next().asPath());
    assertEquals(List.of(), rib.query(v -> v.advertisedTo(sameAs, Family.IPV4_UNICAST)).join());
    // turned on while up: sent now; turned off again: withdrawn
    rib.setPolicy(sameAs, dev.sart.bgp.policy.PeerPolicy.NONE.withAdvertisePeerAs(true));
    assertEquals(List.of(P), sent(sameAs).announce().values().iterator().next());
    rib.setPolicy(sameAs, dev.sart.bgp.policy.PeerPolicy.NONE);
    assertEquals(List.of(P), sent(sameAs).withdraw());
  }

  @Test
  void oneShardUpToThreeCpusThenOnePerTwoCpusAtMostEight() {
    assertEquals(
        List.of(1, 1, 1, 2, 4, 8, 8),
        java.util.stream.IntStream.of(1, 2, 3, 4, 8, 16, 64)
            .map(Rib::defaultShards)
            .boxed()
            .toList());
    assertEquals(shards, rib.shards());
  }
}
