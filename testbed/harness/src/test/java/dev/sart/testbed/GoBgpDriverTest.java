package dev.sart.testbed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.net.Ip;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * GoBGP (AS 65001) against BIRD (AS 65002), each side's CLI the oracle of the other's behaviour.
 */
class GoBgpDriverTest {
  @RegisterExtension final Testbed testbed = new Testbed();

  private Router gobgp;
  private Router bird;

  /**
   * a (GoBGP) and b (BIRD) on one veth, one IPv4 and one IPv6 session, each side originating two
   * prefixes.
   */
  private void pair(boolean gobgpPassive, String password) {
    Topology t = testbed.topology();
    Node a = t.node("a");
    Node b = t.node("b");
    t.link(a, b)
        .addresses("192.0.2.1/30", "192.0.2.2/30")
        .addresses("2001:db8::1/64", "2001:db8::2/64");
    Neighbor toB4 = Neighbor.of("192.0.2.2", 65002);
    Neighbor toB6 = Neighbor.of("2001:db8::2", 65002);
    Neighbor toA4 = Neighbor.of("192.0.2.1", 65001);
    Neighbor toA6 = Neighbor.of("2001:db8::1", 65001);
    if (gobgpPassive) {
      toB4 = toB4.asPassive();
      toB6 = toB6.asPassive();
    }
    if (password != null) {
      toB4 = toB4.withPassword(password);
      toB6 = toB6.withPassword(password);
      toA4 = toA4.withPassword(password);
      toA6 = toA6.withPassword(password);
    }
    gobgp =
        RouterKind.GOBGP
            .create(
                a,
                RouterConfig.of(65001, "192.0.2.1")
                    .neighbor(toB4)
                    .neighbor(toB6)
                    .originate("203.0.113.0/24", "2001:db8:1::/48"))
            .start();
    bird =
        RouterKind.BIRD
            .create(
                b,
                RouterConfig.of(65002, "192.0.2.2")
                    .neighbor(toA4)
                    .neighbor(toA6)
                    .originate("198.51.100.0/24", "2001:db8:2::/48"))
            .start();
    for (String n : List.of("192.0.2.2", "2001:db8::2")) {
      gobgp.awaitEstablished(n);
    }
    for (String n : List.of("192.0.2.1", "2001:db8::1")) {
      bird.awaitEstablished(n);
    }
  }

  @Test
  void announcesAndWithdrawsAtRunTime() {
    pair(false, null);
    bird.awaitRoute("203.0.113.0/24");

    gobgp.announce("203.0.113.128/25");
    gobgp.announce("2001:db8:3::/48");
    assertEquals(List.of(65001L), bird.awaitRoute("203.0.113.128/25").asPath());
    assertEquals("2001:db8::1", Ip.format(bird.awaitRoute("2001:db8:3::/48").nextHop()));

    gobgp.withdraw("203.0.113.128/25");
    gobgp.withdraw("2001:db8:3::/48");
    gobgp.withdraw("203.0.113.0/24");
    bird.awaitNoRoute("203.0.113.128/25");
    bird.awaitNoRoute("2001:db8:3::/48");
    bird.awaitNoRoute("203.0.113.0/24");
    assertTrue(bird.bestRoute("2001:db8:1::/48").isPresent(), "the other prefix stays");
  }

  @Test
  void comesUpAsThePassiveSideWithTcpMd5() {
    pair(true, "s3cret-md5");

    assertEquals(List.of(65001L), bird.awaitRoute("203.0.113.0/24").asPath());
    assertEquals(List.of(65002L), gobgp.awaitRoute("2001:db8:2::/48").asPath());
  }

  @Test
  void ebgpMultihopThroughARouter() {
    Topology t = testbed.topology();
    Node a = t.node("a");
    Node m = t.node("m");
    Node b = t.node("b");
    t.link(a, m).addresses("192.0.2.1/30", "192.0.2.2/30");
    t.link(m, b).addresses("192.0.2.5/30", "192.0.2.6/30");
    m.exec("sysctl", "-q", "-w", "net.ipv4.ip_forward=1");
    a.route("192.0.2.4/30", "192.0.2.2");
    b.route("192.0.2.0/30", "192.0.2.5");
    gobgp =
        RouterKind.GOBGP
            .create(
                a,
                RouterConfig.of(65001, "192.0.2.1")
                    .neighbor(Neighbor.of("192.0.2.6", 65002).withMultihop(2))
                    .originate("203.0.113.0/24"))
            .start();
    bird =
        RouterKind.BIRD
            .create(
                b,
                RouterConfig.of(65002, "192.0.2.6")
                    .neighbor(Neighbor.of("192.0.2.1", 65001).withMultihop(2))
                    .originate("198.51.100.0/24"))
            .start();

    gobgp.awaitEstablished("192.0.2.6");
    Route r = gobgp.awaitRoute("198.51.100.0/24");
    assertEquals(List.of(65002L), r.asPath());
    assertEquals("192.0.2.6", Ip.format(r.nextHop()));
  }
}
