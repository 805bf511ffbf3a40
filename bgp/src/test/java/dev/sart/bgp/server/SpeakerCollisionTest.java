package dev.sart.bgp.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.fsm.State;
import dev.sart.bgp.peer.Peer;
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
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * RFC 4271 §6.8 against FRR: both sides active and connecting every second, FRR's bgpd frozen while
 * our connection opens, so that its own connection arrives while ours is in OpenSent. Exactly one
 * connection survives, Established on both sides, and only a losing connection ever gets a
 * NOTIFICATION from us. Which side sees the collision first is up to FRR's timers, so which
 * connection wins is checked where a hand-played peer fixes the order of events:
 * CollisionWinnerTest.
 */
class SpeakerCollisionTest {
  @RegisterExtension final Testbed testbed = new Testbed();
  private BgpServer server;
  @RegisterExtension final LogCapture peerLog = new LogCapture(Peer.class.getName());

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  @ParameterizedTest(name = "our BGP Identifier {0}, FRR's 192.0.2.5")
  @ValueSource(strings = {"192.0.2.9", "192.0.2.1"})
  void exactlyOneSessionSurvivesOnBothSidesAndOnlyALoserIsNotified(String ourId) throws Exception {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    Node peer = t.node("peer");
    t.link(sart, peer).addresses("192.0.2.1/29", "192.0.2.2/29");
    server = new BgpServer(179, 1, NamespaceThreads.factory(sart, "bgp-io"));
    server.setLocalAs(65001);
    server.setRouterId(Ip.parseV4(ourId));
    server.start();
    Frr frr =
        new Frr(
            peer, RouterConfig.of(65002, "192.0.2.5").neighbor(Neighbor.of("192.0.2.1", 65001)));
    frr.start();
    // FRR tries every second and is refused until we know it. We freeze bgpd (SIGSTOP), add it:
    // our connection is accepted by FRR's kernel and waits with our OPEN; when bgpd runs again its
    // connect timer has expired too, so it opens a connection of its own while ours is open
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> frr.vtysh("show bgp neighbors 192.0.2.1 json").contains("\"connectRetryTimer\""));
    long bgpd =
        frr.processes().stream()
            .filter(x -> x.name().equals("bgpd"))
            .findFirst()
            .orElseThrow()
            .pid();
    peer.exec("kill", "-STOP", Long.toString(bgpd));
    Peer p =
        server.addPeer(
            withoutGracefulRestartHelper(
                SpeakerInteropTest.quick(
                    PeerConfig.of(InetAddress.getByName("192.0.2.2"), 65002))));
    try {
      await().atMost(Duration.ofSeconds(5)).until(() -> p.status().state() == State.OPEN_SENT);
      Thread.sleep(1500);
    } finally {
      peer.exec("kill", "-CONT", Long.toString(bgpd));
    }

    frr.awaitEstablished("192.0.2.1");
    await().atMost(Duration.ofSeconds(20)).until(() -> p.status().state() == State.ESTABLISHED);
    // and it stays that way: the losing connection went without taking the session along
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .until(() -> p.status().state() == State.ESTABLISHED);
    // We never end the winning session ourselves. FRR 8.4 sometimes drops it when our Cease 6/7 for
    // the losing connection reaches it (its connection closes under us, no NOTIFICATION: one flap,
    // then an ordinary reconnection): that is FRR's doing, told apart by the event we logged.
    long flaps = p.status().flaps();
    assertTrue(
        flaps == 0
            || (flaps == 1
                && peerLog.messages().stream()
                    .anyMatch(m -> m.contains("from=ESTABLISHED event=TcpConnectionFails"))),
        () -> "flaps=" + flaps + " " + peerLog.messages());
    assertTrue(
        peerLog.messages().stream()
            .noneMatch(m -> m.contains("notification-sent") && !m.contains("(6/7)")),
        () -> "only the losing connection gets a NOTIFICATION from us: " + peerLog.messages());
    List<String> conns =
        sart.exec("ss", "-Htn", "state", "established", "( sport = :179 or dport = :179 )")
            .lines()
            .filter(l -> !l.isBlank())
            .toList();
    assertEquals(1, conns.size(), conns::toString);
    var json =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .readTree(frr.vtysh("show bgp neighbors 192.0.2.1 json"))
            .get("192.0.2.1");
    assertEquals(1 + flaps, json.path("connectionsEstablished").asInt(), json::toString);
  }

  /**
   * RFC 4271 §6.8 alone: with the graceful restart helper on (FRR sends the GR capability), a
   * second OPEN while Established is a restart by RFC 4724 §4.2, which replaces the session; this
   * test is about collisions, so the helper is off and the newer connection gets Cease 6/7.
   */
  private static PeerConfig withoutGracefulRestartHelper(PeerConfig c) {
    return c.toBuilder()
        .gracefulRestart(
            new PeerConfig.GracefulRestart(false, PeerConfig.GracefulRestart.DEFAULT.restartTime()))
        .build();
  }
}
