package dev.sart.fib.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sart.fib.netlink.Family;
import dev.sart.fib.netlink.NextHop;
import dev.sart.net.IpPrefix;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChannelRibTest {
  private static final IpPrefix P = IpPrefix.parse("198.51.100.0/24");

  private static ChannelRoute route(String prefix, int distance, String... gateways) {
    return new ChannelRoute(
        IpPrefix.parse(prefix),
        List.of(gateways).stream().map(NextHop::via).toList(),
        distance,
        186,
        "test");
  }

  @Test
  void theLowestDistanceWinsAndTheNextOneTakesOverOnWithdraw() {
    ChannelRib rib = new ChannelRib(2);
    ChannelRoute ibgp = route("198.51.100.0/24", Distance.IBGP, "192.0.2.1");
    ChannelRoute stat = route("198.51.100.0/24", Distance.STATIC, "192.0.2.9");
    assertEquals(
        List.of(new ChannelRib.Change(P, ibgp)), rib.apply(new SourceEvent.Update(0, ibgp)));
    assertEquals(
        List.of(new ChannelRib.Change(P, stat)), rib.apply(new SourceEvent.Update(1, stat)));
    // a worse route of the first source changes nothing selected
    assertEquals(
        List.of(),
        rib.apply(new SourceEvent.Update(0, route("198.51.100.0/24", Distance.IBGP, "192.0.2.2"))));
    assertEquals(
        List.of(new ChannelRib.Change(P, route("198.51.100.0/24", Distance.IBGP, "192.0.2.2"))),
        rib.apply(new SourceEvent.Withdraw(1, P)));
    assertEquals(
        List.of(new ChannelRib.Change(P, null)), rib.apply(new SourceEvent.Withdraw(0, P)));
    assertEquals(Map.of(), rib.selected());
    assertEquals(
        List.of(),
        rib.apply(new SourceEvent.Withdraw(0, P)),
        "withdrawing nothing changes nothing");
  }

  @Test
  void betweenEqualDistancesTheSourceListedFirstWins() {
    ChannelRib rib = new ChannelRib(2);
    ChannelRoute second = route("198.51.100.0/24", Distance.EBGP, "192.0.2.2");
    ChannelRoute first = route("198.51.100.0/24", Distance.EBGP, "192.0.2.1");
    rib.apply(new SourceEvent.Update(1, second));
    assertEquals(
        List.of(new ChannelRib.Change(P, first)), rib.apply(new SourceEvent.Update(0, first)));
    assertEquals(
        List.of(),
        rib.apply(new SourceEvent.Update(1, route("198.51.100.0/24", Distance.EBGP, "192.0.2.3"))));
  }

  @Test
  void aSyncReplacesWhatTheSourceOfferedInThatFamilyOnly() {
    ChannelRib rib = new ChannelRib(1);
    ChannelRoute a = route("198.51.100.0/24", 20, "192.0.2.1");
    ChannelRoute b = route("203.0.113.0/24", 20, "192.0.2.1");
    ChannelRoute v6 = route("2001:db8:1::/48", 20, "2001:db8::1");
    rib.apply(new SourceEvent.Update(0, a));
    rib.apply(new SourceEvent.Update(0, b));
    rib.apply(new SourceEvent.Update(0, v6));
    ChannelRoute a2 = route("198.51.100.0/24", 20, "192.0.2.1", "192.0.2.2");
    List<ChannelRib.Change> changes = rib.apply(new SourceEvent.Sync(0, Family.INET, List.of(a2)));
    assertEquals(
        java.util.Set.of(
            new ChannelRib.Change(P, a2), new ChannelRib.Change(b.destination(), null)),
        java.util.Set.copyOf(changes));
    assertEquals(Map.of(P, a2, v6.destination(), v6), rib.selected());
    assertEquals(
        List.of(),
        rib.apply(new SourceEvent.Sync(0, Family.INET, List.of(a2))),
        "the same snapshot again");
  }
}
