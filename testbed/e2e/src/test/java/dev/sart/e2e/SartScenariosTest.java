package dev.sart.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.Route;
import dev.sart.testbed.Router;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.RouterKind;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * sart's own BGP end-to-end scenarios (frr, gobgp, ibgp, circle, circle-ibgp, multipath), with
 * sartd as a process configured through the sart CLI, and each peer's own CLI as the oracle.
 * Addresses are documentation ranges instead of sart's 169.254/10.0 ones.
 */
class SartScenariosTest {
  @RegisterExtension final Testbed testbed = new Testbed();

  /**
   * sartd (AS {@code sartAs}) and one daemon (AS {@code peerAs}) on a veth; sart configured by the
   * CLI.
   */
  private SartdNode pairConfiguredByCli(RouterKind kind, long sartAs, long peerAs) {
    Topology t = testbed.topology();
    Node s = t.node("sart");
    Node p = t.node("peer");
    t.link(s, p).addresses("192.0.2.2/24", "192.0.2.1/24");
    SartdNode sart = SartdNode.start(s);
    JsonNode before = sart.json("bgp", "global", "get");
    assertEquals(0, before.get("asn").asLong(), "a speaker without config starts with AS 0");
    sart.cli("bgp", "global", "set", "--asn", Long.toString(sartAs), "--router-id", "192.0.2.2");
    JsonNode after = sart.json("bgp", "global", "get");
    assertEquals(sartAs, after.get("asn").asLong());
    assertEquals("192.0.2.2", after.get("routerId").asText());
    kind.create(p, RouterConfig.of(peerAs, "192.0.2.1").neighbor(Neighbor.of("192.0.2.2", sartAs)))
        .start();
    sart.cli(
        "bgp", "neighbor", "add", "192.0.2.1", Long.toString(peerAs), "--connect-retry-time", "1");
    return sart;
  }

  @Test
  void frr() {
    pairConfiguredByCli(RouterKind.FRR, 65001, 65000).awaitEstablished("192.0.2.1");
  }

  @Test
  void gobgp() {
    pairConfiguredByCli(RouterKind.GOBGP, 65001, 65000).awaitEstablished("192.0.2.1");
  }

  @Test
  void ibgp() {
    SartdNode sart = pairConfiguredByCli(RouterKind.FRR, 65000, 65000);
    sart.awaitEstablished("192.0.2.1");
    assertEquals(65000, sart.json("bgp", "neighbor", "get", "192.0.2.1").get("asn").asLong());
  }

  /** gobgp0 (.10), gobgp1 (.11) and sart (.1) on one LAN, each peering with the other two. */
  private record Circle(SartdNode sart, Router gobgp0, Router gobgp1) {}

  private Circle circle(long sartAs, long as0, long as1) {
    Topology t = testbed.topology();
    Node lan = t.bridge("lan");
    Node s = t.node("sart");
    Node g0 = t.node("gobgp0");
    Node g1 = t.node("gobgp1");
    t.attach(s, lan).a().address("eth1", "192.0.2.1/24");
    t.attach(g0, lan).a().address("eth1", "192.0.2.10/24");
    t.attach(g1, lan).a().address("eth1", "192.0.2.11/24");
    SartdNode sart = SartdNode.start(s, "--as", Long.toString(sartAs), "--router-id", "192.0.2.1");
    Router r0 =
        RouterKind.GOBGP
            .create(
                g0,
                RouterConfig.of(as0, "192.0.2.10")
                    .neighbor(Neighbor.of("192.0.2.1", sartAs))
                    .neighbor(Neighbor.of("192.0.2.11", as1)))
            .start();
    Router r1 =
        RouterKind.GOBGP
            .create(
                g1,
                RouterConfig.of(as1, "192.0.2.11")
                    .neighbor(Neighbor.of("192.0.2.1", sartAs))
                    .neighbor(Neighbor.of("192.0.2.10", as0)))
            .start();
    sart.cli(
        "bgp", "neighbor", "add", "192.0.2.10", Long.toString(as0), "--connect-retry-time", "1");
    sart.cli(
        "bgp", "neighbor", "add", "192.0.2.11", Long.toString(as1), "--connect-retry-time", "1");
    sart.awaitEstablished("192.0.2.10");
    sart.awaitEstablished("192.0.2.11");
    r0.awaitEstablished("192.0.2.11");
    return new Circle(sart, r0, r1);
  }

  @Test
  void circle() {
    Circle c = circle(65001, 65000, 65002);
    c.sart().cli("bgp", "global", "rib", "add", "203.0.113.0/24");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> c.gobgp0().routes(dev.sart.net.IpPrefix.parse("203.0.113.0/24")).size() == 2);
    List<Route> at0 = c.gobgp0().routes(dev.sart.net.IpPrefix.parse("203.0.113.0/24"));
    assertTrue(at0.stream().anyMatch(r -> r.asPath().equals(List.of(65001L))), at0::toString);
    assertTrue(
        at0.stream().anyMatch(r -> r.asPath().equals(List.of(65002L, 65001L))), at0::toString);

    c.gobgp0().announce("198.51.100.0/24");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> c.sart().paths("ipv4", "198.51.100.0/24").size() == 2);
    JsonNode best =
        c.sart().paths("ipv4", "198.51.100.0/24").stream()
            .filter(p -> p.get("best").asBoolean())
            .findFirst()
            .orElseThrow();
    assertEquals("192.0.2.10", best.get("nextHops").get(0).asText(), "the shorter AS path wins");

    c.sart().cli("bgp", "global", "rib", "del", "203.0.113.0/24");
    c.gobgp0().awaitNoRoute("203.0.113.0/24");
    c.gobgp0().withdraw("198.51.100.0/24");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> c.sart().paths("ipv4", "198.51.100.0/24").isEmpty());
  }

  @Test
  void circleIbgp() {
    Circle c = circle(65000, 65000, 65000);
    c.sart().cli("bgp", "global", "rib", "add", "203.0.113.0/24");
    c.gobgp0().awaitRoute("203.0.113.0/24");
    // gobgp1 does not reflect what it learned over iBGP: gobgp0 holds exactly one path
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(5))
        .until(() -> c.gobgp0().routes(dev.sart.net.IpPrefix.parse("203.0.113.0/24")).size() == 1);
    c.gobgp0().announce("198.51.100.0/24");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> c.sart().paths("ipv4", "198.51.100.0/24").size() == 1);
    assertEquals(
        "192.0.2.10",
        c.sart().paths("ipv4", "198.51.100.0/24").getFirst().get("nextHops").get(0).asText());
    c.sart().cli("bgp", "global", "rib", "del", "203.0.113.0/24");
    c.gobgp0().awaitNoRoute("203.0.113.0/24");
    c.gobgp0().withdraw("198.51.100.0/24");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> c.sart().paths("ipv4", "198.51.100.0/24").isEmpty());
  }

  @Test
  void multipath() {
    Circle c = circle(65000, 65000, 65000);
    c.sart().cli("bgp", "global", "set", "--multi-path", "true");
    assertTrue(c.sart().json("bgp", "global", "get").get("multiPath").asBoolean());
    c.gobgp0().announce("198.51.100.0/24");
    c.gobgp1().announce("198.51.100.0/24");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              List<JsonNode> ps = c.sart().paths("ipv4", "198.51.100.0/24");
              return ps.size() == 2 && ps.stream().allMatch(p -> p.get("best").asBoolean());
            });
    c.gobgp0().withdraw("198.51.100.0/24");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> c.sart().paths("ipv4", "198.51.100.0/24").size() == 1);
    assertEquals(
        "192.0.2.11",
        c.sart().paths("ipv4", "198.51.100.0/24").getFirst().get("peerAddr").asText());
  }
}
