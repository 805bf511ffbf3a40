package dev.sart.bgp.rib;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.MpNextHop;
import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;

/** The per-peer prefix counts the metrics show, as routes come, loop, go and sessions end. */
@ParameterizedClass(name = "{0} shard(s)")
@ValueSource(ints = {1, 3})
class PrefixCountersTest {
  /**
   * The RIB's shards: one, and more than this machine's cores, so prefixes of one UPDATE spread.
   */
  @Parameter int shards;

  static final Prefix P = RibTest.P;
  static final Prefix Q = Prefix.parse("198.51.100.0/24");
  static final Prefix V6 = Prefix.parse("2001:db8:5::/48");

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
        RibTest.BOTH,
        new AdjRibOut(() -> {}, new PrefixCounters()));
  }

  static Attrs attrs(long... asPath) {
    return RibTest.attrs(asPath);
  }

  /**
   * Waits until the RIB processed everything submitted so far, then drains the peer's Adj-RIB-Out.
   */
  void sent(RibPeer p) {
    rib.query(v -> null).join();
    p.out().drain(Integer.MAX_VALUE, RibTest.BOTH);
  }

  private static List<Long> counts(RibPeer p, Family f) {
    PrefixCounters c = p.counters();
    return List.of(c.received(f), c.accepted(f), c.advertised(f));
  }

  @Test
  void receivedCountsLoopedPathsThatAcceptedLeavesOut() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002, false);
    rib.peerUp(a);
    rib.update(a, List.of(), null, List.of(P, Q), null, attrs(65002));
    rib.update(a, List.of(), null, List.of(V6), null, attrs(65002));
    sent(a);
    assertEquals(List.of(2L, 2L, 0L), counts(a, Family.IPV4_UNICAST));
    assertEquals(List.of(1L, 1L, 0L), counts(a, Family.IPV6_UNICAST));
    // the same prefix again (implicit withdraw) changes nothing
    rib.update(a, List.of(), null, List.of(P), null, attrs(65002, 65010));
    sent(a);
    assertEquals(List.of(2L, 2L, 0L), counts(a, Family.IPV4_UNICAST));
    // P comes back with our AS in its path: still received, no longer accepted; twice counts once
    rib.update(a, List.of(), null, List.of(P), null, attrs(65002, 65001));
    rib.update(a, List.of(), null, List.of(P), null, attrs(65002, 65001));
    sent(a);
    assertEquals(List.of(2L, 1L, 0L), counts(a, Family.IPV4_UNICAST));
    // and acceptable again
    rib.update(a, List.of(), null, List.of(P), null, attrs(65002));
    sent(a);
    assertEquals(List.of(2L, 2L, 0L), counts(a, Family.IPV4_UNICAST));
    // a withdrawn loop is no longer received
    rib.update(a, List.of(), null, List.of(Q), null, attrs(65002, 65001));
    rib.update(a, List.of(Q), null, List.of(), null, null);
    sent(a);
    assertEquals(List.of(1L, 1L, 0L), counts(a, Family.IPV4_UNICAST));
    // session down: everything goes
    rib.update(a, List.of(), null, List.of(Q), null, attrs(65002, 65001));
    rib.peerDown(a);
    sent(a);
    assertEquals(List.of(0L, 0L, 0L), counts(a, Family.IPV4_UNICAST));
    assertEquals(List.of(0L, 0L, 0L), counts(a, Family.IPV6_UNICAST));
  }

  @Test
  void advertisedFollowsWhatWasSent() throws Exception {
    RibPeer a = peer("192.0.2.2", 65002, false);
    RibPeer b = peer("192.0.2.3", 65003, false);
    rib.peerUp(a);
    rib.peerUp(b);
    rib.update(a, List.of(), null, List.of(P, Q), null, attrs(65002));
    sent(a);
    sent(b);
    assertEquals(List.of(0L, 0L, 2L), counts(b, Family.IPV4_UNICAST));
    assertEquals(0, a.counters().advertised(Family.IPV4_UNICAST), "not sent back to its sender");
    rib.update(a, List.of(Q), null, List.of(), null, null);
    sent(b);
    assertEquals(1, b.counters().advertised(Family.IPV4_UNICAST));
    // a route refresh sends everything again without counting it twice
    rib.resend(b);
    sent(b);
    assertEquals(1, b.counters().advertised(Family.IPV4_UNICAST));
  }
}
