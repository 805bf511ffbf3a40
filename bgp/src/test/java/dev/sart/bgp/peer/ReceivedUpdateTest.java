package dev.sart.bgp.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.sart.bgp.rib.Path;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.rib.Rib;
import dev.sart.bgp.rib.RibPeer;
import dev.sart.bgp.rib.RouteView;
import dev.sart.bgp.wire.AsPath;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.Ipv4Prefixes;
import dev.sart.bgp.wire.MpNextHop;
import dev.sart.bgp.wire.NextHop;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.PathAttributes;
import dev.sart.bgp.wire.SessionOptions;
import dev.sart.bgp.wire.Update;
import java.net.InetAddress;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a received UPDATE hands the RIB: its prefixes, and their ADD-PATH identifiers when it has
 * them (RFC 7911).
 */
class ReceivedUpdateTest {
  private static final Prefix P = Prefix.parse("203.0.113.0/24");
  private static final Prefix Q = Prefix.parse("198.51.100.0/24");
  private static final PathAttributes ATTRS =
      PathAttributes.of(
          Origin.IGP, AsPath.sequence(new long[] {65002}), new NextHop(Ip.parseV4("192.0.2.2")));

  private Rib rib;
  private RibPeer peer;

  @BeforeEach
  void setUp() throws Exception {
    rib = new Rib(1);
    rib.setLocalAs(65001);
    peer =
        new RibPeer(
            1,
            InetAddress.getByName("192.0.2.2"),
            65002,
            2,
            false,
            new MpNextHop.V4(Ip.parseV4("192.0.2.1")),
            null,
            Set.of(Family.IPV4_UNICAST),
            null);
    rib.peerUp(peer);
  }

  @AfterEach
  void tearDown() {
    rib.close();
  }

  private void apply(Update u) {
    ReceivedUpdate.apply(u, false, peer, SessionOptions.FOUR_OCTET_AS, rib);
  }

  private List<Integer> pathIds(Prefix p) {
    RouteView r = rib.query(v -> v.route(p)).join();
    return r == null ? List.of() : r.paths().stream().map(Path::pathId).sorted().toList();
  }

  @Test
  void pathsWithIdentifiersAreKeptApartAndWithdrawnOneByOne() {
    apply(
        new Update(
            Ipv4Prefixes.EMPTY,
            ATTRS,
            Ipv4Prefixes.builderWithPathIds()
                .add(1, Ip.parseV4("203.0.113.0"), 24)
                .add(2, Ip.parseV4("203.0.113.0"), 24)
                .add(7, Ip.parseV4("198.51.100.0"), 24)
                .build()));
    assertEquals(List.of(1, 2), pathIds(P));
    assertEquals(List.of(7), pathIds(Q));

    apply(
        new Update(
            Ipv4Prefixes.builderWithPathIds().add(1, Ip.parseV4("203.0.113.0"), 24).build(),
            PathAttributes.EMPTY,
            Ipv4Prefixes.EMPTY));
    assertEquals(List.of(2), pathIds(P), "only the path with identifier 1 is withdrawn");
    assertEquals(List.of(7), pathIds(Q));
  }

  @Test
  void withoutAddPathEveryPathHasIdentifierZero() {
    Ipv4Prefixes.Builder b = Ipv4Prefixes.builder();
    for (int i = 0; i < 1_000; i++) { // more than one growth step of the prefix list
      b.add(Ip.parseV4("10.0.0.0") + (i << 8), 24);
    }
    apply(new Update(Ipv4Prefixes.EMPTY, ATTRS, b.build()));
    assertEquals(1_000, rib.query(v -> v.routes(Family.IPV4_UNICAST)).join().size());
    assertEquals(List.of(0), pathIds(Prefix.parse("10.3.231.0/24")));

    apply(
        new Update(
            Ipv4Prefixes.builder().add(Ip.parseV4("10.3.231.0"), 24).build(),
            PathAttributes.EMPTY,
            Ipv4Prefixes.EMPTY));
    assertNull(rib.query(v -> v.route(Prefix.parse("10.3.231.0/24"))).join());
    assertEquals(999, rib.query(v -> v.routes(Family.IPV4_UNICAST)).join().size());
  }
}
