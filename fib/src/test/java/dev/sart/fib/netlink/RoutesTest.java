package dev.sart.fib.netlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import dev.sart.testbed.Node;
import dev.sart.testbed.Testbed;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class RoutesTest {
  private static final int TABLE = 1000;

  @RegisterExtension final Testbed testbed = new Testbed();

  private Node node;
  private Netns ns;
  private Netlink nl;
  private int v0;
  private final Map<Integer, String> ifnames = new HashMap<>();

  @BeforeEach
  void open() {
    node = testbed.topology().node("a");
    ns = Netns.named(node.netns());
    nl = Netlink.open(ns);
    nl.links().addVeth("v0", "v1");
    nl.links().setUp("v0");
    nl.links().setUp("v1");
    v0 = nl.links().get("v0").index();
    nl.links().list().forEach(l -> ifnames.put(l.index(), l.name()));
    nl.addresses().add(Address.of(v0, "192.0.2.100/24"));
    nl.addresses().add(Address.of(v0, "fd00:1::100/64").withFlags(Set.of(AddressFlag.NODAD)));
  }

  @AfterEach
  void close() {
    nl.close();
    ns.close();
  }

  /**
   * The table as this library dumps it and as {@code ip -j route} shows it must both be {@code
   * expected}.
   */
  private void assertTable(int table, Route... expected) {
    List<Route> want = List.of(expected);
    List<Route> dumped = nl.routes().list(table);
    assertEquals(Set.copyOf(want), Set.copyOf(dumped), "our dump of table " + table);
    Set<String> ip = new java.util.TreeSet<>(RouteOracle.table(node, Family.INET, table));
    ip.addAll(RouteOracle.table(node, Family.INET6, table));
    assertEquals(RouteOracle.of(want, ifnames), ip, "ip -j route show table " + table);
  }

  @Test
  void addListAndDeleteInATableAbove255() {
    Route r =
        Route.of("198.51.100.0/24")
            .table(TABLE)
            .protocol(Rtnl.RTPROT_BGP)
            .metric(20)
            .via("192.0.2.1", v0)
            .build();
    nl.routes().add(r);
    assertTable(TABLE, r);
    nl.routes().delete(r);
    assertTable(TABLE);
  }

  @Test
  void errorsNameTheRoute() {
    Route r = Route.of("198.51.100.0/24").table(120).via("192.0.2.1", v0).build();
    nl.routes().add(r);
    NetlinkException exists = assertThrows(NetlinkException.class, () -> nl.routes().add(r));
    assertEquals("add route 198.51.100.0/24 table 120: File exists (EEXIST)", exists.getMessage());
    nl.routes().delete(r);
    NetlinkException missing = assertThrows(NetlinkException.class, () -> nl.routes().delete(r));
    assertEquals(Errno.ESRCH, missing.errno());
    assertTrue(
        missing
            .getMessage()
            .startsWith("delete route 198.51.100.0/24 table 120: No such process (ESRCH)"),
        missing.getMessage());
    NetlinkException unreachable =
        assertThrows(
            NetlinkException.class,
            () ->
                nl.routes()
                    .add(Route.of("203.0.113.0/24").table(120).via("198.51.100.1", v0).build()));
    assertEquals(Errno.ENETUNREACH, unreachable.errno());
    assertNotNull(unreachable.extAck(), "the kernel explains: " + unreachable.getMessage());
    assertTrue(
        unreachable.getMessage().endsWith(": " + unreachable.extAck()), unreachable.getMessage());
  }

  @Test
  void replaceSwitchesBetweenOneAndSeveralNextHops() {
    Route one = Route.of("198.51.100.0/24").table(TABLE).via("192.0.2.1", v0).build();
    nl.routes().replace(one);
    assertTable(TABLE, one);
    Route ecmp =
        one.toBuilder()
            .nextHops(
                List.of(NextHop.via("192.0.2.1", v0).withWeight(3), NextHop.via("192.0.2.2", v0)))
            .build();
    nl.routes().replace(ecmp);
    assertTable(TABLE, ecmp);
    Route other = one.toBuilder().nextHops(List.of(NextHop.via("192.0.2.3", v0))).build();
    nl.routes().replace(other);
    assertTable(TABLE, other);
  }

  @Test
  void ecmpWithWeights() {
    Route r =
        Route.of("203.0.113.0/24")
            .table(TABLE)
            .protocol(Rtnl.RTPROT_BGP)
            .nextHops(
                List.of(
                    NextHop.via("192.0.2.1", v0).withWeight(2),
                    NextHop.via("192.0.2.2", v0),
                    NextHop.via("192.0.2.3", v0).withWeight(256)))
            .build();
    nl.routes().add(r);
    assertTable(TABLE, r);
    JsonNode hops = Oracle.ip(node, "-j", "route", "show", "table", "1000").get(0).get("nexthops");
    assertEquals(List.of(2, 1, 256), hops.valueStream().map(h -> h.get("weight").asInt()).toList());
    nl.routes().delete(r);
    assertTable(TABLE);
  }

  @Test
  void typesBlackholeUnreachableProhibitLocalAndThrow() {
    Route blackhole = Route.of("203.0.113.0/26").table(TABLE).type(RouteType.BLACKHOLE).build();
    Route unreachable =
        Route.of("203.0.113.64/26").table(TABLE).type(RouteType.UNREACHABLE).build();
    Route prohibit = Route.of("203.0.113.128/26").table(TABLE).type(RouteType.PROHIBIT).build();
    Route local = Route.of("203.0.113.200/32").table(TABLE).type(RouteType.LOCAL).dev(v0).build();
    Route throwRoute = Route.of("198.51.100.0/24").table(TABLE).type(RouteType.THROW).build();
    Route v6 = Route.of("2001:db8:dead::/48").table(TABLE).type(RouteType.BLACKHOLE).build();
    for (Route r : List.of(blackhole, unreachable, prohibit, local, throwRoute, v6)) {
      nl.routes().add(r);
    }
    assertEquals(Scope.HOST, local.scope());
    assertTable(TABLE, blackhole, unreachable, prohibit, local, throwRoute, v6);
    assertEquals(
        "blackhole",
        Oracle.ip(node, "-j", "route", "show", "table", "1000", "203.0.113.0/26")
            .get(0)
            .get("type")
            .asText());
  }

  @Test
  void scopeLinkPreferredSourceAndMetrics() {
    Route direct =
        Route.of("198.51.100.0/24").table(TABLE).dev(v0).preferredSource("192.0.2.100").build();
    assertEquals(Scope.LINK, direct.scope());
    Route worse = Route.of("198.51.100.0/24").table(TABLE).metric(200).via("192.0.2.1", v0).build();
    nl.routes().add(direct);
    nl.routes().add(worse);
    assertTable(TABLE, direct, worse);
    nl.routes().delete(worse);
    assertTable(TABLE, direct);
  }

  @Test
  void onLinkNextHopOutsideEverySubnet() {
    Route r =
        Route.of("203.0.113.128/25")
            .table(TABLE)
            .nextHop(NextHop.onlink("198.51.100.9", v0))
            .build();
    nl.routes().add(r);
    assertTable(TABLE, r);
    Route ecmp =
        Route.of("203.0.113.0/25")
            .table(TABLE)
            .nextHops(
                List.of(
                    NextHop.onlink("198.51.100.9", v0),
                    NextHop.onlink("198.51.100.10", v0).withWeight(4)))
            .build();
    nl.routes().add(ecmp);
    assertTable(TABLE, r, ecmp);
  }

  @Test
  void ipv4RoutesViaIpv6NextHops() {
    Route via = Route.of("203.0.113.0/24").table(TABLE).via("fd00:1::1", v0).build();
    Route mixed =
        Route.of("198.51.100.0/24")
            .table(TABLE)
            .nextHops(
                List.of(NextHop.via("fd00:1::1", v0).withWeight(2), NextHop.via("192.0.2.1", v0)))
            .build();
    nl.routes().add(via);
    nl.routes().add(mixed);
    assertTable(TABLE, via, mixed);
    JsonNode shown =
        Oracle.ip(node, "-j", "route", "show", "table", "1000", "203.0.113.0/24").get(0);
    assertEquals("inet6", shown.get("via").get("family").asText());
    assertEquals("fd00:1::1", shown.get("via").get("host").asText());
  }

  @Test
  void ipv6RoutesSingleAndMultipath() {
    Route single =
        Route.of("2001:db8:1::/48")
            .table(TABLE)
            .protocol(Rtnl.RTPROT_BGP)
            .via("fd00:1::1", v0)
            .build();
    assertEquals(Route.IPV6_DEFAULT_METRIC, single.metric());
    Route ecmp =
        Route.of("2001:db8:2::/48")
            .table(TABLE)
            .metric(50)
            .nextHops(
                List.of(NextHop.via("fd00:1::1", v0).withWeight(3), NextHop.via("fd00:1::2", v0)))
            .build();
    nl.routes().add(single);
    nl.routes().add(ecmp);
    assertTable(TABLE, single, ecmp);
    Route three =
        ecmp.toBuilder()
            .nextHops(
                List.of(
                    NextHop.via("fd00:1::1", v0),
                    NextHop.via("fd00:1::2", v0),
                    NextHop.via("fd00:1::3", v0).withWeight(7)))
            .build();
    nl.routes().replace(three);
    assertTable(TABLE, single, three);
    nl.routes().delete(three);
    nl.routes().delete(single);
    assertTable(TABLE);
  }

  @Test
  void listFiltersByTableFamilyAndProtocol() {
    Route bgp =
        Route.of("198.51.100.0/24")
            .table(TABLE)
            .protocol(Rtnl.RTPROT_BGP)
            .via("192.0.2.1", v0)
            .build();
    Route bgp6 =
        Route.of("2001:db8:1::/48")
            .table(TABLE)
            .protocol(Rtnl.RTPROT_BGP)
            .via("fd00:1::1", v0)
            .build();
    Route stat =
        Route.of("203.0.113.0/24")
            .table(TABLE)
            .protocol(Rtnl.RTPROT_STATIC)
            .via("192.0.2.1", v0)
            .build();
    Route main = Route.of("203.0.113.0/24").protocol(Rtnl.RTPROT_BGP).via("192.0.2.1", v0).build();
    for (Route r : List.of(bgp, bgp6, stat, main)) {
      nl.routes().add(r);
    }
    assertEquals(
        Set.of(bgp, bgp6),
        Set.copyOf(nl.routes().list(RouteFilter.ALL.table(TABLE).protocol(Rtnl.RTPROT_BGP))));
    assertEquals(
        List.of(bgp6),
        nl.routes()
            .list(RouteFilter.ALL.table(TABLE).protocol(Rtnl.RTPROT_BGP).family(Family.INET6)));
    assertEquals(
        Set.of(bgp, bgp6, main),
        Set.copyOf(nl.routes().list(RouteFilter.ALL.protocol(Rtnl.RTPROT_BGP))));
    assertTrue(
        nl.routes().list().stream().anyMatch(r -> r.table() == Rtnl.RT_TABLE_LOCAL), "all tables");
    assertEquals(List.of(), nl.routes().list(4321), "a table that does not exist is empty");
  }

  @Test
  void getReturnsTheRouteTheKernelWouldUse() {
    Route r = Route.of("198.51.100.0/24").protocol(Rtnl.RTPROT_BGP).via("192.0.2.1", v0).build();
    nl.routes().add(r);
    assertEquals(r, nl.routes().get(Ip.parse("198.51.100.77")));
    JsonNode ip = Oracle.ip(node, "route", "get", "198.51.100.77", "fibmatch").get(0);
    assertEquals("198.51.100.0/24", ip.get("dst").asText());
    Route v6 = Route.of("2001:db8:7::/48").via("fd00:1::1", v0).build();
    nl.routes().add(v6);
    assertEquals(v6, nl.routes().get(Ip.parse("2001:db8:7::1")));
    NetlinkException e =
        assertThrows(NetlinkException.class, () -> nl.routes().get(Ip.parse("203.0.113.1")));
    assertEquals(Errno.ENETUNREACH, e.errno());
    assertTrue(
        e.getMessage().startsWith("get route 203.0.113.1: Network is unreachable (ENETUNREACH)"),
        e.getMessage());
  }

  @Test
  void aBatchAppliesEveryRequestAndReportsTheFailedOnes() {
    Batch batch = nl.batch();
    List<IpPrefix> prefixes = DocumentationPrefixes.ipv4();
    for (int i = 0; i < 1000; i++) {
      batch.addRoute(
          Route.of(prefixes.get(i)).table(TABLE).via("192.0.2." + (1 + i % 3), v0).build());
    }
    batch.addRoute(
        Route.of(prefixes.get(7)).table(TABLE).via("192.0.2.1", v0).build()); // 1000: exists
    batch.deleteRoute(Route.of("203.0.113.0/24").table(TABLE).build()); // 1001: no such route
    BatchResult result = batch.execute();
    assertEquals(Set.of(1000, 1001), result.failures().keySet());
    assertEquals(
        "add route " + prefixes.get(7) + " table 1000: File exists (EEXIST)",
        result.failure(1000).getMessage());
    assertEquals(Errno.ESRCH, result.failure(1001).errno());
    assertEquals(0, batch.size(), "executing empties the batch");
    assertEquals(1000, nl.routes().list(TABLE).size());
    assertEquals(1000, Oracle.ip(node, "route", "show", "table", "1000").size());
  }
}
