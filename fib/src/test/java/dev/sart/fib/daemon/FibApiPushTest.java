package dev.sart.fib.daemon;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sart.fib.netlink.Address;
import dev.sart.fib.netlink.AddressFlag;
import dev.sart.fib.netlink.Family;
import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.Netns;
import dev.sart.proto.v1.AddMultiPathRouteRequest;
import dev.sart.proto.v1.AddRouteRequest;
import dev.sart.proto.v1.AdministrativeDistance;
import dev.sart.proto.v1.DeleteMultiPathRouteRequest;
import dev.sart.proto.v1.DeleteRouteRequest;
import dev.sart.proto.v1.FibApiGrpc;
import dev.sart.proto.v1.GetRouteRequest;
import dev.sart.proto.v1.IpVersion;
import dev.sart.proto.v1.ListRoutesRequest;
import dev.sart.proto.v1.NextHop;
import dev.sart.proto.v1.Route;
import dev.sart.testbed.Node;
import dev.sart.testbed.Testbed;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * sart's push mode: a speaker calls the {@code FibApi} a {@code mode: push} subscriber serves (what
 * {@code sartd bgp --fib} of sart does), and the channel installs into table 200 of a namespace.
 * Against the real daemon and kernel; {@code ip -j route} is the oracle.
 */
class FibApiPushTest {
  @RegisterExtension final Testbed testbed = new Testbed();

  private Node node;
  private Netns ns;
  private Netlink nl;
  private FibDaemon daemon;
  private ManagedChannel channel;
  private FibApiGrpc.FibApiBlockingStub fib;

  @BeforeEach
  void start() throws Exception {
    node = testbed.topology().node("fib");
    ns = Netns.named(node.netns());
    nl = Netlink.open(ns);
    nl.links().addVeth("v0", "v1");
    nl.links().setUp("v0");
    nl.links().setUp("v1");
    int v0 = nl.links().get("v0").index();
    nl.addresses().add(Address.of(v0, "192.0.2.100/24"));
    nl.addresses().add(Address.of(v0, "fd00:1::100/64").withFlags(Set.of(AddressFlag.NODAD)));
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    String endpoint = "127.0.0.1:" + port;
    FibConfig config =
        new FibConfig(
            "127.0.0.1:0",
            186,
            List.of(
                new FibConfig.ChannelConfig(
                    "push",
                    Set.of(Family.INET, Family.INET6),
                    List.of(
                        new FibConfig.Endpoint(
                            FibConfig.Protocol.bgp, endpoint, List.of(), FibConfig.Mode.push)),
                    List.of(
                        new FibConfig.Endpoint(
                            FibConfig.Protocol.kernel, null, List.of(200), null)))));
    daemon = FibDaemon.start(config, new SimpleMeterRegistry(), ns, FibDaemon.Options.DEFAULT);
    await().atMost(Duration.ofSeconds(30)).until(daemon::ready);
    channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    fib = FibApiGrpc.newBlockingStub(channel);
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    daemon.close();
    nl.close();
    ns.close();
  }

  private static Route route(String destination, AdministrativeDistance ad, String... gateways) {
    Route.Builder b =
        Route.newBuilder()
            .setDestination(destination)
            .setAd(ad)
            .setVersion(destination.contains(":") ? IpVersion.V6 : IpVersion.V4);
    for (String g : gateways) {
      b.addNextHops(NextHop.newBuilder().setGateway(g));
    }
    return b.build();
  }

  private void awaitTable(Map<String, String> expected) {
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(() -> assertEquals(expected, IpRoutes.table(node, 200, 186)));
  }

  @Test
  void pushedRoutesAndMultipathChangesReachTheTable() {
    fib.addRoute(
        AddRouteRequest.newBuilder()
            .setTable(254)
            .setVersion(IpVersion.V4)
            .setRoute(route("198.51.100.0/24", AdministrativeDistance.ADEBGP, "192.0.2.1"))
            .build());
    fib.addRoute(
        AddRouteRequest.newBuilder()
            .setVersion(IpVersion.V6)
            .setRoute(route("2001:db8:1::/48", AdministrativeDistance.ADIBGP, "fd00:1::1"))
            .build());
    awaitTable(Map.of("198.51.100.0/24", "m20 192.0.2.1", "2001:db8:1::/48", "m200 fd00:1::1"));

    // sart's multipath requests add and remove next hops of the same route
    fib.addMultiPathRoute(
        AddMultiPathRouteRequest.newBuilder()
            .setRoute(route("198.51.100.0/24", AdministrativeDistance.ADEBGP, "192.0.2.2"))
            .build());
    awaitTable(
        Map.of("198.51.100.0/24", "m20 192.0.2.1,192.0.2.2", "2001:db8:1::/48", "m200 fd00:1::1"));
    fib.deleteMultiPathRoute(
        DeleteMultiPathRouteRequest.newBuilder()
            .setDestination("198.51.100.0/24")
            .addGateways("192.0.2.1")
            .build());
    awaitTable(Map.of("198.51.100.0/24", "m20 192.0.2.2", "2001:db8:1::/48", "m200 fd00:1::1"));

    // GetRoute and ListRoutes (stubs in sart) answer with the channel's routes
    assertEquals(
        "192.0.2.2",
        fib.getRoute(GetRouteRequest.newBuilder().setDestination("198.51.100.0/24").build())
            .getRoute()
            .getNextHops(0)
            .getGateway());
    assertEquals(
        1,
        fib.listRoutes(ListRoutesRequest.newBuilder().setVersion(IpVersion.V6).build())
            .getRoutesCount());

    fib.deleteRoute(DeleteRouteRequest.newBuilder().setDestination("2001:db8:1::/48").build());
    fib.deleteMultiPathRoute(
        DeleteMultiPathRouteRequest.newBuilder()
            .setDestination("198.51.100.0/24")
            .addGateways("192.0.2.2")
            .build());
    awaitTable(Map.of());
  }

  @Test
  void mistakesGetSartsStatusCodes() {
    AddRouteRequest add =
        AddRouteRequest.newBuilder()
            .setRoute(route("198.51.100.0/24", AdministrativeDistance.ADEBGP, "192.0.2.1"))
            .build();
    fib.addRoute(add);
    assertEquals(
        Status.Code.ALREADY_EXISTS,
        assertThrows(StatusRuntimeException.class, () -> fib.addRoute(add)).getStatus().getCode());
    fib.addRoute(add.toBuilder().setReplace(true).build());
    assertEquals(
        Status.Code.NOT_FOUND,
        assertThrows(
                StatusRuntimeException.class,
                () ->
                    fib.deleteRoute(
                        DeleteRouteRequest.newBuilder().setDestination("203.0.113.0/24").build()))
            .getStatus()
            .getCode());
    StatusRuntimeException bad =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                fib.addRoute(
                    AddRouteRequest.newBuilder()
                        .setRoute(
                            route("198.51.100.0/33", AdministrativeDistance.ADEBGP, "192.0.2.1"))
                        .build()));
    assertEquals("INVALID_ARGUMENT: '198.51.100.0/33' is not a prefix", bad.getMessage());
    StatusRuntimeException noHop =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                fib.addRoute(
                    AddRouteRequest.newBuilder()
                        .setRoute(route("203.0.113.0/24", AdministrativeDistance.ADEBGP))
                        .build()));
    assertEquals(
        "INVALID_ARGUMENT: the route to 203.0.113.0/24 has no next hop", noHop.getMessage());
  }
}
