package dev.sart.testbed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * Replays API output captured from ExaBGP 4.2.21 peered with BIRD 2.0.12: eBGP over IPv4
 * (192.0.2.2, AS 65002, exporting MED 42, community 65002:7, large community 65002:1:2), eBGP over
 * IPv6 (2001:db8::2, same attributes, link-local second next hop; the session was disabled and
 * re-enabled) and iBGP (192.0.2.6, LOCAL_PREF 200, community 65001:100); withdrawals; one "done"
 * and one "error" acknowledgement.
 */
class ExaBgpParserTest {
  private static final InetAddress V4 = Ip.parse("192.0.2.2");
  private static final InetAddress V6 = Ip.parse("2001:db8::2");
  private static final InetAddress IBGP = Ip.parse("192.0.2.6");

  private static String fixture() throws IOException {
    try (InputStream in = ExaBgpParserTest.class.getResourceAsStream("exabgp/events.jsonl")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static Route only(List<Route> routes, String prefix, InetAddress from) {
    List<Route> rs =
        routes.stream()
            .filter(r -> r.prefix().equals(IpPrefix.parse(prefix)) && r.from().equals(from))
            .toList();
    assertEquals(1, rs.size(), () -> prefix + " from " + from + " in " + routes);
    return rs.getFirst();
  }

  @Test
  void replaysTheWholeCapture() throws IOException {
    ExaBgp.Feed feed = new ExaBgp.Feed();
    feed.accept(fixture());

    assertEquals(SessionState.ESTABLISHED, feed.state(V4));
    assertEquals(SessionState.ESTABLISHED, feed.state(V6));
    assertEquals(SessionState.ESTABLISHED, feed.state(IBGP));
    assertEquals(SessionState.IDLE, feed.state(Ip.parse("192.0.2.99")));
    assertEquals(2, feed.acks);
    assertEquals("error", feed.lastAck);

    List<Route> v4 = feed.routes(Family.IPV4_UNICAST);
    assertEquals(4, v4.size(), v4::toString);
    Route ebgp = only(v4, "198.51.100.0/24", V4);
    assertEquals(List.of(V4), ebgp.nextHops());
    assertEquals(List.of(65002L), ebgp.asPath());
    assertEquals(List.of("65002:7", "65002:1:2"), ebgp.communities());
    assertEquals(OptionalLong.of(42), ebgp.med());
    assertEquals(OptionalLong.empty(), ebgp.localPref());
    assertFalse(ebgp.best(), "the iBGP neighbour sent the same prefix");

    Route ibgp = only(v4, "198.51.100.0/24", IBGP);
    assertEquals(List.of(), ibgp.asPath());
    assertEquals(List.of(IBGP), ibgp.nextHops());
    assertEquals(List.of("65001:100"), ibgp.communities());
    assertEquals(OptionalLong.of(200), ibgp.localPref());
    assertEquals(OptionalLong.empty(), ibgp.med());

    Route reflected = only(v4, "203.0.113.0/24", IBGP);
    assertEquals(List.of(65001L), reflected.asPath());
    assertTrue(reflected.best());
    // announced by both, withdrawn by 192.0.2.2 only
    assertTrue(only(v4, "203.0.113.128/25", IBGP).best());
    assertTrue(
        v4.stream().noneMatch(r -> r.prefix().equals(IpPrefix.parse("198.51.100.128/25"))),
        v4::toString);

    List<Route> v6 = feed.routes(Family.IPV6_UNICAST);
    assertEquals(1, v6.size(), v6::toString);
    Route r6 = only(v6, "2001:db8:2::/48", V6);
    assertEquals(List.of(V6), r6.nextHops(), "the link-local next hop is dropped");
    assertEquals(List.of(65002L), r6.asPath());
    assertEquals(List.of("65002:7", "65002:1:2"), r6.communities());
    assertEquals(OptionalLong.of(42), r6.med());
    assertTrue(r6.best());
  }

  @Test
  void sessionDownDropsTheNeighboursRoutes() throws IOException {
    List<String> lines = fixture().lines().toList();
    int shutdown = 0;
    while (!lines.get(shutdown).contains("Administrative Shutdown")) {
      shutdown++;
    }
    ExaBgp.Feed feed = new ExaBgp.Feed();
    feed.accept(String.join("\n", lines.subList(0, shutdown)));
    assertEquals(1, feed.routes(Family.IPV6_UNICAST).size());
    feed.accept(lines.get(shutdown));
    assertEquals(SessionState.IDLE, feed.state(V6));
    assertEquals(List.of(), feed.routes(Family.IPV6_UNICAST));
    feed.accept(lines.get(shutdown + 1));
    assertEquals(SessionState.OPEN_SENT, feed.state(V6), "connected: TCP is up");
    assertEquals(
        3, feed.routes(Family.IPV4_UNICAST).size(), "198.51.100.128/25 is withdrawn by then");
  }

  @Test
  void configHonoursEveryNeighbourField() {
    Node node = new Node(null, "x", "unused", java.nio.file.Path.of("/tmp/x"));
    RouterConfig config =
        RouterConfig.of(65001, "192.0.2.1")
            .neighbor(
                Neighbor.of("192.0.2.2", 65002)
                    .asPassive()
                    .withPassword("s3cret")
                    .withMultihop(3)
                    .withFamilies(Family.IPV4_UNICAST, Family.IPV6_UNICAST))
            .originate("203.0.113.0/24", "2001:db8:1::/48");
    String text = new ExaBgp(node, config).configText(Map.of(V4, Ip.parse("192.0.2.1")));
    assertTrue(text.contains("local-address 192.0.2.1;"), text);
    assertTrue(text.contains("passive true;"), text);
    assertTrue(text.contains("md5-password \"s3cret\";"), text);
    assertTrue(text.contains("outgoing-ttl 3;"), text);
    assertTrue(text.contains("ipv4 unicast;\n    ipv6 unicast;"), text);
    assertTrue(text.contains("route 203.0.113.0/24 next-hop self;"), text);
    assertTrue(text.contains("route 2001:db8:1::/48 next-hop self;"), text);
  }

  @Test
  void withoutListeningLeavesExaBgpConnectingOnly() {
    Node node = new Node(null, "x", "unused", java.nio.file.Path.of("/tmp/x"));
    RouterConfig config =
        RouterConfig.of(65001, "192.0.2.1").neighbor(Neighbor.of("192.0.2.2", 65002));
    String listening = new ExaBgp(node, config).configText(Map.of(V4, Ip.parse("192.0.2.1")));
    assertTrue(listening.contains("  listen 179;\n"), listening);
    String connecting =
        new ExaBgp(node, config).withoutListening().configText(Map.of(V4, Ip.parse("192.0.2.1")));
    assertTrue(!connecting.contains("listen"), connecting);
    assertTrue(!connecting.contains("passive"), connecting);
  }

  @Test
  void gtsmIsRefusedNotIgnored() {
    RouterConfig config =
        RouterConfig.of(65001, "192.0.2.1")
            .neighbor(Neighbor.of("192.0.2.2", 65002).withTtlSecurity(1));
    Node node = new Node(null, "r1", "unused", java.nio.file.Path.of("/nonexistent"));
    IllegalArgumentException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () -> new ExaBgp(node, config).configText(Map.of(V4, Ip.parse("192.0.2.1"))));
    assertTrue(e.getMessage().contains("GTSM"), e.getMessage());
  }

  @Test
  void gtsmAndMultihopTogetherAreABadNeighbour() {
    IllegalArgumentException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () -> Neighbor.of("192.0.2.2", 65002).withMultihop(2).withTtlSecurity(2));
    assertTrue(e.getMessage().contains("exclude"), e.getMessage());
  }

  @Test
  void withoutAs4DisablesAsn4() {
    RouterConfig config =
        RouterConfig.of(65001, "192.0.2.1").neighbor(Neighbor.of("192.0.2.2", 65002).withoutAs4());
    Node node = new Node(null, "r1", "unused", java.nio.file.Path.of("/nonexistent"));
    String text = new ExaBgp(node, config).configText(Map.of(V4, Ip.parse("192.0.2.1")));
    assertTrue(text.contains("  capability { asn4 disable; }\n"), text);
  }
}
