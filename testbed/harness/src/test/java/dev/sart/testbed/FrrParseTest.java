package dev.sart.testbed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * {@link Frr#parseRoutes} on real {@code show bgp ... json detail} output of FRR 8.4.4 (see the
 * fixture's README).
 */
class FrrParseTest {

  private static String fixture(String name) throws IOException {
    try (InputStream in = FrrParseTest.class.getResourceAsStream("frr/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static Route find(List<Route> routes, String prefix, String from) {
    return routes.stream()
        .filter(r -> r.prefix().equals(IpPrefix.parse(prefix)) && Ip.format(r.from()).equals(from))
        .findFirst()
        .orElseThrow(
            () -> new AssertionError("no route " + prefix + " from " + from + " in " + routes));
  }

  @Test
  void ipv4LearnedPathsBestAndNotBestWithAttributes() throws IOException {
    List<Route> routes = Frr.parseRoutes(fixture("show-bgp-ipv4-unicast-json-detail.json"));

    // 203.0.113.0/24 is originated by the router itself: not a learned route
    assertEquals(3, routes.size(), routes.toString());
    assertTrue(routes.stream().noneMatch(r -> r.prefix().equals(IpPrefix.parse("203.0.113.0/24"))));

    Route ibgp = find(routes, "198.51.100.0/24", "192.0.2.6");
    assertTrue(ibgp.best());
    assertEquals(List.of(Ip.parse("192.0.2.6")), ibgp.nextHops());
    assertEquals(List.of(65003L), ibgp.asPath());
    assertEquals(OptionalLong.of(200), ibgp.localPref());
    assertEquals(OptionalLong.empty(), ibgp.med());
    assertEquals(List.of(), ibgp.communities());

    Route ebgp = find(routes, "198.51.100.0/24", "192.0.2.2");
    assertFalse(ebgp.best());
    assertEquals(List.of(65002L), ebgp.asPath());
    assertEquals(OptionalLong.empty(), ebgp.localPref());

    Route tagged = find(routes, "198.51.100.128/25", "192.0.2.2");
    assertTrue(tagged.best());
    assertEquals("192.0.2.2", Ip.format(tagged.nextHop()));
    assertEquals(List.of(65002L), tagged.asPath());
    assertEquals(OptionalLong.of(50), tagged.med());
    // no-export is printed by name in FRR's JSON; the parser gives its value
    assertEquals(List.of("65002:1", "65002:666", "65535:65281", "65002:2:3"), tagged.communities());
  }

  @Test
  void ipv6GlobalNextHopRatherThanLinkLocal() throws IOException {
    List<Route> routes = Frr.parseRoutes(fixture("show-bgp-ipv6-unicast-json-detail.json"));

    assertEquals(1, routes.size(), routes.toString());
    Route r = routes.getFirst();
    assertEquals(IpPrefix.parse("2001:db8:2::/48"), r.prefix());
    assertEquals(List.of(Ip.parse("2001:db8::2")), r.nextHops());
    assertEquals("2001:db8::2", Ip.format(r.from()));
    assertTrue(r.best());
    assertEquals(List.of(65002L), r.asPath());
    assertEquals(OptionalLong.of(50), r.med());
    assertEquals(List.of("65002:1", "65002:666", "65535:65281", "65002:2:3"), r.communities());
  }

  @Test
  void emptyTable() {
    assertEquals(List.of(), Frr.parseRoutes("{\"vrfId\": 0, \"routes\": {} }"));
    assertEquals(List.of(), Frr.parseRoutes("{}"));
  }

  @Test
  void configHonoursEveryNeighbourField() {
    RouterConfig config =
        RouterConfig.of(65001, "192.0.2.1")
            .neighbor(
                Neighbor.of("192.0.2.2", 65002).asPassive().withPassword("s3cret").withMultihop(3))
            .neighbor(
                Neighbor.of("2001:db8::2", 65002)
                    .withFamilies(Family.IPV4_UNICAST, Family.IPV6_UNICAST))
            .neighbor(Neighbor.of("192.0.2.6", 65001).withMultihop(2))
            .originate("203.0.113.0/24", "2001:db8:1::/48");
    String text =
        new Frr(new Node(null, "r1", "unused", java.nio.file.Path.of("/nonexistent")), config)
            .configText();
    String expected =
        """
        frr defaults traditional
        hostname r1
        log stdout informational
        !
        router bgp 65001
         bgp router-id 192.0.2.1
         no bgp default ipv4-unicast
         no bgp ebgp-requires-policy
         no bgp network import-check
         coalesce-time 0
         neighbor 192.0.2.2 remote-as 65002
         neighbor 192.0.2.2 timers connect 1
         neighbor 192.0.2.2 advertisement-interval 0
         neighbor 192.0.2.2 passive
         neighbor 192.0.2.2 password s3cret
         neighbor 192.0.2.2 ebgp-multihop 3
         neighbor 2001:db8::2 remote-as 65002
         neighbor 2001:db8::2 timers connect 1
         neighbor 2001:db8::2 advertisement-interval 0
         neighbor 2001:db8::2 capability extended-nexthop
         neighbor 192.0.2.6 remote-as 65001
         neighbor 192.0.2.6 timers connect 1
         neighbor 192.0.2.6 advertisement-interval 0
         !
         address-family ipv4 unicast
          network 203.0.113.0/24
          neighbor 192.0.2.2 activate
          neighbor 2001:db8::2 activate
          neighbor 192.0.2.6 activate
         exit-address-family
         !
         address-family ipv6 unicast
          network 2001:db8:1::/48
          neighbor 2001:db8::2 activate
         exit-address-family
        !
        """;
    assertEquals(expected, text);
  }

  @Test
  void frrOnlyStatesMapToIdle() {
    assertEquals(SessionState.IDLE, SessionState.parse("Clearing"));
    assertEquals(SessionState.OPEN_CONFIRM, SessionState.parse("OpenConfirm"));
  }

  @Test
  void birdsPassiveIsActive() {
    // a passive protocol waiting for the peer's connection (seen in a CI run of
    // SpeakerOptionsInteropTest)
    assertEquals(SessionState.ACTIVE, SessionState.parse("Passive"));
  }

  @Test
  void gtsmIsTtlSecurityHops() {
    RouterConfig config =
        RouterConfig.of(65001, "192.0.2.1")
            .neighbor(Neighbor.of("192.0.2.2", 65002).withTtlSecurity(2));
    String text =
        new Frr(new Node(null, "r1", "unused", java.nio.file.Path.of("/nonexistent")), config)
            .configText();
    assertTrue(text.contains(" neighbor 192.0.2.2 ttl-security hops 2\n"), text);
    assertFalse(text.contains("ebgp-multihop"), text);
  }

  @Test
  void withoutAs4SendsNoCapabilitiesAndOnlyForIpv4Unicast() {
    Node node = new Node(null, "r1", "unused", java.nio.file.Path.of("/nonexistent"));
    RouterConfig config =
        RouterConfig.of(65001, "192.0.2.1")
            .neighbor(Neighbor.of("192.0.2.2", 4_200_000_001L).withoutAs4());
    String text = new Frr(node, config).configText();
    assertTrue(text.contains(" neighbor 192.0.2.2 dont-capability-negotiate\n"), text);
    RouterConfig v6 =
        RouterConfig.of(65001, "192.0.2.1")
            .neighbor(Neighbor.of("2001:db8::2", 65002).withoutAs4());
    IllegalArgumentException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class, () -> new Frr(node, v6).configText());
    assertTrue(e.getMessage().contains("IPv4 unicast"), e.getMessage());
  }

  @Test
  void gracefulRestartWritesTheModeTheForwardingStateAndTheRestartTime() {
    Node node = new Node(null, "x", "unused", java.nio.file.Path.of("/tmp/x"));
    RouterConfig config =
        RouterConfig.of(65001, "192.0.2.1").neighbor(Neighbor.of("192.0.2.2", 65002));
    String plain = new Frr(node, config).configText();
    org.junit.jupiter.api.Assertions.assertFalse(plain.contains("graceful-restart"), plain);
    String text = new Frr(node, config).withGracefulRestart(7).configText();
    org.junit.jupiter.api.Assertions.assertTrue(
        text.contains(
            " bgp graceful-restart\n bgp graceful-restart preserve-fw-state\n"
                + " bgp graceful-restart restart-time 7\n"),
        text);
  }
}
