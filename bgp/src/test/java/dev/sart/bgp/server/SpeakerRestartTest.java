package dev.sart.bgp.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sart.bgp.fsm.State;
import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.PathAttributes;
import dev.sart.proto.v1.BgpApiGrpc;
import dev.sart.proto.v1.GetNeighborPathRequest;
import dev.sart.testbed.Frr;
import dev.sart.testbed.ManagedProcess;
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
 * FRR dies (SIGKILL) and comes back: its routes leave our Loc-RIB at once, come back with the new
 * session, and nothing is left twice or stale, as our API and FRR's CLI show it.
 */
class SpeakerRestartTest {
  @RegisterExtension final Testbed testbed = new Testbed();
  private BgpServer server;
  private InProcessApi grpc;

  @AfterEach
  void stop() {
    if (grpc != null) {
      grpc.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /** The Loc-RIB as the API lists it: prefix and the peer each path came from. */
  private List<String> locRib() {
    return grpc.ipv4Paths().stream()
        .map(p -> p.getNlri() + " from " + p.getPeerAddr())
        .sorted()
        .toList();
  }

  @Test
  void aKilledPeersRoutesGoAndComeBackWithNothingStale() throws Exception {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    Node peer = t.node("peer");
    t.link(sart, peer).addresses("192.0.2.1/30", "192.0.2.2/30");
    server = new BgpServer(179, 1, NamespaceThreads.factory(sart, "bgp-io"));
    server.setLocalAs(65001);
    server.setRouterId(Ip.parseV4("192.0.2.1"));
    server.start();
    grpc = InProcessApi.serve(server);
    BgpApiGrpc.BgpApiBlockingStub api = grpc.stub();

    RouterConfig frrConfig =
        RouterConfig.of(65002, "192.0.2.2")
            .neighbor(Neighbor.of("192.0.2.1", 65001))
            .originate("198.51.100.0/25", "198.51.100.128/25");
    Frr frr = new Frr(peer, frrConfig);
    frr.start();
    Peer p =
        server.addPeer(
            SpeakerInteropTest.quick(PeerConfig.of(InetAddress.getByName("192.0.2.2"), 65002)));
    server.addPaths(List.of(Prefix.parse("203.0.113.0/24")), PathAttributes.of(Origin.IGP));
    frr.awaitEstablished("192.0.2.1");
    frr.awaitRoute("203.0.113.0/24");
    List<String> full =
        List.of(
            "198.51.100.0/25 from 192.0.2.2",
            "198.51.100.128/25 from 192.0.2.2",
            "203.0.113.0/24 from ");
    await().atMost(Duration.ofSeconds(10)).until(() -> locRib().equals(full));

    // SIGKILL: no NOTIFICATION, the kernel closes the connection
    for (ManagedProcess proc : frr.processes()) {
      ProcessHandle.of(proc.pid()).ifPresent(ProcessHandle::destroyForcibly);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> p.status().state() != State.ESTABLISHED);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> locRib().equals(List.of("203.0.113.0/24 from ")));
    assertEquals(
        0,
        api.getNeighborPath(
                GetNeighborPathRequest.newBuilder()
                    .setAddr("192.0.2.2")
                    .setKind(GetNeighborPathRequest.Kind.IN)
                    .setFamily(InProcessApi.IPV4)
                    .build())
            .getPathsCount());
    assertEquals(0, p.prefixCounters().accepted(Family.IPV4_UNICAST));

    // the same FRR starts again in the same node
    Frr again = new Frr(peer, frrConfig);
    again.start();
    again.awaitEstablished("192.0.2.1");
    await().atMost(Duration.ofSeconds(20)).until(() -> p.status().state() == State.ESTABLISHED);
    await().atMost(Duration.ofSeconds(10)).until(() -> locRib().equals(full));
    assertEquals(
        2,
        api.getNeighborPath(
                GetNeighborPathRequest.newBuilder()
                    .setAddr("192.0.2.2")
                    .setKind(GetNeighborPathRequest.Kind.IN)
                    .setFamily(InProcessApi.IPV4)
                    .build())
            .getPathsCount());
    assertEquals(1, again.awaitRoute("203.0.113.0/24").asPath().size());
    // our Adj-RIB-Out towards FRR: our own route, not FRR's sent back
    assertEquals(
        List.of("203.0.113.0/24"),
        api
            .getNeighborPath(
                GetNeighborPathRequest.newBuilder()
                    .setAddr("192.0.2.2")
                    .setKind(GetNeighborPathRequest.Kind.OUT)
                    .setFamily(InProcessApi.IPV4)
                    .build())
            .getPathsList()
            .stream()
            .map(x -> x.getNlri())
            .toList());
    assertEquals(
        1, again.routes(dev.sart.net.IpPrefix.parse("203.0.113.0/24")).size(), "one path, from us");
    assertEquals(1, p.status().flaps());
    // and FRR's routes are withdrawn again when it withdraws them: no stale copy from the first
    // session
    again.withdraw("198.51.100.0/25");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                locRib()
                    .equals(List.of("198.51.100.128/25 from 192.0.2.2", "203.0.113.0/24 from ")));
  }
}
