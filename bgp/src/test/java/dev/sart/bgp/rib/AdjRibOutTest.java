package dev.sart.bgp.rib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.wire.AsPath;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.MpNextHop;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.PathAttributes;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The Adj-RIB-Out drained in small chunks while changes keep arriving: what the peer ends up with
 * is the latest change of every prefix, and each change is sent at most once.
 */
class AdjRibOutTest {
  static final Set<Family> V4 = Set.of(Family.IPV4_UNICAST);

  static Attrs attrs(long as) {
    return Attrs.of(
        PathAttributes.of(Origin.IGP, AsPath.sequence(as)),
        new MpNextHop.V4(Ip.parseV4("192.0.2.1")));
  }

  static Prefix p(int i) {
    return Prefix.v4(0xC6120000 | i, 32); // 198.18.0.0/15 inside a unit test: never on a wire
  }

  /** Applies a batch to what the peer holds; returns how many prefixes it carried. */
  static int apply(AdjRibOut.Batch b, Map<Prefix, Attrs> peer) {
    int n = b.withdraw().size();
    b.withdraw().forEach(peer::remove);
    for (Map.Entry<Attrs, List<Prefix>> e : b.announce().entrySet()) {
      e.getValue().forEach(x -> peer.put(x, e.getKey()));
      n += e.getValue().size();
    }
    return n;
  }

  @Test
  void drainingInChunksWhileChangesArriveEndsWithTheLatestOfEach() {
    AdjRibOut out = new AdjRibOut(() -> {});
    Attrs a = attrs(65002);
    Attrs b = attrs(65003);
    for (int i = 0; i < 10_000; i++) {
      out.advertise(p(i), null, a);
    }
    out.initialTableQueued();
    Map<Prefix, Attrs> peer = new HashMap<>();
    int sent = 0;
    boolean eor = false;
    // take a third, then change every even prefix, withdraw every fifth, and go on draining
    for (int k = 0; k < 3; k++) {
      AdjRibOut.Batch batch = out.drain(1_000, V4);
      assertFalse(batch.endOfRib());
      sent += apply(batch, peer);
    }
    for (int i = 0; i < 10_000; i += 2) {
      out.advertise(p(i), a, b);
    }
    for (int i = 0; i < 10_000; i += 5) {
      out.withdraw(p(i), i % 2 == 0 ? b : a);
    }
    while (out.hasPending()) {
      AdjRibOut.Batch batch = out.drain(1_000, V4);
      eor |= batch.endOfRib();
      sent += apply(batch, peer);
    }
    assertTrue(eor, "End-of-RIB once everything queued before it was sent");
    for (int i = 0; i < 10_000; i++) {
      Attrs want = i % 5 == 0 ? null : i % 2 == 0 ? b : a;
      assertEquals(want, peer.get(p(i)), "prefix " + i);
    }
    assertEquals(8_000, out.advertisedCount());
    // at most: 10,000 first announcements, 5,000 changes, 2,000 withdrawals (fewer when a change
    // replaced a first announcement that had not been taken yet)
    assertTrue(sent <= 17_000, "sent " + sent);
    assertEquals(0, apply(out.drain(1_000, V4), peer), "nothing left");
  }

  /**
   * The cluster's stuck route (testbed/cluster/README.md, "Found"): prefixes announced and, while
   * their announcement was still being walked, withdrawn. A batch that went on from the end of the
   * walk into the changes recorded since held both, and its UPDATEs (withdrawals first, RFC 4271
   * §4.3) left the announcements at the peer.
   */
  @Test
  void aWithdrawalRecordedWhileItsAnnouncementIsBeingWalkedReachesThePeer() {
    AdjRibOut out = new AdjRibOut(() -> {});
    Attrs a = attrs(65002);
    Attrs b = attrs(65003);
    for (int i = 0; i < 10; i++) {
      out.advertise(p(i), null, a);
    }
    out.initialTableQueued();
    Map<Prefix, Attrs> peer = new HashMap<>();
    apply(out.drain(5, V4), peer); // half of the walk
    for (int i = 0; i < 10; i += 2) {
      out.withdraw(p(i), a);
    }
    for (int i = 1; i < 10; i += 2) {
      out.advertise(p(i), a, b);
    }
    while (out.hasPending()) {
      apply(out.drain(100, V4), peer);
    }
    for (int i = 0; i < 10; i++) {
      assertEquals(i % 2 == 0 ? null : b, peer.get(p(i)), "prefix " + i);
    }
  }

  @Test
  void aChangeBackToWhatWasSentIsNotSentAgain() {
    AdjRibOut out = new AdjRibOut(() -> {});
    Attrs a = attrs(65002);
    out.advertise(p(1), null, a);
    assertEquals(1, apply(out.drain(10, V4), new HashMap<>()));
    Attrs b = attrs(65003);
    out.advertise(p(1), a, b);
    out.advertise(p(1), b, a);
    assertTrue(out.drain(10, V4).isEmpty());
    assertEquals(1, out.advertisedCount());
  }

  @Test
  void aPrefixAnnouncedAndWithdrawnBeforeItWasSentIsNeitherSentNorCounted() {
    AdjRibOut out = new AdjRibOut(() -> {});
    Attrs a = attrs(65002);
    out.advertise(p(1), null, a);
    out.withdraw(p(1), a);
    out.advertise(p(2), null, a);
    AdjRibOut.Batch batch = out.drain(10, V4);
    assertEquals(List.of(), batch.withdraw(), "p(1) never reached the peer: no withdrawal");
    assertEquals(Map.of(a, List.of(p(2))), batch.announce());
    assertEquals(1, out.advertisedCount());
  }

  @Test
  void aRefreshIsSentEvenWhenUnchangedAndItsEndFollowsTheRoutes() {
    AdjRibOut out = new AdjRibOut(() -> {});
    Attrs a = attrs(65002);
    for (int i = 0; i < 10; i++) {
      out.advertise(p(i), null, a);
    }
    apply(out.drain(100, V4), new HashMap<>());
    for (int i = 0; i < 10; i++) {
      out.readvertise(p(i), a, a);
    }
    out.endOfRefreshQueued(Family.IPV4_UNICAST);
    assertEquals(5, apply(out.drain(5, V4), new HashMap<>()));
    assertEquals(List.of(), out.takeEndOfRefresh(), "5 routes of the refresh still to go");
    assertEquals(5, apply(out.drain(5, V4), new HashMap<>()));
    assertEquals(List.of(Family.IPV4_UNICAST), out.takeEndOfRefresh());
    assertTrue(out.drain(5, V4).isEmpty());
    assertFalse(out.hasPending());
  }

  @Test
  void aWakeupIsAskedForOncePerDrain() {
    int[] wakeups = new int[1];
    AdjRibOut out = new AdjRibOut(() -> wakeups[0]++);
    out.advertise(p(1), null, attrs(65002));
    out.advertise(p(2), null, attrs(65002));
    assertEquals(1, wakeups[0]);
    out.drain(10, V4);
    out.withdraw(p(1), attrs(65002));
    assertEquals(2, wakeups[0]);
  }
}
