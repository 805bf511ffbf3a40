package dev.sart.testbed;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sart.net.Ip;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * OpenBGPD (node a, AS 65001) against BIRD (node b, AS 65002) on one veth carrying an IPv4 and an
 * IPv6 session; each side's CLI is the oracle for what the other did.
 */
class OpenBgpdDriverTest {
  @RegisterExtension final Testbed testbed = new Testbed();

  private Node a;
  private Node b;

  private void twoNodes() {
    Topology t = testbed.topology();
    a = t.node("a");
    b = t.node("b");
    t.link(a, b)
        .addresses("192.0.2.1/30", "192.0.2.2/30")
        .addresses("2001:db8::1/64", "2001:db8::2/64");
  }

  private Router openbgpd(Neighbor v4, Neighbor v6, String... originate) {
    return RouterKind.OPENBGPD
        .create(
            a, RouterConfig.of(65001, "192.0.2.1").neighbor(v4).neighbor(v6).originate(originate))
        .start();
  }

  private Router bird(Neighbor v4, Neighbor v6, String... originate) {
    return RouterKind.BIRD
        .create(
            b, RouterConfig.of(65002, "192.0.2.2").neighbor(v4).neighbor(v6).originate(originate))
        .start();
  }

  @Test
  void announcesAndWithdrawsAtRunTime() {
    twoNodes();
    Router o = openbgpd(Neighbor.of("192.0.2.2", 65002), Neighbor.of("2001:db8::2", 65002));
    Router bird = bird(Neighbor.of("192.0.2.1", 65001), Neighbor.of("2001:db8::1", 65001));
    o.announce("203.0.113.128/25");
    o.announce("2001:db8:1:1::/64");
    o.awaitEstablished("192.0.2.2").awaitEstablished("2001:db8::2");

    assertEquals(List.of(65001L), bird.awaitRoute("203.0.113.128/25").asPath());
    assertEquals("2001:db8::1", Ip.format(bird.awaitRoute("2001:db8:1:1::/64").nextHop()));

    o.withdraw("203.0.113.128/25");
    bird.awaitNoRoute("203.0.113.128/25");
    o.withdraw("2001:db8:1:1::/64");
    bird.awaitNoRoute("2001:db8:1:1::/64");

    o.announce("203.0.113.0/24");
    assertEquals("192.0.2.1", Ip.format(bird.awaitRoute("203.0.113.0/24").nextHop()));
  }

  @Test
  void comesUpAsThePassiveSide() {
    twoNodes();
    Router o =
        openbgpd(
            Neighbor.of("192.0.2.2", 65002).asPassive(),
            Neighbor.of("2001:db8::2", 65002).asPassive(),
            "203.0.113.0/24");
    Router bird =
        bird(Neighbor.of("192.0.2.1", 65001), Neighbor.of("2001:db8::1", 65001), "198.51.100.0/24");
    o.awaitEstablished("192.0.2.2").awaitEstablished("2001:db8::2");
    bird.awaitRoute("203.0.113.0/24");
    o.awaitRoute("198.51.100.0/24");
  }

  /** Two instances at once (shared chroot, one control socket each) peering with each other. */
  @Test
  void twoInstancesRunSideBySide() {
    twoNodes();
    Router o1 =
        openbgpd(
            Neighbor.of("192.0.2.2", 65002), Neighbor.of("2001:db8::2", 65002), "203.0.113.0/24");
    Router o2 =
        RouterKind.OPENBGPD
            .create(
                b,
                RouterConfig.of(65002, "192.0.2.2")
                    .neighbor(Neighbor.of("192.0.2.1", 65001))
                    .neighbor(Neighbor.of("2001:db8::1", 65001))
                    .originate("2001:db8:2::/48"))
            .start();
    o1.awaitEstablished("2001:db8::2");
    o2.awaitEstablished("192.0.2.1");
    assertEquals(List.of(65001L), o2.awaitRoute("203.0.113.0/24").asPath());
    assertEquals("2001:db8::2", Ip.format(o1.awaitRoute("2001:db8:2::/48").nextHop()));
  }

  /** a - r - b, r only forwards: an eBGP session two hops away. */
  @Test
  void peersAcrossARouterWithMultihop() {
    Topology t = testbed.topology();
    a = t.node("a");
    Node r = t.node("r");
    b = t.node("b");
    t.link(a, r).addresses("192.0.2.1/30", "192.0.2.2/30");
    t.link(r, b).addresses("192.0.2.5/30", "192.0.2.6/30");
    r.exec("sysctl", "-q", "-w", "net.ipv4.ip_forward=1");
    a.route("192.0.2.4/30", "192.0.2.2");
    b.route("192.0.2.0/30", "192.0.2.5");
    Router o =
        RouterKind.OPENBGPD
            .create(
                a,
                RouterConfig.of(65001, "192.0.2.1")
                    .neighbor(Neighbor.of("192.0.2.6", 65002).withMultihop(2))
                    .originate("203.0.113.0/24"))
            .start();
    Router bird =
        RouterKind.BIRD
            .create(
                b,
                RouterConfig.of(65002, "192.0.2.6")
                    .neighbor(Neighbor.of("192.0.2.1", 65001).withMultihop(2))
                    .originate("198.51.100.0/24"))
            .start();
    o.awaitEstablished("192.0.2.6");
    bird.awaitEstablished("192.0.2.1");
    Route learned = o.awaitRoute("198.51.100.0/24");
    assertEquals("192.0.2.6", Ip.format(learned.nextHop()));
    assertEquals(List.of(65002L), learned.asPath());
  }
}
