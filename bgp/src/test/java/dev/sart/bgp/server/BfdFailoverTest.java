package dev.sart.bgp.server;

import static org.awaitility.Awaitility.await;

import dev.sart.bgp.bfd.BfdConfig;
import dev.sart.bgp.bfd.BfdState;
import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.wire.Ip;
import dev.sart.testbed.Frr;
import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two ToRs (FRR with bfdd, 100 ms × 3) announce the same prefix; ours is the best path through the
 * one with the lower BGP Identifier (RFC 4271 §9.1.2.2 f). When the path to it is cut, BFD takes
 * its session down and the route moves to the other ToR long before the hold time (90 s).
 */
class BfdFailoverTest {
  @RegisterExtension final Testbed testbed = new Testbed();
  private BgpServer server;
  private InProcessApi api;

  @AfterEach
  void stop() {
    if (api != null) {
      api.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /** The best paths' next hops for the prefix, as our API lists them. */
  private List<String> bestNextHops() {
    return api.ipv4Paths().stream()
        .filter(p -> p.getNlri().equals("203.0.113.0/24") && p.getBest())
        .flatMap(p -> p.getNextHopsList().stream())
        .toList();
  }

  @Test
  void whenThePathToTheBestToRIsCutTheRouteMovesToTheOtherThroughBfd() throws Exception {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    Node torA = t.node("tora");
    Node torB = t.node("torb");
    t.link(sart, torA).addresses("192.0.2.1/30", "192.0.2.2/30");
    t.link(sart, torB).addresses("198.51.100.1/30", "198.51.100.2/30");
    server = new BgpServer(179, 1, NamespaceThreads.factory(sart, "bgp-io"));
    server.setLocalAs(65001);
    server.setRouterId(Ip.parseV4("192.0.2.1"));
    server.start();
    api = InProcessApi.serve(server);
    Frr a =
        new Frr(
                torA,
                RouterConfig.of(65002, "192.0.2.2")
                    .neighbor(Neighbor.of("192.0.2.1", 65001))
                    .originate("203.0.113.0/24"))
            .withBfd(100, 100, 3);
    Frr b =
        new Frr(
                torB,
                RouterConfig.of(65003, "198.51.100.2")
                    .neighbor(Neighbor.of("198.51.100.1", 65001))
                    .originate("203.0.113.0/24"))
            .withBfd(100, 100, 3);
    a.start();
    b.start();
    BfdConfig fast = BfdConfig.ofMillis(100, 100, 3);
    for (String tor : List.of("192.0.2.2", "198.51.100.2")) {
      server.addPeer(
          SpeakerInteropTest.quick(
                  PeerConfig.of(InetAddress.getByName(tor), tor.startsWith("192") ? 65002 : 65003))
              .withBfd(fast));
    }
    InetAddress aAddress = InetAddress.getByName("192.0.2.2");
    await("both BFD sessions up, the best path through ToR A")
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                server.bfdStatus(aAddress).state() == BfdState.UP
                    && server.bfdStatus(InetAddress.getByName("198.51.100.2")).state()
                        == BfdState.UP
                    && bestNextHops().equals(List.of("192.0.2.2")));

    BfdPair.cut(torA);
    // the hold time is 90 s: within 10 s only BFD can have moved it
    await("the route through ToR B")
        .atMost(Duration.ofSeconds(10))
        .until(() -> bestNextHops().equals(List.of("198.51.100.2")));
  }
}
