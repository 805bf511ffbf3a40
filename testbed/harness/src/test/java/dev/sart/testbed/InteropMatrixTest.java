package dev.sart.testbed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every pair of daemons the test bed drives peers over IPv4 and IPv6 and exchanges one prefix of
 * each family; the receiving side's own CLI is the oracle. This is what makes the drivers
 * trustworthy as oracles for the speaker's tests.
 */
class InteropMatrixTest {
  @RegisterExtension final Testbed testbed = new Testbed();

  static Stream<Arguments> pairs() {
    List<Arguments> pairs = new ArrayList<>();
    RouterKind[] kinds = RouterKind.values();
    for (int i = 0; i < kinds.length; i++) {
      for (int j = i; j < kinds.length; j++) {
        pairs.add(Arguments.of(kinds[i], kinds[j]));
      }
    }
    return pairs.stream();
  }

  @ParameterizedTest(name = "{0} and {1} exchange an IPv4 and an IPv6 route")
  @MethodSource("pairs")
  void pairExchangesIpv4AndIpv6Routes(RouterKind leftKind, RouterKind rightKind) {
    PairSetup p = PairSetup.create(testbed.topology(), leftKind, rightKind);

    p.left().awaitEstablished(PairSetup.RIGHT_V4).awaitEstablished(PairSetup.RIGHT_V6);
    p.right().awaitEstablished(PairSetup.LEFT_V4).awaitEstablished(PairSetup.LEFT_V6);

    Route v4 = p.right().awaitRoute(PairSetup.LEFT_PREFIX_V4);
    assertEquals(List.of(65001L), v4.asPath(), () -> v4.toString());
    assertTrue(v4.nextHops().contains(Ip.parse(PairSetup.LEFT_V4)), () -> v4.toString());
    Route v6 = p.right().awaitRoute(PairSetup.LEFT_PREFIX_V6);
    assertEquals(List.of(65001L), v6.asPath(), () -> v6.toString());
    assertTrue(v6.nextHops().contains(Ip.parse(PairSetup.LEFT_V6)), () -> v6.toString());

    Route back4 = p.left().awaitRoute(PairSetup.RIGHT_PREFIX_V4);
    assertEquals(List.of(65002L), back4.asPath(), () -> back4.toString());
    assertTrue(back4.nextHops().contains(Ip.parse(PairSetup.RIGHT_V4)), () -> back4.toString());
    Route back6 = p.left().awaitRoute(PairSetup.RIGHT_PREFIX_V6);
    assertEquals(List.of(65002L), back6.asPath(), () -> back6.toString());
    assertTrue(back6.nextHops().contains(Ip.parse(PairSetup.RIGHT_V6)), () -> back6.toString());

    // Each side names the session a route came from, marks its only path best, and lists only
    // what it learned: its own prefix shows up at most as a path sent back by the other side
    // (FRR returns it; the AS path then holds our own AS), never as the locally originated route.
    assertEquals(Ip.parse(PairSetup.LEFT_V4), v4.from(), () -> v4.toString());
    assertEquals(Ip.parse(PairSetup.LEFT_V6), v6.from(), () -> v6.toString());
    assertEquals(Ip.parse(PairSetup.RIGHT_V4), back4.from(), () -> back4.toString());
    assertTrue(v4.best() && v6.best() && back4.best() && back6.best());
    List<Route> ownRight = p.right().routes(IpPrefix.parse(PairSetup.RIGHT_PREFIX_V4));
    assertTrue(ownRight.stream().allMatch(r -> r.asPath().contains(65002L)), ownRight::toString);
    List<Route> ownLeft = p.left().routes(IpPrefix.parse(PairSetup.LEFT_PREFIX_V6));
    assertTrue(ownLeft.stream().allMatch(r -> r.asPath().contains(65001L)), ownLeft::toString);

    // Nothing leaks into the wrong family.
    assertTrue(p.right().routes(Family.IPV4_UNICAST).stream().allMatch(r -> r.prefix().isIpv4()));
    assertTrue(p.right().routes(Family.IPV6_UNICAST).stream().noneMatch(r -> r.prefix().isIpv4()));
  }
}
