package dev.sart.fib.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.fib.netlink.NextHop;
import dev.sart.fib.netlink.Route;
import dev.sart.net.IpPrefix;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KernelDiffTest {
  private static Route want(String prefix, int metric, String... gateways) {
    return Route.of(prefix)
        .table(100)
        .protocol(186)
        .metric(metric)
        .nextHops(List.of(gateways).stream().map(NextHop::via).toList())
        .build();
  }

  /** As a dump shows it: the kernel fills in the interface. */
  private static Route dumped(String prefix, int metric, String... gateways) {
    return Route.of(prefix)
        .table(100)
        .protocol(186)
        .metric(metric)
        .nextHops(List.of(gateways).stream().map(g -> NextHop.via(g, 7)).toList())
        .build();
  }

  @Test
  void whatIsInPlaceStaysTheRestIsRemovedOrInstalled() {
    Route keep = want("198.51.100.0/24", 20, "192.0.2.1");
    Route changed = want("203.0.113.0/24", 20, "192.0.2.1", "192.0.2.2");
    Route missing = want("192.0.2.128/25", 200, "192.0.2.1");
    Route stale = dumped("198.51.100.128/25", 20, "192.0.2.1");
    Route oldEcmp = dumped("203.0.113.0/24", 20, "192.0.2.1");
    KernelDiff.Plan p =
        KernelDiff.plan(
            Map.of(
                keep.destination(),
                keep,
                changed.destination(),
                changed,
                missing.destination(),
                missing),
            List.of(dumped("198.51.100.0/24", 20, "192.0.2.1"), stale, oldEcmp));
    assertEquals(java.util.Set.of(stale, oldEcmp), java.util.Set.copyOf(p.delete()));
    assertEquals(java.util.Set.of(changed, missing), java.util.Set.copyOf(p.install()));
  }

  @Test
  void aSecondRouteOfOursForADestinationGoesAndAMetricChangeIsADifference() {
    Route r = want("198.51.100.0/24", 20, "192.0.2.1");
    Route other = dumped("198.51.100.0/24", 200, "192.0.2.1");
    KernelDiff.Plan p =
        KernelDiff.plan(
            Map.of(r.destination(), r), List.of(dumped("198.51.100.0/24", 20, "192.0.2.1"), other));
    assertEquals(List.of(other), p.delete());
    assertEquals(List.of(), p.install());
    assertFalse(KernelDiff.sameForwarding(r, other));
  }

  @Test
  void nextHopsCompareAsSetsWithWeights() {
    Route ab = want("198.51.100.0/24", 20, "192.0.2.1", "192.0.2.2");
    assertTrue(
        KernelDiff.sameForwarding(ab, dumped("198.51.100.0/24", 20, "192.0.2.2", "192.0.2.1")));
    Route weighted =
        Route.of("198.51.100.0/24")
            .table(100)
            .protocol(186)
            .metric(20)
            .nextHops(
                List.of(NextHop.via("192.0.2.1", 7).withWeight(3), NextHop.via("192.0.2.2", 7)))
            .build();
    assertFalse(KernelDiff.sameForwarding(ab, weighted));
    assertTrue(KernelDiff.plan(Map.of(), List.of()).isEmpty());
    assertEquals(IpPrefix.parse("198.51.100.0/24"), ab.destination());
  }
}
