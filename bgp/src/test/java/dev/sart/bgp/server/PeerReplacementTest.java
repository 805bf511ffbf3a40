package dev.sart.bgp.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.fsm.State;
import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.PathAttributes;
import dev.sart.proto.v1.AddPeerRequest;
import dev.sart.proto.v1.DeletePeerRequest;
import dev.sart.proto.v1.GracefulRestart;
import dev.sart.proto.v1.UpdatePeerRequest;
import dev.sart.testbed.Frr;
import dev.sart.testbed.GoBgp;
import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * UpdatePeer against FRR 8.4 (graceful restart on, its route 198.51.100.0/25, ours 203.0.113.0/24):
 * a changed configuration restarts the session with Cease / Other Configuration Change (RFC 4486
 * §4), which with RFC 8538's N bit on both sides is a restart for both, so neither withdraws the
 * other's route (FRR's kernel and and FRR's own view of its path, which a withdrawal would have
 * replaced); without the N bit both routes go and come back. A deleted peer gets Peer
 * De-configured. The same configuration with other policies restarts nothing.
 */
class PeerReplacementTest {
  private static final String OURS = "203.0.113.0/24";
  private static final String FRRS = "198.51.100.0/25";
  private static final String PASSWORD = "s3cret";
  private static final InetAddress US = InetAddress.ofLiteral("192.0.2.1");

  @RegisterExtension final Testbed testbed = new Testbed();
  @RegisterExtension final LogCapture peerLog = new LogCapture(Peer.class.getName());
  private BgpServer server;
  private InProcessApi api;
  private Node frrNode;
  private Frr frr;
  private Withdrawals withdrawn;

  @AfterEach
  void stop() {
    if (api != null) {
      api.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /** Our peer as AddPeer and UpdatePeer take it: FRR (or GoBGP) at 192.0.2.2, AS 65002. */
  private static dev.sart.proto.v1.Peer.Builder frrPeer(int holdTime, boolean notification) {
    return dev.sart.proto.v1.Peer.newBuilder()
        .setAddress("192.0.2.2")
        .setAsn(65002)
        .setHoldTime(holdTime)
        .setConnectRetryTime(1)
        .addFamilies(InProcessApi.IPV4)
        .setGracefulRestart(GracefulRestart.newBuilder().setNotification(notification));
  }

  /** Us at 192.0.2.1 (AS 65001, our own graceful restart on), linked to a peer node at .2. */
  private void speaker() throws Exception {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    frrNode = t.node("peer");
    t.link(sart, frrNode).addresses("192.0.2.1/30", "192.0.2.2/30");
    server = new BgpServer(179, 1, NamespaceThreads.factory(sart, "bgp-io"));
    server.setLocalAs(65001);
    server.setRouterId(Ip.parseV4("192.0.2.1"));
    // as sartd node: our capability lists IPv4 with its F bit, so the peer can keep our routes (RFC
    // 4724 §4.2 keeps only the families listed there)
    server.restartGracefully(dev.sart.bgp.peer.RestartingSpeaker.Settings.DEFAULT);
    server.start();
    withdrawn = Withdrawals.of(server.rib()); // what the FIB would be told
    api = InProcessApi.serve(server);
    server.addPaths(List.of(Prefix.parse(OURS)), PathAttributes.of(Origin.IGP));
  }

  /** FRR with graceful restart (it sends the N bit), we its neighbour with or without it. */
  private void up(boolean notification) throws Exception {
    speaker();
    frr =
        new Frr(
                frrNode,
                RouterConfig.of(65002, "192.0.2.2")
                    .neighbor(Neighbor.of("192.0.2.1", 65001))
                    .originate(FRRS))
            .withGracefulRestart(120);
    frr.start();
    frr.vtysh("configure", "router bgp 65002", "bgp log-neighbor-changes");
    api.stub().addPeer(AddPeerRequest.newBuilder().setPeer(frrPeer(90, notification)).build());
    frr.awaitEstablished("192.0.2.1");
    frr.awaitRoute(OURS);
    await().atMost(Duration.ofSeconds(10)).until(() -> inOurRib(FRRS));
  }

  private boolean inOurRib(String prefix) {
    return api.ipv4Paths().stream().anyMatch(p -> p.getNlri().equals(prefix));
  }

  private Peer peer() {
    return server.peer(InetAddress.ofLiteral("192.0.2.2"));
  }

  /**
   * The change: a TCP MD5 password (RFC 2385) on our side first, as an operator rotating it would
   * do, so the session stays down until FRR has it too ({@link #frrTakesThePassword}).
   */
  private void changePassword(boolean notification) {
    api.stub()
        .updatePeer(
            UpdatePeerRequest.newBuilder()
                .setPeer(frrPeer(90, notification).setPassword(PASSWORD))
                .build());
    await("FRR's session down")
        .atMost(Duration.ofSeconds(10))
        .until(() -> !frr.neighbor(US).path("bgpState").asText().equals("Established"));
  }

  private void frrTakesThePassword() {
    frr.vtysh("configure", "router bgp 65002", "neighbor 192.0.2.1 password " + PASSWORD);
    await("the new session")
        .atMost(Duration.ofSeconds(30))
        .until(() -> peer().status().state() == State.ESTABLISHED);
  }

  /** What FRR logs for our NOTIFICATION ({@code bgp log-neighbor-changes}). */
  private static final String RECEIVED_CHANGE =
      "received from neighbor 192.0.2.1 6/6 (Cease/Other Configuration Change)";

  private boolean logged(String text) {
    return peerLog.records().stream().anyMatch(r -> String.valueOf(r.getMessage()).contains(text));
  }

  @Test
  void withTheNBitAChangedPeerRestartsGracefullyAndNeitherSideWithdraws() throws Exception {
    up(true);
    assertTrue(frr.neighbor(US).path("gracefulRestartInfo").path("nBit").asBoolean());

    changePassword(true);
    assertTrue(frr.logged(RECEIVED_CHANGE), frr::logTail);
    assertTrue(
        logged("event=notification-sent error=\"Cease / Other Configuration Change (6/6)\""),
        "no Hard Reset: a configuration change is no reason to end for good");
    // while the session is down each side keeps the other's route, stale
    await("FRR keeps our route, stale")
        .atMost(Duration.ofSeconds(10))
        .until(() -> frr.pathStale(OURS));
    assertTrue(
        api.ipv4Paths().stream().anyMatch(p -> p.getNlri().equals(FRRS) && p.getStale()),
        "we keep FRR's, stale");

    frrTakesThePassword();
    await("both fresh again after the End-of-RIBs")
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                frr.bestRoute(OURS).isPresent()
                    && !frr.pathStale(OURS)
                    && api.ipv4Paths().stream()
                        .anyMatch(p -> p.getNlri().equals(FRRS) && !p.getStale()));
    assertTrue(logged("event=graceful-restart-helper"), "FRR's route kept as a restart's");
    assertEquals(List.of(), withdrawn.prefixes(), "nothing left our RIB");
    // the neighbour's history goes on: the replaced session's end is a flap, its OPEN counted
    assertEquals(1, peer().status().flaps(), "flaps of the neighbour");
    assertTrue(
        peer().status().received()[dev.sart.bgp.wire.Iana.MessageType.OPEN] >= 2,
        "OPENs received from FRR, counted over both sessions");
  }

  /** The control: the same change without the N bit withdraws on both sides, as RFC 4724 wants. */
  @Test
  void withoutTheNBitAChangedPeersRoutesGoAndComeBack() throws Exception {
    up(false);
    changePassword(false);
    assertTrue(frr.logged(RECEIVED_CHANGE), frr::logTail);
    frr.awaitNoRoute(OURS);
    await("FRR's route left our RIB")
        .atMost(Duration.ofSeconds(10))
        .until(() -> withdrawn.contains(FRRS));

    frrTakesThePassword();
    frr.awaitRoute(OURS);
    await().atMost(Duration.ofSeconds(20)).until(() -> inOurRib(FRRS));
  }

  @Test
  void theSameSessionWithOtherPoliciesDoesNotRestart() throws Exception {
    up(true);
    long flaps = peer().status().flaps();
    Peer before = peer();
    api.stub()
        .setPolicy(
            dev.sart.proto.v1.SetPolicyRequest.newBuilder()
                .setPolicy(
                    dev.sart.proto.v1.Policy.newBuilder()
                        .setName("none-out")
                        .setDefaultReject(true))
                .build());
    api.stub()
        .updatePeer(
            UpdatePeerRequest.newBuilder()
                .setPeer(frrPeer(90, true).setExportPolicy("none-out"))
                .build());
    frr.awaitNoRoute(OURS);
    assertEquals(State.ESTABLISHED, peer().status().state());
    assertEquals(flaps, peer().status().flaps(), "the session did not restart");
    assertTrue(before == peer(), "the same peer");
  }

  @Test
  void aDeletedPeerIsToldItWasDeconfiguredAndAnUnknownOneIsNotFound() throws Exception {
    up(false);
    api.stub().deletePeer(DeletePeerRequest.newBuilder().setAddr("192.0.2.2").build());
    await("FRR was told")
        .atMost(Duration.ofSeconds(10))
        .until(() -> frr.logged("from neighbor 192.0.2.1 6/3 (Cease/Peer De-configured)"));
    frr.awaitNoRoute(OURS);
    StatusRuntimeException e =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                api.stub()
                    .updatePeer(
                        UpdatePeerRequest.newBuilder().setPeer(frrPeer(30, false)).build()));
    assertEquals(Status.Code.NOT_FOUND, e.getStatus().getCode());
    assertTrue(e.getStatus().getDescription().contains("192.0.2.2"), e::getMessage);
  }

  /**
   * The same with GoBGP 3.10 ({@code notification-enabled}) as the other implementation, the change
   * a mistyped password and its fix: while the session is down GoBGP keeps our route, stale, and we
   * keep its route; once the password is right again both are fresh.
   */
  @Test
  void goBgpKeepsOurRouteAcrossAMistypedPasswordAndItsFix() throws Exception {
    speaker();
    GoBgp gobgp =
        new GoBgp(
                frrNode,
                RouterConfig.of(65002, "192.0.2.2")
                    .neighbor(Neighbor.of("192.0.2.1", 65001).withPassword(PASSWORD))
                    .originate(FRRS))
            .withGracefulRestart(120, true);
    gobgp.start();
    api.stub()
        .addPeer(
            AddPeerRequest.newBuilder().setPeer(frrPeer(90, true).setPassword(PASSWORD)).build());
    gobgp.awaitEstablished("192.0.2.1");
    gobgp.awaitRoute(OURS);
    await().atMost(Duration.ofSeconds(10)).until(() -> inOurRib(FRRS));

    api.stub()
        .updatePeer(
            UpdatePeerRequest.newBuilder()
                .setPeer(frrPeer(90, true).setPassword("typo-" + PASSWORD))
                .build());
    await("GoBGP keeps our route, stale")
        .atMost(Duration.ofSeconds(10))
        .until(() -> gobgp.pathStale(OURS));
    assertTrue(
        api.ipv4Paths().stream().anyMatch(p -> p.getNlri().equals(FRRS) && p.getStale()),
        "we keep GoBGP's, stale");
    assertEquals(
        List.of(), withdrawn.prefixes(), "nothing left our RIB while the session was down");

    api.stub()
        .updatePeer(
            UpdatePeerRequest.newBuilder()
                .setPeer(frrPeer(90, true).setPassword(PASSWORD))
                .build());
    gobgp.awaitEstablished("192.0.2.1");
    await("both fresh again after the End-of-RIBs")
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                !gobgp.pathStale(OURS)
                    && gobgp.routes(dev.sart.testbed.Family.IPV4_UNICAST).stream()
                        .anyMatch(r -> r.prefix().toString().equals(OURS))
                    && api.ipv4Paths().stream()
                        .anyMatch(p -> p.getNlri().equals(FRRS) && !p.getStale()));
    // GoBGP keeps no forwarding state: its new OPEN has no Forwarding State bit, so RFC 4724 §4.2
    // has us drop its stale route once its session is back, and take it again from its UPDATE
    assertTrue(
        logged("event=graceful-restart-peer-back restart-state=false stale-until-end-of-rib=[]"));
  }
}
