package dev.sart.fib.daemon;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.fib.netlink.Address;
import dev.sart.fib.netlink.AddressFlag;
import dev.sart.fib.netlink.Family;
import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.Netns;
import dev.sart.fib.netlink.NextHop;
import dev.sart.fib.netlink.Route;
import dev.sart.fib.netlink.Rtnl;
import dev.sart.fib.netlink.Rule;
import dev.sart.fib.netlink.Scope;
import dev.sart.proto.v1.FibManagerApiGrpc;
import dev.sart.proto.v1.GetChannelRequest;
import dev.sart.proto.v1.GetRoutesRequest;
import dev.sart.proto.v1.ListChannelRequest;
import dev.sart.proto.v1.LookupRouteRequest;
import dev.sart.proto.v1.LookupRouteResponse;
import dev.sart.proto.v1.Protocol;
import dev.sart.testbed.Node;
import dev.sart.testbed.Testbed;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon in a namespace with a kernel → kernel channel (table 100 → table 200): start-up
 * reconciliation, changes, ECMP, restart after routes changed while it was down, the API and the
 * metrics. {@code ip -j route} is the oracle.
 */
class FibDaemonKernelTest {
  private static final int SOURCE = 100;
  private static final int TARGET = 200;
  private static final int OURS = Rtnl.RTPROT_BGP;

  @RegisterExtension final Testbed testbed = new Testbed();
  @TempDir Path dir;

  private Node node;
  private Netns ns;
  private Netlink nl;
  private int v0;
  private FibDaemon daemon;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @BeforeEach
  void open() {
    node = testbed.topology().node("fib");
    ns = Netns.named(node.netns());
    nl = Netlink.open(ns);
    nl.links().addVeth("v0", "v1");
    nl.links().setUp("v0");
    nl.links().setUp("v1");
    v0 = nl.links().get("v0").index();
    nl.addresses().add(Address.of(v0, "192.0.2.100/24"));
    nl.addresses().add(Address.of(v0, "fd00:1::100/64").withFlags(Set.of(AddressFlag.NODAD)));
  }

  @AfterEach
  void close() {
    if (daemon != null) {
      daemon.close();
    }
    nl.close();
    ns.close();
  }

  private Route source(String prefix, String... gateways) {
    return Route.of(prefix)
        .table(SOURCE)
        .protocol(Rtnl.RTPROT_STATIC)
        .nextHops(List.of(gateways).stream().map(NextHop::via).toList())
        .build();
  }

  private FibDaemon start() throws IOException {
    Path f = dir.resolve("fib.yaml");
    Files.writeString(
        f,
        """
        endpoint: 127.0.0.1:0
        channels:
          - name: k2k
            subscribers: [{protocol: kernel, tables: [%d]}]
            publishers: [{protocol: kernel, tables: [%d]}]
        """
            .formatted(SOURCE, TARGET));
    FibDaemon d =
        FibDaemon.start(
            FibConfig.load(f),
            registry,
            ns,
            new FibDaemon.Options(Duration.ofSeconds(10), Duration.ofSeconds(1)));
    await().atMost(Duration.ofSeconds(30)).until(d::ready);
    return d;
  }

  private void awaitTarget(Map<String, String> expected) {
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(() -> assertEquals(expected, IpRoutes.table(node, TARGET, OURS)));
  }

  @Test
  void lookupRouteAnswersWhatIpRouteGetFindsThroughThePolicyRules() throws Exception {
    // a pod's host route as the agent makes it: table 120, reached through a rule
    nl.routes()
        .add(Route.of("198.51.100.7/32").table(120).protocol(50).scope(Scope.LINK).dev(v0).build());
    nl.rules().add(Rule.lookup(Family.INET, 2000, 120));
    nl.routes().add(Route.of("203.0.113.0/24").protocol(Rtnl.RTPROT_BGP).via("192.0.2.1").build());
    daemon = start();
    ManagedChannel ch =
        NettyChannelBuilder.forAddress("127.0.0.1", daemon.managerPort()).usePlaintext().build();
    try {
      FibManagerApiGrpc.FibManagerApiBlockingStub api = FibManagerApiGrpc.newBlockingStub(ch);
      LookupRouteResponse pod = lookup(api, "198.51.100.7");
      assertTrue(pod.getFound());
      assertEquals("198.51.100.7/32", pod.getRoute().getDestination());
      assertEquals(120, pod.getRoute().getTable());
      assertEquals(50, pod.getRoute().getProtocolValue());
      assertEquals("v0", pod.getLinks(0).getName());
      assertTrue(pod.getLinks(0).getUp());
      // the oracle: ip route get ... fibmatch names the same route
      String ip = node.exec("ip", "-j", "route", "get", "198.51.100.7", "fibmatch");
      assertTrue(ip.contains("\"dst\":\"198.51.100.7\"") && ip.contains("\"table\":\"120\""), ip);

      LookupRouteResponse block = lookup(api, "203.0.113.9");
      assertEquals("203.0.113.0/24", block.getRoute().getDestination());
      assertEquals(254, block.getRoute().getTable());
      assertEquals(Protocol.Bgp, block.getRoute().getProtocol());
      assertEquals("192.0.2.1", block.getRoute().getNextHops(0).getGateway());

      assertFalse(lookup(api, "2001:db8:ffff::1").getFound(), "no IPv6 route at all");
      nl.links().setDown("v1"); // the veth's other end: v0 has no carrier, its routes stay
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> !lookup(api, "198.51.100.7").getLinks(0).getUp());
      StatusRuntimeException e =
          org.junit.jupiter.api.Assertions.assertThrows(
              StatusRuntimeException.class, () -> lookup(api, "pod-a"));
      assertEquals(io.grpc.Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
    } finally {
      ch.shutdownNow();
    }
  }

  private static LookupRouteResponse lookup(
      FibManagerApiGrpc.FibManagerApiBlockingStub api, String destination) {
    return api.lookupRoute(LookupRouteRequest.newBuilder().setDestination(destination).build());
  }

  @Test
  void reconcilesAtStartFollowsChangesAndConvergesAfterARestart() throws IOException {
    nl.routes().add(source("198.51.100.0/24", "192.0.2.1"));
    nl.routes().add(source("203.0.113.0/25", "192.0.2.1", "192.0.2.2"));
    nl.routes().add(source("2001:db8:1::/48", "fd00:1::1", "fd00:1::2"));
    // in the target table: a stale route of ours (a crash left it), one of ours to be corrected,
    // and someone else's route that must stay
    nl.routes()
        .add(
            Route.of("203.0.113.128/25")
                .table(TARGET)
                .protocol(OURS)
                .metric(1)
                .via("192.0.2.1")
                .build());
    nl.routes()
        .add(
            Route.of("198.51.100.0/24")
                .table(TARGET)
                .protocol(OURS)
                .metric(1)
                .via("192.0.2.3")
                .build());
    Route foreign =
        Route.of("192.0.2.128/25")
            .table(TARGET)
            .protocol(Rtnl.RTPROT_STATIC)
            .via("192.0.2.1")
            .build();
    nl.routes().add(foreign);

    daemon = start();
    // static routes have distance 1: metric 1
    awaitTarget(
        Map.of(
            "198.51.100.0/24",
            "m1 192.0.2.1",
            "203.0.113.0/25",
            "m1 192.0.2.1,192.0.2.2",
            "2001:db8:1::/48",
            "m1 fd00:1::1,fd00:1::2"));
    assertEquals(
        1,
        IpRoutes.table(node, TARGET, Rtnl.RTPROT_STATIC).size(),
        "the other protocol's route stays");
    assertEquals(
        1.0, registry.get("sart.fib.reconcile.runs").tag("table", "200").counter().count());
    assertEquals(
        3.0, registry.get("sart.fib.routes.installed").tag("channel", "k2k").gauge().value());

    // changes in the source follow: a new route, an ECMP route losing a hop, a withdrawal
    nl.routes().add(source("203.0.113.128/26", "192.0.2.2"));
    nl.routes().replace(source("203.0.113.0/25", "192.0.2.2"));
    nl.routes().delete(source("2001:db8:1::/48", "fd00:1::1", "fd00:1::2"));
    awaitTarget(
        Map.of(
            "198.51.100.0/24",
            "m1 192.0.2.1",
            "203.0.113.0/25",
            "m1 192.0.2.2",
            "203.0.113.128/26",
            "m1 192.0.2.2"));

    // the API shows the channel and its routes
    ManagedChannel ch =
        NettyChannelBuilder.forAddress("127.0.0.1", daemon.managerPort()).usePlaintext().build();
    try {
      FibManagerApiGrpc.FibManagerApiBlockingStub api = FibManagerApiGrpc.newBlockingStub(ch);
      assertEquals(
          List.of("k2k"),
          api.listChannel(ListChannelRequest.getDefaultInstance()).getChannelsList().stream()
              .map(dev.sart.proto.v1.Channel::getName)
              .toList());
      dev.sart.proto.v1.Channel c =
          api.getChannel(GetChannelRequest.newBuilder().setName("k2k").build()).getChannel();
      assertEquals("kernel", c.getSubscribers(0).getType());
      assertEquals(List.of(TARGET), c.getPublishers(0).getTablesList());
      List<dev.sart.proto.v1.Route> routes =
          api.getRoutes(GetRoutesRequest.newBuilder().setChannel("k2k").build()).getRoutesList();
      assertEquals(
          List.of("198.51.100.0/24", "203.0.113.0/25", "203.0.113.128/26"),
          routes.stream().map(dev.sart.proto.v1.Route::getDestination).toList());
      assertEquals(Distance.STATIC, routes.getFirst().getAdValue());
      assertEquals("192.0.2.1", routes.getFirst().getNextHops(0).getGateway());
      StatusRuntimeException e =
          org.junit.jupiter.api.Assertions.assertThrows(
              StatusRuntimeException.class,
              () -> api.getRoutes(GetRoutesRequest.newBuilder().setChannel("nope").build()));
      assertEquals("NOT_FOUND: no channel 'nope' (have [k2k])", e.getMessage());
    } finally {
      ch.shutdownNow();
    }

    // killed: while it is down a source route goes, another comes, and a stale one of ours appears
    daemon.close();
    daemon = null;
    nl.routes().delete(source("198.51.100.0/24", "192.0.2.1"));
    nl.routes().add(source("2001:db8:2::/48", "fd00:1::1"));
    nl.routes()
        .add(
            Route.of("198.51.100.128/25")
                .table(TARGET)
                .protocol(OURS)
                .metric(20)
                .via("192.0.2.9")
                .build());
    daemon = start();
    awaitTarget(
        Map.of(
            "203.0.113.0/25",
            "m1 192.0.2.2",
            "203.0.113.128/26",
            "m1 192.0.2.2",
            "2001:db8:2::/48",
            "m1 fd00:1::1"));
    assertTrue(IpRoutes.table(node, TARGET, Rtnl.RTPROT_STATIC).containsKey("192.0.2.128/25"));
  }
}
