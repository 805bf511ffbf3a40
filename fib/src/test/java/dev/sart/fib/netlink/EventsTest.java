package dev.sart.fib.netlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sart.fib.netlink.NetlinkEvent.AddressEvent;
import dev.sart.fib.netlink.NetlinkEvent.Change;
import dev.sart.fib.netlink.NetlinkEvent.LinkEvent;
import dev.sart.fib.netlink.NetlinkEvent.NeighborEvent;
import dev.sart.fib.netlink.NetlinkEvent.Overrun;
import dev.sart.fib.netlink.NetlinkEvent.RouteEvent;
import dev.sart.fib.netlink.NetlinkEvent.RuleEvent;
import dev.sart.net.Ip;
import dev.sart.testbed.Node;
import dev.sart.testbed.Testbed;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class EventsTest {
  private static final Duration WAIT = Duration.ofSeconds(5);

  @RegisterExtension final Testbed testbed = new Testbed();

  private Node node;
  private Netns ns;
  private Netlink nl;

  @BeforeEach
  void open() {
    node = testbed.topology().node("a");
    ns = Netns.named(node.netns());
    nl = Netlink.open(ns);
  }

  @AfterEach
  void close() {
    nl.close();
    ns.close();
  }

  /** Polls until an event matching {@code p} arrives; fails after {@link #WAIT}. */
  private static <T extends NetlinkEvent> T await(
      EventStream events, Class<T> type, Predicate<T> p) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      NetlinkEvent e = events.poll(Duration.ofMillis(200));
      if (type.isInstance(e) && p.test(type.cast(e))) {
        return type.cast(e);
      }
    }
    throw new AssertionError("no matching " + type.getSimpleName() + " within " + WAIT);
  }

  @Test
  void linkAddressAndRouteChangesArriveTyped() {
    try (EventStream events = EventStream.open(ns, EnumSet.allOf(EventGroup.class))) {
      nl.links().addVeth("v0", "v1");
      LinkEvent added = await(events, LinkEvent.class, e -> e.link().name().equals("v0"));
      assertEquals(Change.NEW, added.change());
      assertEquals("veth", added.link().kind());
      nl.links().setUp("v0");
      nl.links().setUp("v1");
      await(events, LinkEvent.class, e -> e.link().name().equals("v0") && e.link().isUp());
      int v0 = nl.links().get("v0").index();

      nl.addresses().add(Address.of(v0, "192.0.2.100/24"));
      AddressEvent a =
          await(events, AddressEvent.class, e -> e.address().cidr().equals("192.0.2.100/24"));
      assertEquals(Change.NEW, a.change());
      nl.addresses().add(Address.of(v0, "fd00:1::100/64").withFlags(Set.of(AddressFlag.NODAD)));
      await(events, AddressEvent.class, e -> e.address().cidr().equals("fd00:1::100/64"));

      Route ecmp =
          Route.of("198.51.100.0/24")
              .table(1000)
              .protocol(Rtnl.RTPROT_BGP)
              .nextHops(
                  List.of(NextHop.via("192.0.2.1", v0).withWeight(2), NextHop.via("192.0.2.2", v0)))
              .build();
      nl.routes().add(ecmp);
      assertEquals(ecmp, await(events, RouteEvent.class, e -> e.route().table() == 1000).route());
      Route ecmp6 =
          Route.of("2001:db8:1::/48")
              .table(1000)
              .nextHops(
                  List.of(NextHop.via("fd00:1::1", v0).withWeight(3), NextHop.via("fd00:1::2", v0)))
              .build();
      nl.routes().add(ecmp6);
      assertEquals(
          ecmp6,
          await(events, RouteEvent.class, e -> e.route().destination().equals(ecmp6.destination()))
              .route(),
          "IPv6 multipath arrives as one route");

      nl.routes().delete(ecmp);
      RouteEvent gone = await(events, RouteEvent.class, e -> e.change() == Change.DELETE);
      assertEquals(ecmp, gone.route());

      nl.neighbors()
          .add(
              Neighbor.permanent(v0, Ip.parse("192.0.2.9"), MacAddress.parse("02:00:00:00:00:09")));
      NeighborEvent n =
          await(
              events,
              NeighborEvent.class,
              e -> e.neighbor().address().equals(Ip.parse("192.0.2.9")));
      assertTrue(n.neighbor().state().contains(NeighborState.PERMANENT));

      Rule rule = Rule.lookup(Family.INET, 100, 1000).withFwmark(7, 0);
      nl.rules().add(rule);
      assertEquals(rule, await(events, RuleEvent.class, e -> e.change() == Change.NEW).rule());

      nl.links().delete("v0");
      await(
          events,
          LinkEvent.class,
          e -> e.change() == Change.DELETE && e.link().name().equals("v0"));
    }
  }

  @Test
  void changesMadeByOthersReachAListenerThread() throws Exception {
    nl.links().addVeth("v0", "v1");
    nl.links().setUp("v0");
    nl.links().setUp("v1");
    int v0 = nl.links().get("v0").index();
    node.exec("ip", "address", "add", "192.0.2.100/24", "dev", "v0");
    BlockingQueue<NetlinkEvent> got = new LinkedBlockingQueue<>();
    BlockingQueue<Thread> threads = new LinkedBlockingQueue<>();
    EventStream events = EventStream.open(ns, Set.of(EventGroup.IPV4_ROUTE));
    try {
      events.listen(
          e -> {
            threads.add(Thread.currentThread());
            got.add(e);
          });
      node.exec(
          "ip",
          "route",
          "add",
          "203.0.113.0/24",
          "table",
          "77",
          "proto",
          "186",
          "nexthop",
          "via",
          "192.0.2.1",
          "weight",
          "5",
          "nexthop",
          "via",
          "192.0.2.2");
      NetlinkEvent e = got.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
      Route expected =
          Route.of("203.0.113.0/24")
              .table(77)
              .protocol(Rtnl.RTPROT_BGP)
              .nextHops(
                  List.of(NextHop.via("192.0.2.1", v0).withWeight(5), NextHop.via("192.0.2.2", v0)))
              .build();
      assertEquals(new RouteEvent(Change.NEW, expected), e);
      Thread t = threads.take();
      assertEquals("netlink events", t.getName());
      assertTrue(!t.isVirtual());
      events.close();
      t.join(2000);
      assertTrue(!t.isAlive(), "close stops the listener");
    } finally {
      events.close(); // a second close does nothing
    }
  }

  @Test
  void anOverflowingSubscriberIsToldToResynchronise() {
    nl.links().addVeth("v0", "v1");
    nl.links().setUp("v0");
    nl.links().setUp("v1");
    int v0 = nl.links().get("v0").index();
    nl.addresses().add(Address.of(v0, "fd00:1::100/64").withFlags(Set.of(AddressFlag.NODAD)));
    try (EventStream events = EventStream.open(ns, Set.of(EventGroup.IPV6_ROUTE))) {
      Batch b = nl.batch();
      for (int i = 0; i < 50_000; i++) {
        b.addRoute(
            Route.of("fd00:ee::" + Integer.toHexString(i) + "/128")
                .table(1000)
                .via("fd00:1::1", v0)
                .build());
      }
      assertTrue(b.execute().allSucceeded());
      int routes = 0;
      while (true) {
        NetlinkEvent e = events.poll(Duration.ofSeconds(2));
        if (e == null) {
          fail(
              "no overrun after "
                  + routes
                  + " of 50000 route events: the receive buffer should have overflowed");
        }
        if (e instanceof Overrun) {
          break;
        }
        routes++;
      }
      assertTrue(routes < 50_000, "events were lost: " + routes);
    }
  }

  @Test
  void pollReturnsNullWhenNothingHappens() {
    try (EventStream events = EventStream.open(ns, Set.of(EventGroup.IPV6_RULE))) {
      long start = System.nanoTime();
      assertNull(events.poll(Duration.ofMillis(300)));
      assertTrue(System.nanoTime() - start >= 250_000_000L, "it waited");
    }
  }
}
