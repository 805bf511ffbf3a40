package dev.sart.bgp.rib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.wire.ClusterList;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.MpNextHop;
import dev.sart.bgp.wire.OriginatorId;
import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Route reflection (RFC 4456) through the RIB: who gets what, and with which attributes. */
class ReflectionRibTest {
  static final int US = Ip.parseV4("192.0.2.1");
  static final int CLUSTER = Ip.parseV4("192.0.2.255");
  static final Prefix P = RibTest.P;
  Rib rib;
  int ids;

  @BeforeEach
  void setUp() {
    rib = new Rib(1);
    rib.setLocalAs(65001);
  }

  @AfterEach
  void tearDown() {
    rib.close();
  }

  RibPeer peer(String address, boolean client, boolean nextHopSelf) throws Exception {
    AdjRibOut out = new AdjRibOut(() -> {});
    return new RibPeer(
        ++ids,
        InetAddress.getByName(address),
        65001,
        Ip.parseV4(address),
        true,
        new MpNextHop.V4(US),
        MpNextHop.V6.of("2001:db8::1"),
        RibTest.BOTH,
        out,
        out.counters(),
        new Reflection(client, nextHopSelf, CLUSTER, US));
  }

  Attrs sentTo(RibPeer p) {
    rib.query(v -> null).join();
    AdjRibOut.Batch b = p.out().drain(Integer.MAX_VALUE, RibTest.BOTH);
    return b.announce().isEmpty() ? null : b.announce().keySet().iterator().next();
  }

  @Test
  void aClientsRouteGoesToEveryoneAndANonClientsOnlyToClients() throws Exception {
    RibPeer c1 = peer("192.0.2.2", true, false);
    RibPeer c2 = peer("192.0.2.6", true, true);
    RibPeer n1 = peer("192.0.2.10", false, false);
    RibPeer n2 = peer("192.0.2.14", false, false);
    for (RibPeer p : List.of(c1, c2, n1, n2)) {
      rib.peerUp(p);
    }
    rib.update(c1, List.of(), null, List.of(P), null, RibTest.attrs());
    Attrs atN1 = sentTo(n1);
    // §8: ORIGINATOR_ID the client's identifier, CLUSTER_LIST ours; §10: the next hop kept
    assertEquals(
        new OriginatorId(Ip.parseV4("192.0.2.2")), atN1.attributes().orNull(OriginatorId.class));
    assertEquals(ClusterList.of(CLUSTER), atN1.attributes().orNull(ClusterList.class));
    assertEquals(new MpNextHop.V4(Ip.parseV4("198.51.100.9")), atN1.nextHop());
    // next-hop-self towards c2: our address, reflected routes included
    assertEquals(new MpNextHop.V4(US), sentTo(c2).nextHop());
    assertTrue(sentTo(n2) != null);
    assertNull(sentTo(c1), "not back to where it came from");

    Prefix q = Prefix.parse("198.51.100.0/24");
    rib.update(n1, List.of(), null, List.of(q), null, RibTest.attrs());
    assertTrue(sentTo(c1) != null, "non-client → client");
    assertNull(sentTo(n2), "non-client → non-client: RFC 4271 §9.1.1 still holds");
  }

  @Test
  void aRouteWithOurIdentifierOrClusterIdHasLoopedAndIsIgnored() throws Exception {
    RibPeer c1 = peer("192.0.2.2", true, false);
    rib.peerUp(c1);
    Prefix own = Prefix.parse("198.51.100.0/24");
    Prefix cluster = Prefix.parse("198.51.100.128/25");
    rib.update(
        c1,
        List.of(),
        null,
        List.of(own),
        null,
        RibTest.attrs().withAttributes(RibTest.attrs().attributes().with(new OriginatorId(US))));
    rib.update(
        c1,
        List.of(),
        null,
        List.of(cluster),
        null,
        RibTest.attrs()
            .withAttributes(
                RibTest.attrs()
                    .attributes()
                    .with(ClusterList.of(Ip.parseV4("192.0.2.254"), CLUSTER))));
    rib.update(c1, List.of(), null, List.of(P), null, RibTest.attrs());
    rib.query(v -> null).join();
    assertNull(rib.query(v -> v.route(own)).join());
    assertNull(rib.query(v -> v.route(cluster)).join());
    assertTrue(rib.query(v -> v.route(P)).join() != null);
    assertEquals(3, c1.counters().received(Family.IPV4_UNICAST), "counted as received");
  }
}
