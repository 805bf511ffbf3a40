package dev.sart.testbed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * FRR peered with BIRD over one veth, an IPv4 and an IPv6 session, each side's CLI being the oracle
 * of what the other did.
 */
class FrrDriverTest {
  @RegisterExtension final Testbed testbed = new Testbed();

  private Node frrNode;
  private Node birdNode;

  private void link() {
    Topology t = testbed.topology();
    frrNode = t.node("frr");
    birdNode = t.node("bird");
    t.link(frrNode, birdNode)
        .addresses("192.0.2.1/30", "192.0.2.2/30")
        .addresses("2001:db8::1/64", "2001:db8::2/64");
  }

  private static RouterConfig frrConfig(Neighbor v4, Neighbor v6) {
    return RouterConfig.of(65001, "192.0.2.1")
        .neighbor(v4)
        .neighbor(v6)
        .originate("203.0.113.0/24", "2001:db8:1::/48");
  }

  private Bird bird(Neighbor v4, Neighbor v6) {
    return (Bird)
        new Bird(
                birdNode,
                RouterConfig.of(65002, "192.0.2.2")
                    .neighbor(v4)
                    .neighbor(v6)
                    .originate("198.51.100.0/24", "2001:db8:2::/48"))
            .start();
  }

  private static void assertExchanged(Router frr, Router bird) {
    Route r4 = bird.awaitRoute("203.0.113.0/24");
    assertEquals(List.of(65001L), r4.asPath());
    assertEquals("192.0.2.1", Ip.format(r4.nextHop()));
    Route r6 = bird.awaitRoute("2001:db8:1::/48");
    assertEquals(List.of(65001L), r6.asPath());
    assertEquals("2001:db8::1", Ip.format(r6.nextHop()));

    Route l4 = frr.awaitRoute("198.51.100.0/24");
    assertEquals(List.of(65002L), l4.asPath());
    assertEquals("192.0.2.2", Ip.format(l4.nextHop()));
    assertEquals("192.0.2.2", Ip.format(l4.from()));
    assertTrue(l4.best());
    Route l6 = frr.awaitRoute("2001:db8:2::/48");
    assertEquals(List.of(65002L), l6.asPath());
    assertEquals("2001:db8::2", Ip.format(l6.nextHop()));
    assertEquals("2001:db8::2", Ip.format(l6.from()));
    assertTrue(l6.best());
    // only learned routes: not the ones FRR originates
    assertTrue(frr.routes(IpPrefix.parse("203.0.113.0/24")).isEmpty());
  }

  @Test
  void announceAndWithdrawAtRunTime() {
    link();
    Frr frr =
        (Frr)
            new Frr(
                    frrNode,
                    frrConfig(Neighbor.of("192.0.2.2", 65002), Neighbor.of("2001:db8::2", 65002)))
                .start();
    Bird bird = bird(Neighbor.of("192.0.2.1", 65001), Neighbor.of("2001:db8::1", 65001));
    bird.awaitRoute("203.0.113.0/24");

    frr.announce("203.0.113.128/25");
    frr.announce("2001:db8:3::/48");
    assertEquals(List.of(65001L), bird.awaitRoute("203.0.113.128/25").asPath());
    assertEquals("2001:db8::1", Ip.format(bird.awaitRoute("2001:db8:3::/48").nextHop()));

    frr.withdraw("203.0.113.128/25");
    frr.withdraw("2001:db8:3::/48");
    bird.awaitNoRoute("203.0.113.128/25");
    bird.awaitNoRoute("2001:db8:3::/48");
    // what was configured at start can be withdrawn as well
    frr.withdraw("203.0.113.0/24");
    bird.awaitNoRoute("203.0.113.0/24");
    assertTrue(bird.bestRoute("2001:db8:1::/48").isPresent());
  }

  @Test
  void frrAsThePassiveSide() {
    link();
    Frr frr =
        (Frr)
            new Frr(
                    frrNode,
                    frrConfig(
                        Neighbor.of("192.0.2.2", 65002).asPassive(),
                        Neighbor.of("2001:db8::2", 65002).asPassive()))
                .start();
    Bird bird = bird(Neighbor.of("192.0.2.1", 65001), Neighbor.of("2001:db8::1", 65001));
    frr.awaitEstablished("192.0.2.2").awaitEstablished("2001:db8::2");
    assertExchanged(frr, bird);
  }

  @Test
  void birdAsThePassiveSideWithPasswordAndMultihop() {
    link();
    Frr frr =
        (Frr)
            new Frr(
                    frrNode,
                    frrConfig(
                        Neighbor.of("192.0.2.2", 65002).withPassword("s3cret").withMultihop(2),
                        Neighbor.of("2001:db8::2", 65002).withPassword("s3cret6")))
                .start();
    Bird bird =
        bird(
            Neighbor.of("192.0.2.1", 65001).asPassive().withPassword("s3cret").withMultihop(2),
            Neighbor.of("2001:db8::1", 65001).asPassive().withPassword("s3cret6"));
    frr.awaitEstablished("192.0.2.2").awaitEstablished("2001:db8::2");
    bird.awaitEstablished("192.0.2.1").awaitEstablished("2001:db8::1");
    assertEquals(List.of(65002L), frr.awaitRoute("198.51.100.0/24").asPath());
  }

  @Test
  void bgpdWithoutZebra() {
    link();
    Frr frr =
        (Frr)
            Frr.withoutZebra(
                    frrNode,
                    frrConfig(Neighbor.of("192.0.2.2", 65002), Neighbor.of("2001:db8::2", 65002)))
                .start();
    Bird bird = bird(Neighbor.of("192.0.2.1", 65001), Neighbor.of("2001:db8::1", 65001));
    assertEquals(List.of("bgpd"), frr.processes().stream().map(ManagedProcess::name).toList());
    frr.awaitEstablished("192.0.2.2").awaitEstablished("2001:db8::2");
    assertEquals(List.of(65002L), frr.awaitRoute("198.51.100.0/24").asPath());
    assertEquals("2001:db8::1", Ip.format(bird.awaitRoute("2001:db8:1::/48").nextHop()));
    frr.announce("203.0.113.128/25");
    bird.awaitRoute("203.0.113.128/25");
    frr.withdraw("203.0.113.128/25");
    bird.awaitNoRoute("203.0.113.128/25");
    // without zebra bgpd knows no interfaces and drops BIRD's IPv6 routes, whose next hop
    // includes a link-local address ("sent a v6 LL next-hop and there's no peer interface
    // information")
  }
}
