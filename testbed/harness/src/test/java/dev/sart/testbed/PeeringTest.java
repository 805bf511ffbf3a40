package dev.sart.testbed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class PeeringTest {
  @RegisterExtension
  final Testbed testbed = new Testbed();

  @ParameterizedTest
  @EnumSource(RouterKind.class)
  void smoke(RouterKind kind) {
    Topology t = testbed.topology();
    Node a = t.node("a");
    Node b = t.node("b");
    t.link(a, b).addresses("192.0.2.1/30", "192.0.2.2/30").addresses("2001:db8::1/64", "2001:db8::2/64");
    Router ra = kind.create(a, RouterConfig.of(65001, "192.0.2.1")
        .neighbor(Neighbor.of("192.0.2.2", 65002)).neighbor(Neighbor.of("2001:db8::2", 65002))
        .originate("203.0.113.0/24", "2001:db8:1::/48")).start();
    Router rb = RouterKind.BIRD.create(b, RouterConfig.of(65002, "192.0.2.2")
        .neighbor(Neighbor.of("192.0.2.1", 65001)).neighbor(Neighbor.of("2001:db8::1", 65001))
        .originate("198.51.100.0/24", "2001:db8:2::/48")).start();
    ra.awaitEstablished("192.0.2.2");
    rb.awaitEstablished("2001:db8::1");
    Route r = rb.awaitRoute("203.0.113.0/24");
    assertEquals(List.of(65001L), r.asPath());
    assertEquals("192.0.2.1", Addresses.format(r.nextHop()));
    Route r6 = ra.awaitRoute("2001:db8:2::/48");
    assertEquals(List.of(65002L), r6.asPath());
    assertTrue(r6.best());
  }
}
