package dev.sart.bgp.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.PathAttributes;
import dev.sart.proto.v1.AddPeerRequest;
import dev.sart.proto.v1.GracefulRestart;
import dev.sart.proto.v1.UpdatePeerRequest;
import dev.sart.testbed.Frr;
import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Node;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * UpdatePeer for an unnumbered neighbour (RFC 8950), named by its interface: the peer made at the
 * link-local address learned there is replaced, as a numbered one is ({@link PeerReplacementTest}).
 * FRR 8.4 on the other end of a link with no address but the link-local ones, {@code neighbor eth1
 * interface remote-as external}.
 */
class UnnumberedReplacementTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String OURS = "203.0.113.0/24";

  @RegisterExtension final Testbed testbed = new Testbed();
  @RegisterExtension final LogCapture peerLog = new LogCapture(Peer.class.getName());
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

  private static dev.sart.proto.v1.Peer.Builder onEth1(int holdTime) {
    return dev.sart.proto.v1.Peer.newBuilder()
        .setInterface("eth1")
        .setRemoteAs("external")
        .setHoldTime(holdTime)
        .setConnectRetryTime(1)
        .addFamilies(InProcessApi.IPV4)
        .setGracefulRestart(GracefulRestart.newBuilder().setNotification(true));
  }

  @Test
  void aChangedUnnumberedNeighbourIsReplacedOnItsInterface() throws Exception {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    Node peer = t.node("frr");
    t.link(sart, peer); // eth1 each, link-local addresses only
    Frr frr = new Frr(peer, RouterConfig.of(65002, "192.0.2.2")).withGracefulRestart(120);
    frr.start();
    frr.vtysh(
        "configure terminal",
        "router bgp 65002",
        "bgp log-neighbor-changes",
        "neighbor eth1 interface remote-as external",
        "address-family ipv4 unicast",
        "neighbor eth1 activate",
        "exit-address-family");

    server = new BgpServer(179, 1, NamespaceThreads.factory(sart, "bgp-io"));
    server.setLocalAs(65001);
    server.setRouterId(Ip.parseV4("192.0.2.1"));
    server.restartGracefully(dev.sart.bgp.peer.RestartingSpeaker.Settings.DEFAULT);
    server.start();
    api = InProcessApi.serve(server);
    server.addPaths(List.of(Prefix.parse(OURS)), PathAttributes.of(Origin.IGP));
    api.stub().addPeer(AddPeerRequest.newBuilder().setPeer(onEth1(30)).build());
    await("FRR's session on eth1, with our hold time")
        .atMost(Duration.ofSeconds(60))
        .until(() -> established(frr) && holdTimeMs(frr) == 30_000);
    frr.awaitRoute(OURS);

    api.stub().updatePeer(UpdatePeerRequest.newBuilder().setPeer(onEth1(20)).build());
    await("a new session on eth1, with the new hold time")
        .atMost(Duration.ofSeconds(60))
        .until(() -> established(frr) && holdTimeMs(frr) == 20_000);
    assertTrue(
        peerLog.records().stream()
            .anyMatch(
                r ->
                    String.valueOf(r.getMessage())
                        .contains("error=\"Cease / Other Configuration Change (6/6)\"")),
        "the session was replaced, not deleted");
    assertTrue(frr.logged("6/6 (Cease/Other Configuration Change)"), frr::logTail);
    frr.awaitRoute(OURS);
  }

  private static JsonNode eth1(Frr frr) {
    try {
      return JSON.readTree(frr.vtysh("show bgp neighbors eth1 json")).path("eth1");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean established(Frr frr) {
    return eth1(frr).path("bgpState").asText().equals("Established");
  }

  private static int holdTimeMs(Frr frr) {
    return eth1(frr).path("bgpTimerHoldTimeMsecs").asInt();
  }
}
