package dev.sart.bgp.rib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.wire.AsPath;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.MpNextHop;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ADD-PATH send (RFC 7911) through the RIB: what a peer sent several paths per prefix is handed,
 * path by path, with our Path Identifiers.
 */
@ParameterizedClass(name = "{0} shard(s)")
@ValueSource(ints = {1, 3})
class AddPathRibTest {
  @Parameter int shards;

  static final Set<Family> BOTH = RibTest.BOTH;
  static final Prefix P = RibTest.P;
  static final Prefix V6 = Prefix.parse("2001:db8:7::/48");
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

  RibPeer peer(String address, long asn, AddPathSend addPath) throws Exception {
    AdjRibOut out = new AdjRibOut(() -> {});
    if (addPath != null) {
      out.withAddPath(addPath);
    }
    return new RibPeer(
        ++ids,
        InetAddress.getByName(address),
        asn,
        ids,
        false,
        new MpNextHop.V4(Ip.parseV4("192.0.2.1")),
        MpNextHop.V6.of("2001:db8::1"),
        BOTH,
        out);
  }

  AdjRibOut.Batch sent(RibPeer p) {
    rib.query(v -> null).join();
    return p.out().drain(Integer.MAX_VALUE, BOTH);
  }

  /** Path Identifier → the AS_PATH announced under it. */
  static Map<Integer, AsPath> announced(AdjRibOut.Batch b) {
    Map<Integer, AsPath> out = new HashMap<>();
    b.announcePaths()
        .forEach(
            (a, keys) ->
                keys.forEach(
                    k -> {
                      assertEquals(P, k.prefix());
                      out.put(k.pathId(), a.asPath());
                    }));
    return out;
  }

  static List<Integer> withdrawn(AdjRibOut.Batch b) {
    return b.withdrawPaths().stream().map(PathKey::pathId).sorted().toList();
  }

  @Test
  void everyPathGoesWithAStableIdentifierAndAWithdrawalTakesOnlyItsOwn() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002, null);
    RibPeer b = peer("192.0.2.3", 65003, null);
    RibPeer c = peer("192.0.2.4", 65004, null);
    RibPeer all = peer("192.0.2.9", 65009, new AddPathSend(Set.of(Family.IPV4_UNICAST), 0));
    for (RibPeer p : List.of(a, b, c, all)) {
      rib.peerUp(p);
    }
    for (RibPeer p : List.of(a, b, c)) {
      rib.update(p, List.of(), null, List.of(P), null, RibTest.attrs(p.asn()));
    }
    AdjRibOut.Batch first = sent(all);
    Map<Integer, AsPath> ids = announced(first);
    assertEquals(Set.of(1, 2, 3), ids.keySet(), "three paths, three identifiers");
    assertEquals(
        Set.of(
            AsPath.sequence(65001, 65002),
            AsPath.sequence(65001, 65003),
            AsPath.sequence(65001, 65004)),
        Set.copyOf(ids.values()));
    assertTrue(first.announce().isEmpty(), "nothing per prefix for an ADD-PATH family");
    int idOfB = key(ids, AsPath.sequence(65001, 65003));

    // b's path changes: announced again under its identifier, nothing withdrawn
    rib.update(b, List.of(), null, List.of(P), null, RibTest.attrs(65003, 65030));
    AdjRibOut.Batch changed = sent(all);
    assertEquals(Map.of(idOfB, AsPath.sequence(65001, 65003, 65030)), announced(changed));
    assertEquals(List.of(), withdrawn(changed));

    // a withdraws: only a's identifier goes
    int idOfA = key(ids, AsPath.sequence(65001, 65002));
    rib.update(a, List.of(P), null, List.of(), null, null);
    AdjRibOut.Batch gone = sent(all);
    assertEquals(List.of(idOfA), withdrawn(gone));
    assertEquals(Map.of(), announced(gone));

    // a new path takes the lowest identifier free
    RibPeer d = peer("192.0.2.5", 65005, null);
    rib.peerUp(d);
    rib.update(d, List.of(), null, List.of(P), null, RibTest.attrs(65005));
    assertEquals(Map.of(idOfA, AsPath.sequence(65001, 65005)), announced(sent(all)));
  }

  @Test
  void theBestOneIsReplacedUnderItsIdentifierWhenItGoes() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002, null);
    RibPeer b = peer("192.0.2.3", 65003, null);
    RibPeer one = peer("192.0.2.9", 65009, new AddPathSend(Set.of(Family.IPV4_UNICAST), 1));
    for (RibPeer p : List.of(a, b, one)) {
      rib.peerUp(p);
    }
    rib.update(a, List.of(), null, List.of(P), null, RibTest.attrs(65002));
    rib.update(b, List.of(), null, List.of(P), null, RibTest.attrs(65003, 65030));
    // the best one (the shorter AS_PATH) only
    assertEquals(Map.of(1, AsPath.sequence(65001, 65002)), announced(sent(one)));
    rib.update(a, List.of(P), null, List.of(), null, null);
    AdjRibOut.Batch next = sent(one);
    assertEquals(Map.of(1, AsPath.sequence(65001, 65003, 65030)), announced(next));
    assertEquals(List.of(), withdrawn(next), "replaced, not withdrawn");
  }

  @Test
  void aFamilyWithoutAddPathGoesPerPrefixAndARefreshSendsEveryPathAgain() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002, null);
    RibPeer b = peer("192.0.2.3", 65003, null);
    RibPeer v4only = peer("192.0.2.9", 65009, new AddPathSend(Set.of(Family.IPV4_UNICAST), 0));
    for (RibPeer p : List.of(a, b, v4only)) {
      rib.peerUp(p);
    }
    for (RibPeer p : List.of(a, b)) {
      rib.update(p, List.of(), null, List.of(P), null, RibTest.attrs(p.asn()));
      rib.update(p, List.of(), null, List.of(V6), null, RibTest.attrs(p.asn()));
    }
    AdjRibOut.Batch first = sent(v4only);
    assertEquals(2, announced(first).size());
    assertEquals(List.of(V6), first.announce().values().iterator().next(), "IPv6: the best");
    rib.resend(v4only, Family.IPV4_UNICAST, false);
    assertEquals(2, announced(sent(v4only)).size(), "both again (RFC 2918 §4)");
  }

  @Test
  void anAddPathPeerThatComesBackIsSentEveryPathAgainBesideAnotherOne() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002, null);
    RibPeer b = peer("192.0.2.3", 65003, null);
    AddPathSend every = new AddPathSend(Set.of(Family.IPV4_UNICAST), 0);
    RibPeer first = peer("192.0.2.9", 65009, every);
    for (RibPeer p : List.of(a, b, first)) {
      rib.peerUp(p);
    }
    for (RibPeer p : List.of(a, b)) {
      rib.update(p, List.of(), null, List.of(P), null, RibTest.attrs(p.asn()));
    }
    assertEquals(Set.of(1, 2), announced(sent(first)).keySet());
    // a second ADD-PATH peer gets the table when it comes up, the first one's state is its own
    RibPeer second = peer("192.0.2.10", 65010, every);
    rib.peerUp(second);
    Map<Integer, AsPath> ofSecond = announced(sent(second));
    assertEquals(Set.of(1, 2), ofSecond.keySet());

    // the first one's session ends and a new one comes up: it is sent every path again
    rib.peerDown(first);
    RibPeer again = peer("192.0.2.9", 65009, every);
    rib.peerUp(again);
    Map<Integer, AsPath> ofAgain = announced(sent(again));
    assertEquals(
        Set.of(AsPath.sequence(65001, 65002), AsPath.sequence(65001, 65003)),
        Set.copyOf(ofAgain.values()));

    // b withdraws: each ADD-PATH peer loses b's path under the identifier it was sent
    rib.update(b, List.of(P), null, List.of(), null, null);
    assertEquals(List.of(key(ofAgain, AsPath.sequence(65001, 65003))), withdrawn(sent(again)));
    assertEquals(List.of(key(ofSecond, AsPath.sequence(65001, 65003))), withdrawn(sent(second)));
  }

  private static int key(Map<Integer, AsPath> ids, AsPath p) {
    return ids.entrySet().stream()
        .filter(e -> e.getValue().equals(p))
        .findFirst()
        .orElseThrow()
        .getKey();
  }
}
