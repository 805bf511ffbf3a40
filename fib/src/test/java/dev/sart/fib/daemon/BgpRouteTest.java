package dev.sart.fib.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.sart.fib.netlink.NextHop;
import dev.sart.proto.v1.Path;
import dev.sart.proto.v1.PathEvent;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A speaker's PathEvent → the route a channel offers (BgpWatchSubscriber.route). */
class BgpRouteTest {
  private static Path path(String nextHop, long peerAs, String peer) {
    return Path.newBuilder()
        .setNlri("198.51.100.0/24")
        .addNextHops(nextHop)
        .setPeerAsn((int) peerAs)
        .setPeerAddr(peer)
        .build();
  }

  private static PathEvent event(Path... selected) {
    return PathEvent.newBuilder()
        .setPrefix("198.51.100.0/24")
        .addAllSelected(List.of(selected))
        .build();
  }

  @Test
  void theSelectedPathsMakeOneEcmpRouteWithTheDistanceOfTheBest() {
    ChannelRoute r =
        BgpWatchSubscriber.route(
            event(
                path("192.0.2.10", 65000, "192.0.2.10"),
                path("192.0.2.11", 65000, "192.0.2.11"),
                path("192.0.2.11", 65000, "192.0.2.12")),
            65001,
            "bgp x");
    assertEquals(
        List.of(NextHop.via("192.0.2.10"), NextHop.via("192.0.2.11")),
        r.nextHops(),
        "one hop per gateway");
    assertEquals(Distance.EBGP, r.distance());
    assertEquals(
        Distance.IBGP,
        BgpWatchSubscriber.route(event(path("192.0.2.10", 65001, "192.0.2.10")), 65001, "x")
            .distance());
  }

  @Test
  void withdrawnOwnAndUnusablePathsInstallNothing() {
    assertNull(BgpWatchSubscriber.route(event(), 65001, "x"), "withdrawn");
    assertNull(
        BgpWatchSubscriber.route(event(path("0.0.0.0", 0, "")), 65001, "x"),
        "originated by the speaker");
    assertNull(
        BgpWatchSubscriber.route(event(path("0.0.0.0", 65000, "192.0.2.10")), 65001, "x"),
        "no next hop");
    assertNull(
        BgpWatchSubscriber.route(
            PathEvent.newBuilder()
                .setPrefix("2001:db8:1::/48")
                .addSelected(path("fe80::1", 65000, "fe80::1"))
                .build(),
            65001,
            "x"),
        "link-local without a zone: no interface to use");
  }

  @Test
  void linkLocalNextHopsWithTheirInterfaceMakeAnIpv4RouteViaIpv6WithEcmp() {
    // RFC 8950: an IPv4 prefix learned over two unnumbered links, the zone is the interface index
    ChannelRoute r =
        BgpWatchSubscriber.route(
            event(path("fe80::1%4", 65000, "fe80::1"), path("fe80::2%7", 65000, "fe80::2")),
            65001,
            "x");
    assertEquals(
        List.of(
            new NextHop(dev.sart.net.Ip.parse("fe80::1"), 4, 1, java.util.Set.of()),
            new NextHop(dev.sart.net.Ip.parse("fe80::2"), 7, 1, java.util.Set.of())),
        r.nextHops());
  }
}
