package dev.sart.bgp.rib;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sart.bgp.wire.AsPath;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.LocalPref;
import dev.sart.bgp.wire.MpNextHop;
import dev.sart.bgp.wire.MultiExitDisc;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.OriginatorId;
import dev.sart.bgp.wire.PathAttribute;
import dev.sart.bgp.wire.PathAttributes;
import java.net.InetAddress;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The decision process of RFC 4271 §9.1.2.2, step by step, with the reason kept. */
class BestPathTest {
  static long seq;

  static RibPeer peer(String address, long asn, String routerId, boolean internal)
      throws Exception {
    return new RibPeer(
        (int) ++seq,
        InetAddress.getByName(address),
        asn,
        Ip.parseV4(routerId),
        internal,
        null,
        null,
        Set.of(),
        null);
  }

  static Path path(RibPeer from, PathAttribute... attrs) {
    PathAttributes.Builder b = PathAttributes.builder();
    for (PathAttribute a : attrs) {
      b.add(a);
    }
    return new Path(from, 0, Attrs.of(b.build(), new MpNextHop.V4(Ip.parseV4("192.0.2.9"))), 0);
  }

  static BestPath.Selection select(BestPath.Options o, Path... paths) {
    return BestPath.select(List.of(paths), o);
  }

  static BestPath.Selection select(Path... paths) {
    return select(BestPath.Options.DEFAULT, paths);
  }

  @Test
  void aSinglePathWinsAlone() throws Exception {
    Path p = path(peer("192.0.2.2", 65002, "1.1.1.1", false), Origin.IGP, AsPath.sequence(65002));
    assertEquals(new BestPath.Selection(List.of(p), BestPathReason.ONLY_PATH), select(p));
  }

  @Test
  void higherLocalPrefWinsOverAShorterPath() throws Exception {
    Path a =
        path(
            peer("192.0.2.2", 65001, "1.1.1.1", true),
            Origin.IGP,
            AsPath.sequence(1, 2, 3),
            new LocalPref(200));
    Path b =
        path(
            peer("192.0.2.3", 65001, "1.1.1.2", true),
            Origin.IGP,
            AsPath.sequence(1),
            new LocalPref(100));
    assertEquals(new BestPath.Selection(List.of(a), BestPathReason.LOCAL_PREF), select(b, a));
  }

  @Test
  void aLocallyOriginatedPathBeatsALearnedOne() throws Exception {
    Path local =
        new Path(RibPeer.LOCAL, 0, Attrs.of(PathAttributes.of(Origin.IGP), new MpNextHop.V4(0)), 0);
    Path learned = path(peer("192.0.2.2", 65002, "1.1.1.1", false), Origin.IGP);
    assertEquals(BestPathReason.LOCALLY_ORIGINATED, select(learned, local).reason());
    assertEquals(local, select(learned, local).best());
  }

  @Test
  void theShorterAsPathWinsAndAnAsSetCountsOne() throws Exception {
    Path set =
        path(
            peer("192.0.2.2", 65002, "1.1.1.1", false),
            Origin.IGP,
            AsPath.builder().segment(2, 65002).segment(1, 1, 2, 3, 4).build());
    Path seq3 =
        path(peer("192.0.2.3", 65003, "1.1.1.2", false), Origin.IGP, AsPath.sequence(65003, 7, 8));
    BestPath.Selection s = select(seq3, set);
    assertEquals(set, s.best());
    assertEquals(BestPathReason.AS_PATH_LENGTH, s.reason());
  }

  @Test
  void igpOriginBeatsIncomplete() throws Exception {
    Path igp = path(peer("192.0.2.2", 65002, "1.1.1.1", false), Origin.IGP, AsPath.sequence(65002));
    Path inc =
        path(peer("192.0.2.3", 65003, "1.1.1.2", false), Origin.INCOMPLETE, AsPath.sequence(65003));
    assertEquals(new BestPath.Selection(List.of(igp), BestPathReason.ORIGIN), select(inc, igp));
  }

  @Test
  void medIsComparedOnlyBetweenPathsFromTheSameNeighbouringAs() throws Exception {
    Path a =
        path(
            peer("192.0.2.2", 65002, "1.1.1.3", false),
            Origin.IGP,
            AsPath.sequence(65002),
            new MultiExitDisc(50));
    Path b =
        path(
            peer("192.0.2.3", 65002, "1.1.1.2", false),
            Origin.IGP,
            AsPath.sequence(65002),
            new MultiExitDisc(10));
    Path c =
        path(
            peer("192.0.2.4", 65003, "1.1.1.1", false),
            Origin.IGP,
            AsPath.sequence(65003),
            new MultiExitDisc(99));
    // a loses to b on MED (same AS); b and c are not MED-comparable: router id decides, c wins
    BestPath.Selection s = select(a, b, c);
    assertEquals(c, s.best());
    assertEquals(BestPathReason.ROUTER_ID, s.reason());
    // with always-compare-med, b has the lowest MED of all
    BestPath.Selection always = select(new BestPath.Options(false, false, true), a, b, c);
    assertEquals(b, always.best());
    assertEquals(BestPathReason.MED, always.reason());
  }

  @Test
  void aMissingMedCountsAsZero() throws Exception {
    Path none =
        path(peer("192.0.2.2", 65002, "1.1.1.9", false), Origin.IGP, AsPath.sequence(65002));
    Path ten =
        path(
            peer("192.0.2.3", 65002, "1.1.1.1", false),
            Origin.IGP,
            AsPath.sequence(65002),
            new MultiExitDisc(10));
    assertEquals(none, select(ten, none).best());
  }

  @Test
  void ebgpBeatsIbgp() throws Exception {
    Path i = path(peer("192.0.2.2", 65001, "1.1.1.1", true), Origin.IGP, AsPath.sequence(65005));
    Path e = path(peer("192.0.2.3", 65005, "1.1.1.2", false), Origin.IGP, AsPath.sequence(65005));
    assertEquals(new BestPath.Selection(List.of(e), BestPathReason.EBGP_OVER_IBGP), select(i, e));
  }

  @Test
  void theLowerRouterIdOrOriginatorIdBreaksTheTie() throws Exception {
    Path a =
        path(
            peer("192.0.2.2", 65001, "10.0.0.1", true),
            Origin.IGP,
            new OriginatorId(Ip.parseV4("10.0.0.9")));
    Path b = path(peer("192.0.2.3", 65001, "10.0.0.5", true), Origin.IGP);
    assertEquals(new BestPath.Selection(List.of(b), BestPathReason.ROUTER_ID), select(a, b));
  }

  @Test
  void theLowerNeighbourAddressIsTheLastTieBreaker() throws Exception {
    Path a = path(peer("192.0.2.20", 65002, "10.0.0.1", false), Origin.IGP, AsPath.sequence(65002));
    Path b = path(peer("192.0.2.3", 65002, "10.0.0.1", false), Origin.IGP, AsPath.sequence(65002));
    assertEquals(new BestPath.Selection(List.of(b), BestPathReason.NEIGHBOR_ADDRESS), select(a, b));
  }

  @Test
  void multipathSelectsEqualPathsFromTheSameNeighbouringAs() throws Exception {
    BestPath.Options mp = new BestPath.Options(true, false, false);
    Path a =
        path(peer("192.0.2.2", 65002, "10.0.0.2", false), Origin.IGP, AsPath.sequence(65002, 1));
    Path b =
        path(peer("192.0.2.3", 65002, "10.0.0.1", false), Origin.IGP, AsPath.sequence(65002, 1));
    BestPath.Selection s = select(mp, a, b);
    assertEquals(List.of(b, a), s.selected());
    assertEquals(BestPathReason.MULTIPATH, s.reason());
    Path other =
        path(peer("192.0.2.4", 65003, "10.0.0.3", false), Origin.IGP, AsPath.sequence(65003, 1));
    assertEquals(1, select(mp, a, other).selected().size(), "different neighbouring AS: no ECMP");
    assertEquals(
        2,
        select(new BestPath.Options(true, true, false), a, other).selected().size(),
        "as-path relax");
  }

  /** A random path over the values the steps look at, with few choices each so that ties happen. */
  static Path randomPath(java.util.Random r) throws Exception {
    boolean local = r.nextInt(8) == 0;
    PathAttributes.Builder b = PathAttributes.builder();
    b.add(Origin.values()[r.nextInt(2)]);
    long neighbour = 65002 + r.nextInt(2);
    b.add(r.nextBoolean() ? AsPath.sequence(neighbour) : AsPath.sequence(neighbour, 64512));
    if (r.nextBoolean()) {
      b.add(new LocalPref(r.nextBoolean() ? 100 : 200));
    }
    if (r.nextBoolean()) {
      b.add(new MultiExitDisc(r.nextInt(3)));
    }
    if (r.nextInt(4) == 0) {
      b.add(new OriginatorId(Ip.parseV4(r.nextBoolean() ? "1.1.1.1" : "1.1.1.3")));
    }
    if (r.nextInt(4) == 0) {
      b.add(dev.sart.bgp.wire.ClusterList.of(r.nextBoolean() ? new int[] {1} : new int[] {1, 2}));
    }
    Attrs a = Attrs.of(b.build(), new MpNextHop.V4(Ip.parseV4("192.0.2.9")));
    if (local) {
      return new Path(RibPeer.LOCAL, 0, a, 0);
    }
    RibPeer from =
        peer(
            "192.0.2." + (2 + r.nextInt(2)),
            neighbour,
            r.nextBoolean() ? "1.1.1.1" : "1.1.1.2",
            r.nextInt(3) == 0);
    return new Path(from, 0, a, 0);
  }

  @Test
  void theTwoPathShortcutDecidesLikeTheFullProcess() throws Exception {
    java.util.Random r = new java.util.Random(4271);
    java.util.Set<BestPathReason> seen = java.util.EnumSet.noneOf(BestPathReason.class);
    for (int i = 0; i < 20_000; i++) {
      Path a = randomPath(r);
      Path b = randomPath(r);
      BestPath.Options o = new BestPath.Options(false, false, r.nextBoolean());
      BestPath.Selection full = BestPath.select(List.of(a, b), o);
      int two = BestPath.selectTwo(a, b, o);
      assertEquals(
          full.best(), (two & 1) == 0 ? a : b, "winner of " + a + " and " + b + " with " + o);
      assertEquals(
          full.reason(),
          BestPathReason.values()[two >>> 1],
          "reason for " + a + " and " + b + " with " + o);
      seen.add(full.reason());
    }
    // every step decided some of the pairs (so the comparison covered them all)
    assertEquals(
        java.util.EnumSet.complementOf(
            java.util.EnumSet.of(BestPathReason.ONLY_PATH, BestPathReason.MULTIPATH)),
        seen);
  }
}
