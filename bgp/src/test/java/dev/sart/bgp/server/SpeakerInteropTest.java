package dev.sart.bgp.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.fsm.State;
import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.rib.Rib;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.PathAttributes;
import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.Route;
import dev.sart.testbed.Router;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.RouterKind;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The speaker in a namespace peering with each real daemon over IPv4 and IPv6: sessions come up,
 * our routes appear in the daemon's own CLI, the daemon's routes appear in our RIB.
 */
class SpeakerInteropTest {
  @RegisterExtension final Testbed testbed = new Testbed();
  private BgpServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  @ParameterizedTest(name = "sart and {0} exchange IPv4 and IPv6 routes")
  @EnumSource(
      value = RouterKind.class,
      names = {"FRR", "BIRD", "GOBGP", "OPENBGPD"})
  void sartExchangesRoutesWith(RouterKind kind) throws Exception {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    Node peer = t.node("peer");
    t.link(sart, peer)
        .addresses("192.0.2.1/30", "192.0.2.2/30")
        .addresses("2001:db8::1/64", "2001:db8::2/64");

    server = new BgpServer(179, 1, NamespaceThreads.factory(sart, "bgp-io"));
    server.setLocalAs(65001);
    server.setRouterId(Ip.parseV4("192.0.2.1"));
    server.start();
    server.addPeer(quick(PeerConfig.of(InetAddress.getByName("192.0.2.2"), 65002)));
    server.addPeer(quick(PeerConfig.of(InetAddress.getByName("2001:db8::2"), 65002)));
    server.addPaths(
        List.of(Prefix.parse("203.0.113.0/24"), Prefix.parse("2001:db8:1::/48")),
        PathAttributes.of(Origin.IGP));

    Router r =
        kind.create(
                peer,
                RouterConfig.of(65002, "192.0.2.2")
                    .neighbor(Neighbor.of("192.0.2.1", 65001))
                    .neighbor(Neighbor.of("2001:db8::1", 65001))
                    .originate("198.51.100.0/24", "2001:db8:2::/48"))
            .start();

    r.awaitEstablished("192.0.2.1").awaitEstablished("2001:db8::1");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> server.peers().stream().allMatch(p -> p.status().state() == State.ESTABLISHED));

    Route v4 = r.awaitRoute("203.0.113.0/24");
    assertEquals(List.of(65001L), v4.asPath());
    assertTrue(v4.nextHops().contains(dev.sart.net.Ip.parse("192.0.2.1")), v4::toString);
    Route v6 = r.awaitRoute("2001:db8:1::/48");
    assertEquals(List.of(65001L), v6.asPath());
    assertTrue(v6.nextHops().contains(dev.sart.net.Ip.parse("2001:db8::1")), v6::toString);

    Rib rib = server.rib();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                rib.query(v -> v.route(Prefix.parse("198.51.100.0/24"))).join() != null
                    && rib.query(v -> v.route(Prefix.parse("2001:db8:2::/48"))).join() != null);

    // withdrawal both ways
    server.deletePaths(List.of(Prefix.parse("203.0.113.0/24")));
    r.awaitNoRoute("203.0.113.0/24");
    r.withdraw("198.51.100.0/24");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> rib.query(v -> v.route(Prefix.parse("198.51.100.0/24"))).join() == null);
  }

  static PeerConfig quick(PeerConfig c) {
    return c.toBuilder()
        .connectRetryTime(Duration.ofSeconds(1))
        .families(
            Set.of(
                c.address() instanceof java.net.Inet4Address
                    ? Family.IPV4_UNICAST
                    : Family.IPV6_UNICAST))
        .build();
  }
}
