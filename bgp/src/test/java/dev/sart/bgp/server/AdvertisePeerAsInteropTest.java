package dev.sart.bgp.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.bgp.fsm.State;
import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.wire.Ip;
import dev.sart.proto.v1.BgpApiGrpc;
import dev.sart.proto.v1.GetNeighborPathRequest;
import dev.sart.proto.v1.GetNeighborRequest;
import dev.sart.proto.v1.Path;
import dev.sart.proto.v1.SetNeighborPolicyRequest;
import dev.sart.testbed.Frr;
import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.Route;
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
 * advertise-peer-as against FRR, FRR's CLI as the oracle. Two sites of AS 65002 joined through us;
 * site B accepts its own AS ({@code neighbor 192.0.2.5 allowas-in}):
 *
 * <pre>
 *   A: FRR AS 65002 --- sart AS 65001 --- B: FRR AS 65002 (allowas-in)
 *   192.0.2.2/30  192.0.2.1/30 |  192.0.2.5/30   192.0.2.6/30
 *                              | 192.0.2.9/30
 *                              C: FRR AS 65003, 192.0.2.10/30
 * </pre>
 *
 * <p>By default B is not sent A's route (its AS_PATH holds 65002; RFC 4271 §9.1.2 would have B drop
 * it) while C gets it; with advertise_peer_as set over the API (SetNeighborPolicy), B gets it with
 * AS_PATH 65001 65002, and loses it again when the knob goes off.
 */
class AdvertisePeerAsInteropTest {
  private static final String A_ROUTE = "198.51.100.0/24";
  private static final ObjectMapper JSON = new ObjectMapper();

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

  /** FRR's own table: does {@code show bgp ipv4 unicast json} list the prefix at all. */
  private static boolean frrHas(Frr frr, String prefix) throws Exception {
    return JSON.readTree(frr.vtysh("show bgp ipv4 unicast json")).path("routes").has(prefix);
  }

  @Test
  void anExternalPeerGetsRoutesWithItsAsOnlyWhenItAsks() throws Exception {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    Node aNode = t.node("a");
    Node bNode = t.node("b");
    Node cNode = t.node("c");
    t.link(sart, aNode).addresses("192.0.2.1/30", "192.0.2.2/30");
    t.link(sart, bNode).addresses("192.0.2.5/30", "192.0.2.6/30");
    t.link(sart, cNode).addresses("192.0.2.9/30", "192.0.2.10/30");

    server = new BgpServer(179, 1, NamespaceThreads.factory(sart, "bgp-io"));
    server.setLocalAs(65001);
    server.setRouterId(Ip.parseV4("192.0.2.1"));
    server.start();
    api = InProcessApi.serve(server);
    BgpApiGrpc.BgpApiBlockingStub stub = api.stub();

    Frr a =
        Frr.withoutZebra(
            aNode,
            RouterConfig.of(65002, "192.0.2.2")
                .neighbor(Neighbor.of("192.0.2.1", 65001))
                .originate(A_ROUTE));
    a.start();
    Frr b =
        Frr.withoutZebra(
            bNode, RouterConfig.of(65002, "192.0.2.6").neighbor(Neighbor.of("192.0.2.5", 65001)));
    b.start();
    // before the session: B takes routes holding its own AS (once) from us
    b.vtysh(
        "configure terminal",
        "router bgp 65002",
        "address-family ipv4 unicast",
        "neighbor 192.0.2.5 allowas-in");
    Frr c =
        Frr.withoutZebra(
            cNode, RouterConfig.of(65003, "192.0.2.10").neighbor(Neighbor.of("192.0.2.9", 65001)));
    c.start();
    Peer pa =
        server.addPeer(
            SpeakerInteropTest.quick(PeerConfig.of(InetAddress.getByName("192.0.2.2"), 65002)));
    Peer pb =
        server.addPeer(
            SpeakerInteropTest.quick(PeerConfig.of(InetAddress.getByName("192.0.2.6"), 65002)));
    Peer pc =
        server.addPeer(
            SpeakerInteropTest.quick(PeerConfig.of(InetAddress.getByName("192.0.2.10"), 65003)));
    a.awaitEstablished("192.0.2.1");
    b.awaitEstablished("192.0.2.5");
    c.awaitEstablished("192.0.2.9");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                List.of(pa, pb, pc).stream()
                    .allMatch(p -> p.status().state() == State.ESTABLISHED));
    assertTrue(
        b.vtysh("show running-config").contains("neighbor 192.0.2.5 allowas-in"),
        "B is set up to take them");

    // default: C gets A's route through us, B does not (and our Adj-RIB-Out towards B is empty)
    Route atC = c.awaitRoute(A_ROUTE);
    assertEquals(List.of(65001L, 65002L), atC.asPath());
    GetNeighborPathRequest outToB =
        GetNeighborPathRequest.newBuilder()
            .setAddr("192.0.2.6")
            .setKind(GetNeighborPathRequest.Kind.OUT)
            .build();
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(10))
        .until(() -> !frrHas(b, A_ROUTE) && stub.getNeighborPath(outToB).getPathsCount() == 0);
    assertFalse(
        stub.getNeighbor(GetNeighborRequest.newBuilder().setAddr("192.0.2.6").build())
            .getPeer()
            .getAdvertisePeerAs());

    // the knob on for B, over the API: B gets it, AS_PATH 65001 65002, and our Adj-RIB-Out shows it
    stub.setNeighborPolicy(
        SetNeighborPolicyRequest.newBuilder()
            .setAddr("192.0.2.6")
            .setAdvertisePeerAs(true)
            .build());
    assertTrue(
        stub.getNeighbor(GetNeighborRequest.newBuilder().setAddr("192.0.2.6").build())
            .getPeer()
            .getAdvertisePeerAs());
    Route atB = b.awaitRoute(A_ROUTE);
    assertEquals(List.of(65001L, 65002L), atB.asPath());
    JsonNode shown = JSON.readTree(b.vtysh("show bgp ipv4 unicast " + A_ROUTE + " json"));
    assertEquals(
        "65001 65002",
        shown.path("paths").get(0).path("aspath").path("string").asText(),
        shown::toString);
    List<Path> out = stub.getNeighborPath(outToB).getPathsList();
    assertEquals(List.of(A_ROUTE), out.stream().map(Path::getNlri).toList());
    assertEquals(State.ESTABLISHED, pb.status().state(), "no session reset needed");

    // and off again: we withdraw it from B; C keeps it
    stub.setNeighborPolicy(SetNeighborPolicyRequest.newBuilder().setAddr("192.0.2.6").build());
    b.awaitNoRoute(A_ROUTE);
    assertTrue(frrHas(c, A_ROUTE));
  }
}
