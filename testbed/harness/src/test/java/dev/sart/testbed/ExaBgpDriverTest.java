package dev.sart.testbed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** ExaBGP peered with BIRD over IPv4 and IPv6 on one veth; each side's own output is the oracle. */
class ExaBgpDriverTest {
  @RegisterExtension final Testbed testbed = new Testbed();

  private Node exa;
  private Node bird;

  private void link() {
    Topology t = testbed.topology();
    exa = t.node("exa");
    bird = t.node("bird");
    t.link(exa, bird)
        .addresses("192.0.2.1/30", "192.0.2.2/30")
        .addresses("2001:db8::1/64", "2001:db8::2/64");
  }

  private ExaBgp startExa(boolean passive) {
    Neighbor v4 = Neighbor.of("192.0.2.2", 65002);
    Neighbor v6 = Neighbor.of("2001:db8::2", 65002);
    return (ExaBgp)
        RouterKind.EXABGP
            .create(
                exa,
                RouterConfig.of(65001, "192.0.2.1")
                    .neighbor(passive ? v4.asPassive() : v4)
                    .neighbor(passive ? v6.asPassive() : v6)
                    .originate("203.0.113.0/24", "2001:db8:1::/48"))
            .start();
  }

  private Bird startBird() {
    return (Bird)
        RouterKind.BIRD
            .create(
                bird,
                RouterConfig.of(65002, "192.0.2.2")
                    .neighbor(Neighbor.of("192.0.2.1", 65001))
                    .neighbor(Neighbor.of("2001:db8::1", 65001))
                    .originate("198.51.100.0/24", "2001:db8:2::/48"))
            .start();
  }

  @Test
  void rawApiCommandsInjectAttributesAndErrorsAreReported() {
    link();
    ExaBgp e = startExa(false);
    Bird b = startBird();
    e.awaitEstablished("192.0.2.2");
    e.send(
        "announce attribute next-hop self med 7 community [ 65001:9 ] attribute [ 0x99 0xc0 0x0102 ]"
            + " nlri 203.0.113.64/26");
    Route r = b.awaitRoute("203.0.113.64/26");
    assertEquals(OptionalLong.of(7), r.med());
    assertEquals(List.of("65001:9"), r.communities());
    assertTrue(b.birdc("show route all 203.0.113.64/26").contains("BGP.99 [t]: 01 02"));
    assertThrows(IllegalArgumentException.class, () -> e.send("no such command"));
  }

  @Test
  void passiveExaBgpComesUp() {
    link();
    ExaBgp e = startExa(true);
    Bird b = startBird();
    b.awaitEstablished("192.0.2.1").awaitEstablished("2001:db8::1");
    e.awaitEstablished("192.0.2.2").awaitEstablished("2001:db8::2");
    assertEquals(List.of(65001L), b.awaitRoute("2001:db8:1::/48").asPath());
    assertEquals(List.of(65002L), e.awaitRoute("198.51.100.0/24").asPath());
  }

  @Test
  void md5PasswordOnBothSidesComesUpEitherWay() {
    link();
    ExaBgp e =
        (ExaBgp)
            RouterKind.EXABGP
                .create(
                    exa,
                    RouterConfig.of(65001, "192.0.2.1")
                        .neighbor(
                            Neighbor.of("192.0.2.2", 65002).withPassword("s3cret pw").asPassive())
                        .neighbor(Neighbor.of("2001:db8::2", 65002).withPassword("other"))
                        .originate("203.0.113.0/24"))
                .start();
    Router b =
        RouterKind.BIRD
            .create(
                bird,
                RouterConfig.of(65002, "192.0.2.2")
                    .neighbor(Neighbor.of("192.0.2.1", 65001).withPassword("s3cret pw"))
                    .neighbor(Neighbor.of("2001:db8::1", 65001).withPassword("other").asPassive()))
            .start();
    e.awaitEstablished("192.0.2.2").awaitEstablished("2001:db8::2");
    assertEquals(List.of(65001L), b.awaitRoute("203.0.113.0/24").asPath());
  }
}
