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
 * Parses real {@code bgpctl -j} output of OpenBGPD 7.7, captured while it peered with BIRD 2.0.12
 * (the configurations are next to the fixtures: capture-bgpd.conf, capture-bird.conf). BIRD sent
 * 198.51.100.0/24 twice: over 192.0.2.2 with communities, large communities and MED 50, and over
 * 192.0.2.6 with a longer AS path (so not best); 2001:db8:2::/48 with its AS prepended and a large
 * community.
 */
class OpenBgpdParserTest {

  private static String fixture(String name) throws IOException {
    try (InputStream in = OpenBgpdParserTest.class.getResourceAsStream("openbgpd/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void parsesIpv4RibWithAttributesAndSkipsOwnNetworks() throws IOException {
    List<Route> routes = OpenBgpd.parseRoutes(fixture("show-rib-detail-inet.json"));

    // 203.0.113.0/24 is our own network statement: not a learned route.
    assertEquals(
        List.of("198.51.100.0/24", "198.51.100.0/24", "198.51.100.128/25"),
        routes.stream().map(r -> r.prefix().toString()).toList());

    Route best = routes.get(0);
    assertTrue(best.best());
    assertEquals(List.of(Ip.parse("192.0.2.2")), best.nextHops());
    assertEquals(List.of(65002L), best.asPath());
    assertEquals(
        List.of(
            "65002:100", "65002:200", "65535:666", "65535:65281", "65002:1:2", "4200000000:3:4"),
        best.communities());
    assertEquals(OptionalLong.of(50), best.med());
    assertEquals(OptionalLong.of(100), best.localPref());
    assertEquals(Ip.parse("192.0.2.2"), best.from());

    Route other = routes.get(1);
    assertFalse(other.best());
    assertEquals(Ip.parse("192.0.2.6"), other.nextHop());
    assertEquals(List.of(65002L, 4200000001L, 65002L), other.asPath());
    assertEquals(List.of(), other.communities());
    assertEquals(
        OptionalLong.of(0), other.med(), "bgpctl prints metric 0 when no MED was received");
    assertEquals(Ip.parse("192.0.2.6"), other.from());
  }

  @Test
  void parsesIpv6Rib() throws IOException {
    List<Route> routes = OpenBgpd.parseRoutes(fixture("show-rib-detail-inet6.json"));

    assertEquals(1, routes.size(), "2001:db8:1::/48 is ours and skipped");
    Route r = routes.getFirst();
    assertEquals(IpPrefix.parse("2001:db8:2::/48"), r.prefix());
    assertEquals(Ip.parse("2001:db8::2"), r.nextHop());
    assertEquals(List.of(65002L, 65002L), r.asPath());
    assertEquals(List.of("65002:6:6"), r.communities());
    assertEquals(OptionalLong.of(0), r.med());
    assertEquals(Ip.parse("2001:db8::2"), r.from());
    assertTrue(r.best());
  }

  @Test
  void parsesNeighborState() throws IOException {
    String json = fixture("show-neighbor.json");
    assertEquals(SessionState.ESTABLISHED, OpenBgpd.parseSessionState(json, Ip.parse("192.0.2.2")));
    assertEquals(SessionState.IDLE, OpenBgpd.parseSessionState(json, Ip.parse("192.0.2.9")));
    // What bgpctl prints for a neighbour it does not know.
    assertEquals(SessionState.IDLE, OpenBgpd.parseSessionState("{\n\n}\n", Ip.parse("192.0.2.2")));
  }

  @Test
  void configHonoursNeighborOptions() {
    RouterConfig cfg =
        RouterConfig.of(65001, "192.0.2.1")
            .neighbor(Neighbor.of("192.0.2.2", 65002).asPassive().withPassword("s3cret"))
            .neighbor(
                Neighbor.of("2001:db8::2", 65002)
                    .withMultihop(2)
                    .withFamilies(Family.IPV4_UNICAST, Family.IPV6_UNICAST))
            .originate("203.0.113.0/24");
    String text = new OpenBgpd(null, cfg).configText(java.nio.file.Path.of("/tmp/x/bgpd.sock"));
    assertTrue(
        text.contains(
            "neighbor 192.0.2.2 {\n  remote-as 65002\n  passive\n  tcp md5sig password \"s3cret\"\n"
                + "  announce IPv4 unicast\n  announce IPv6 none\n}"),
        text);
    assertTrue(
        text.contains(
            "neighbor 2001:db8::2 {\n  remote-as 65002\n  multihop 2\n"
                + "  announce IPv4 unicast\n  announce IPv6 unicast\n}"),
        text);
    assertTrue(text.contains("network 203.0.113.0/24\n"), text);
    assertTrue(text.contains("socket \"/tmp/x/bgpd.sock\"\n"), text);
    assertTrue(text.contains("allow from any\nallow to any\n"), text);
  }

  @Test
  void gtsmTakesItsHopsFromMultihop() {
    RouterConfig cfg =
        RouterConfig.of(65001, "192.0.2.1")
            .neighbor(Neighbor.of("192.0.2.2", 65002).withTtlSecurity(1))
            .neighbor(Neighbor.of("192.0.2.6", 65002).withTtlSecurity(2));
    String text = new OpenBgpd(null, cfg).configText(java.nio.file.Path.of("/tmp/x/bgpd.sock"));
    assertTrue(
        text.contains("neighbor 192.0.2.2 {\n  remote-as 65002\n  ttl-security yes\n  announce"),
        text);
    assertTrue(
        text.contains(
            "neighbor 192.0.2.6 {\n  remote-as 65002\n  ttl-security yes\n  multihop 2\n"),
        text);
  }

  @Test
  void withoutAs4DoesNotAnnounceTheCapability() {
    RouterConfig cfg =
        RouterConfig.of(65001, "192.0.2.1")
            .neighbor(Neighbor.of("192.0.2.2", 4_200_000_001L).withoutAs4())
            .neighbor(Neighbor.of("192.0.2.6", 65002));
    String text = new OpenBgpd(null, cfg).configText(java.nio.file.Path.of("/tmp/x/bgpd.sock"));
    assertTrue(
        text.contains("neighbor 192.0.2.2 {\n  remote-as 4200000001\n  announce as-4byte no\n"),
        text);
    assertEquals(1, text.split("as-4byte", -1).length - 1, text);
  }
}
