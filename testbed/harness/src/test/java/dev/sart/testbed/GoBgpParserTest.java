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
 * Parses output captured from gobgp 3.10.0 ({@code gobgp -j global rib -a ipv4|ipv6}, {@code gobgp
 * -j neighbor ADDR}) while gobgpd (AS 65001) peered with BIRD 2.0.12: eBGP to 192.0.2.2 /
 * 2001:db8::2 (AS 65002, export filter adding communities 65002:100 and no-export, large community
 * 65002:1:2, MED 50, 64512 prepended on 203.0.113.128/25) and iBGP to 192.0.2.6 (LOCAL_PREF 200,
 * community 65001:7). gobgpd itself originated 203.0.113.0/24 and 2001:db8:1::/48.
 */
class GoBgpParserTest {

  private static String fixture(String name) throws IOException {
    try (InputStream in = GoBgpParserTest.class.getResourceAsStream("gobgp/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void ipv4RibKeepsLearnedPathsBestAndNotAndDropsOriginated() throws IOException {
    List<Route> routes = GoBgp.parseRoutes(fixture("rib4.json"));

    assertEquals(4, routes.size(), routes.toString());
    assertTrue(
        routes.stream().noneMatch(r -> r.prefix().equals(IpPrefix.parse("203.0.113.0/24"))),
        "the locally originated prefix is not a learned route");

    Route ibgp = routes.get(0);
    assertEquals(IpPrefix.parse("198.51.100.0/24"), ibgp.prefix());
    assertTrue(ibgp.best());
    assertEquals(List.of(), ibgp.asPath());
    assertEquals("192.0.2.6", Ip.format(ibgp.nextHop()));
    assertEquals("192.0.2.6", Ip.format(ibgp.from()));
    assertEquals(OptionalLong.of(200), ibgp.localPref());
    assertEquals(OptionalLong.empty(), ibgp.med());
    assertEquals(List.of("65001:7"), ibgp.communities());

    Route ebgp = routes.get(1);
    assertEquals(IpPrefix.parse("198.51.100.0/24"), ebgp.prefix());
    assertFalse(ebgp.best());
    assertEquals(List.of(65002L), ebgp.asPath());
    assertEquals("192.0.2.2", Ip.format(ebgp.nextHop()));
    assertEquals("192.0.2.2", Ip.format(ebgp.from()));
    assertEquals(OptionalLong.of(50), ebgp.med());
    assertEquals(OptionalLong.empty(), ebgp.localPref());
    assertEquals(List.of("65002:100", "65535:65281", "65002:1:2"), ebgp.communities());

    Route prepended = routes.get(3);
    assertEquals(IpPrefix.parse("203.0.113.128/25"), prepended.prefix());
    assertEquals(List.of(65002L, 64512L), prepended.asPath());
    assertFalse(prepended.best());
  }

  @Test
  void ipv6RibTakesNextHopFromMpReach() throws IOException {
    List<Route> routes = GoBgp.parseRoutes(fixture("rib6.json"));

    assertEquals(1, routes.size(), routes.toString());
    Route r = routes.getFirst();
    assertEquals(IpPrefix.parse("2001:db8:2::/48"), r.prefix());
    assertTrue(r.best());
    assertEquals(List.of(65002L), r.asPath());
    assertEquals(List.of(Ip.parse("2001:db8::2")), r.nextHops());
    assertEquals("2001:db8::2", Ip.format(r.from()));
    assertEquals(OptionalLong.of(50), r.med());
    assertEquals(List.of("65002:100", "65535:65281", "65002:1:2"), r.communities());
  }

  @Test
  void emptyRib() {
    assertEquals(List.of(), GoBgp.parseRoutes("{}"));
  }

  @Test
  void sessionStateIsTheApiEnumNumber() throws IOException {
    assertEquals(
        SessionState.ESTABLISHED, GoBgp.parseSessionState(fixture("nbr-established.json")));
    assertEquals(SessionState.ACTIVE, GoBgp.parseSessionState("{\"state\":{\"session_state\":3}}"));
    assertEquals(SessionState.IDLE, GoBgp.parseSessionState("{\"state\":{}}"));
  }

  @Test
  void configHonoursEveryNeighbourField() {
    RouterConfig c =
        RouterConfig.of(65001, "192.0.2.1")
            .neighbor(
                Neighbor.of("192.0.2.2", 65002).asPassive().withPassword("s\"cret").withMultihop(3))
            .neighbor(
                Neighbor.of("2001:db8::2", 65002)
                    .withFamilies(Family.IPV4_UNICAST, Family.IPV6_UNICAST));
    String toml = new GoBgp(null, c).configText();

    assertTrue(toml.contains("as = 65001\n  router-id = \"192.0.2.1\""), toml);
    assertTrue(toml.contains("default-import-policy = \"accept-route\""), toml);
    assertTrue(toml.contains("default-export-policy = \"accept-route\""), toml);
    assertTrue(toml.contains("auth-password = \"s\\\"cret\""), toml);
    assertTrue(toml.contains("passive-mode = true"), toml);
    assertTrue(toml.contains("multihop-ttl = 3"), toml);
    assertEquals(2, toml.split("connect-retry = 1", -1).length - 1, toml);
    assertEquals(3, toml.split("afi-safi-name", -1).length - 1, toml);
    assertTrue(toml.contains("neighbor-address = \"2001:db8::2\""), toml);
  }

  @Test
  void gtsmSetsTheLowestTtlAcceptedInsteadOfMultihop() {
    RouterConfig c =
        RouterConfig.of(65001, "192.0.2.1")
            .neighbor(Neighbor.of("192.0.2.2", 65002).withTtlSecurity(2));
    String toml = new GoBgp(null, c).configText();
    assertTrue(
        toml.contains("[neighbors.ttl-security.config]\n    enabled = true\n    ttl-min = 254\n"),
        toml);
    assertFalse(toml.contains("ebgp-multihop"), toml);
  }

  @Test
  void withoutAs4IsRefusedNotIgnored() {
    RouterConfig c =
        RouterConfig.of(65001, "192.0.2.1").neighbor(Neighbor.of("192.0.2.2", 65002).withoutAs4());
    IllegalArgumentException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class, () -> new GoBgp(null, c).configText());
    assertTrue(e.getMessage().contains("4-octet AS"), e.getMessage());
  }
}
