package dev.sart.bgp.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.bgp.fsm.State;
import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.rib.Rib;
import dev.sart.bgp.wire.ClusterList;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.OriginatorId;
import dev.sart.bgp.wire.PathAttributes;
import dev.sart.testbed.ExaBgp;
import dev.sart.testbed.Frr;
import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Route reflection (RFC 4456) with FRR, FRR's CLI as the oracle, all in AS 65001.
 *
 * <pre>
 *   c1: FRR 192.0.2.2 (client) ──┐
 *   c2: FRR 192.0.2.6 (client) ──┼── sart 192.0.2.1, cluster id 192.0.2.255
 *   x:  ExaBGP 192.0.2.10 (non-client) ┘
 * </pre>
 *
 * <p>And sart as a client of an FRR reflector, beside another FRR client.
 */
class RouteReflectionInteropTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String C1_ROUTE = "198.51.100.0/24";
  private static final String C2_ROUTE = "203.0.113.0/25";
  private static final String X_ROUTE = "203.0.113.128/27";
  private static final String X_OWN_ORIGINATOR = "203.0.113.160/27";
  private static final String X_OWN_CLUSTER = "203.0.113.192/27";

  @RegisterExtension final Testbed testbed = new Testbed();
  private BgpServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private BgpServer speaker(Node n, String routerId) {
    BgpServer s = new BgpServer(179, 1, NamespaceThreads.factory(n, "bgp-io"));
    s.setLocalAs(65001);
    s.setRouterId(Ip.parseV4(routerId));
    s.start();
    return s;
  }

  /** FRR's path for the prefix, from {@code show bgp ipv4 unicast PREFIX json}, or null. */
  private static JsonNode frrPath(Frr frr, String prefix) throws Exception {
    JsonNode paths =
        JSON.readTree(frr.vtysh("show bgp ipv4 unicast " + prefix + " json")).path("paths");
    return paths.isEmpty() ? null : paths.get(0);
  }

  @Test
  void clientsRoutesAreReflectedWithOriginatorAndClusterAndLoopsAreDropped() throws Exception {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    Node n1 = t.node("c1");
    Node n2 = t.node("c2");
    Node nx = t.node("x");
    t.link(sart, n1).addresses("192.0.2.1/30", "192.0.2.2/30");
    t.link(sart, n2).addresses("192.0.2.5/30", "192.0.2.6/30");
    t.link(sart, nx).addresses("192.0.2.9/30", "192.0.2.10/30");
    server = speaker(sart, "192.0.2.1");
    server.setClusterId(Ip.parseV4("192.0.2.255"));
    Frr c1 =
        Frr.withoutZebra(
            n1,
            RouterConfig.of(65001, "192.0.2.2")
                .neighbor(Neighbor.of("192.0.2.1", 65001))
                .originate(C1_ROUTE));
    Frr c2 =
        Frr.withoutZebra(
            n2,
            RouterConfig.of(65001, "192.0.2.6")
                .neighbor(Neighbor.of("192.0.2.5", 65001))
                .originate(C2_ROUTE));
    ExaBgp x =
        new ExaBgp(
            nx, RouterConfig.of(65001, "192.0.2.10").neighbor(Neighbor.of("192.0.2.9", 65001)));
    c1.start();
    c2.start();
    x.start();
    List<Peer> peers = new ArrayList<>();
    for (String a : List.of("192.0.2.2", "192.0.2.6")) {
      peers.add(
          server.addPeer(
              SpeakerInteropTest.quick(PeerConfig.of(InetAddress.getByName(a), 65001)).toBuilder()
                  .routeReflectorClient(true)
                  .build()));
    }
    peers.add(
        server.addPeer(
            SpeakerInteropTest.quick(PeerConfig.of(InetAddress.getByName("192.0.2.10"), 65001))));
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> peers.stream().allMatch(p -> p.status().state() == State.ESTABLISHED));

    // c1's route reaches c2 reflected: ORIGINATOR_ID c1, CLUSTER_LIST our cluster id, the next hop
    // c1's (RFC 4456 §8, §10); and the other way round
    for (var c : List.of(List.of(c2, C1_ROUTE, "192.0.2.2"), List.of(c1, C2_ROUTE, "192.0.2.6"))) {
      Frr at = (Frr) c.get(0);
      String prefix = (String) c.get(1);
      String origin = (String) c.get(2);
      await(at + " has " + prefix)
          .atMost(Duration.ofSeconds(30))
          .until(() -> frrPath(at, prefix) != null);
      JsonNode p = frrPath(at, prefix);
      assertEquals(origin, p.path("originatorId").asText(), p.toString());
      assertEquals("192.0.2.255", p.path("clusterList").path("list").get(0).asText(), p.toString());
      assertEquals(origin, p.path("nexthops").get(0).path("ip").asText(), p.toString());
    }

    // a client's route goes to the non-client too (§6)
    x.awaitRoute(C1_ROUTE);

    // the non-client's routes: one fine, one carrying our BGP Identifier as ORIGINATOR_ID and one
    // our CLUSTER_ID in its CLUSTER_LIST (§8: both ignored)
    x.send("announce route " + X_ROUTE + " next-hop self originator-id 192.0.2.99");
    x.send("announce route " + X_OWN_ORIGINATOR + " next-hop self originator-id 192.0.2.1");
    x.send(
        "announce route "
            + X_OWN_CLUSTER
            + " next-hop self originator-id 192.0.2.99 cluster-list [ 192.0.2.254 192.0.2.255 ]");
    // the good one goes to the clients (non-client → clients), keeping its ORIGINATOR_ID
    await().atMost(Duration.ofSeconds(30)).until(() -> frrPath(c1, X_ROUTE) != null);
    JsonNode good = frrPath(c1, X_ROUTE);
    assertEquals("192.0.2.99", good.path("originatorId").asText(), good.toString());
    Rib rib = server.rib();
    await("the looped routes stay out of our RIB")
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                rib.query(v -> v.route(Prefix.parse(X_ROUTE))).join() != null
                    && rib.query(v -> v.route(Prefix.parse(X_OWN_ORIGINATOR))).join() == null
                    && rib.query(v -> v.route(Prefix.parse(X_OWN_CLUSTER))).join() == null
                    && frrPath(c1, X_OWN_ORIGINATOR) == null
                    && frrPath(c1, X_OWN_CLUSTER) == null);
  }

  @Test
  void sartAsAClientOfAnFrrReflector() throws Exception {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    Node nr = t.node("rr");
    Node n3 = t.node("c3");
    t.link(sart, nr).addresses("192.0.2.1/30", "192.0.2.2/30");
    t.link(nr, n3).addresses("192.0.2.5/30", "192.0.2.6/30");
    Frr rr =
        Frr.withoutZebra(
            nr,
            RouterConfig.of(65001, "192.0.2.2")
                .neighbor(Neighbor.of("192.0.2.1", 65001))
                .neighbor(Neighbor.of("192.0.2.6", 65001)));
    rr.start();
    rr.vtysh(
        "configure terminal",
        "router bgp 65001",
        "address-family ipv4 unicast",
        "neighbor 192.0.2.1 route-reflector-client",
        "neighbor 192.0.2.6 route-reflector-client");
    Frr c3 =
        Frr.withoutZebra(
            n3,
            RouterConfig.of(65001, "192.0.2.6")
                .neighbor(Neighbor.of("192.0.2.5", 65001))
                .originate(C2_ROUTE));
    c3.start();
    server = speaker(sart, "192.0.2.1");
    Peer p =
        server.addPeer(
            SpeakerInteropTest.quick(PeerConfig.of(InetAddress.getByName("192.0.2.2"), 65001)));
    server.addPaths(List.of(Prefix.parse(C1_ROUTE)), PathAttributes.of(Origin.IGP));
    await().atMost(Duration.ofSeconds(60)).until(() -> p.status().state() == State.ESTABLISHED);

    // c3's route reaches us reflected, with c3 as ORIGINATOR_ID and the reflector's cluster
    Rib rib = server.rib();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> rib.query(v -> v.route(Prefix.parse(C2_ROUTE))).join() != null);
    PathAttributes got =
        rib.query(v -> v.route(Prefix.parse(C2_ROUTE)).paths().getFirst().attrs().attributes())
            .join();
    assertEquals(new OriginatorId(Ip.parseV4("192.0.2.6")), got.orNull(OriginatorId.class));
    assertEquals(ClusterList.of(Ip.parseV4("192.0.2.2")), got.orNull(ClusterList.class));
    // ours reaches c3 through the reflector, with our BGP Identifier as ORIGINATOR_ID
    await().atMost(Duration.ofSeconds(30)).until(() -> frrPath(c3, C1_ROUTE) != null);
    assertEquals("192.0.2.1", frrPath(c3, C1_ROUTE).path("originatorId").asText());
  }
}
