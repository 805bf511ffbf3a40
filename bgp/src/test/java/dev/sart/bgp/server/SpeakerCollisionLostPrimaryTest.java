package dev.sart.bgp.server;

import static dev.sart.bgp.server.RawBgp.KEEPALIVE;
import static dev.sart.bgp.server.RawBgp.NOTIFICATION;
import static dev.sart.bgp.server.RawBgp.OPEN;
import static dev.sart.bgp.server.RawBgp.keepalive;
import static dev.sart.bgp.server.RawBgp.notification;
import static dev.sart.bgp.server.RawBgp.open;
import static dev.sart.bgp.server.RawBgp.read;
import static dev.sart.bgp.server.RawBgp.send;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sart.bgp.fsm.State;
import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.wire.Ip;
import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Node;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * RFC 4271 §6.8 when our own connection loses on its own OPEN, played by a hand-written peer
 * (sockets in its namespace, messages as bytes) so that the order of events is fixed: our
 * connection is open and our OPEN sent, the peer's connection arrives (we answer with our OPEN on
 * it too), then the peer's OPEN comes on our connection with a higher BGP Identifier. Ours must go
 * (Cease 6/7) and the peer's connection carries the session, the peer's state being that
 * connection's (OpenSent, not the Idle of the lost one); if the peer then drops that one as well
 * (closed silently, or with a NOTIFICATION), we must still try again and come up.
 */
class SpeakerCollisionLostPrimaryTest {
  @RegisterExtension final Testbed testbed = new Testbed();
  private BgpServer server;
  private ExecutorService peerSide;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
    if (peerSide != null) {
      peerSide.shutdownNow();
    }
  }

  @ParameterizedTest(name = "the peer's connection then {0}")
  @ValueSource(strings = {"closed", "ceased"})
  void thePeersConnectionTakesOverAndTheSessionComesUpEvenWhenItIsDroppedToo(String drop)
      throws Exception {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    Node peer = t.node("peer");
    t.link(sart, peer).addresses("192.0.2.1/29", "192.0.2.2/29");
    peerSide = Executors.newSingleThreadExecutor(NamespaceThreads.factory(peer, "fake-peer"));
    ServerSocket listener = RawBgp.listen(peerSide, "192.0.2.2");
    listener.setSoTimeout(20_000);
    server = new BgpServer(179, 1, NamespaceThreads.factory(sart, "bgp-io"));
    server.setLocalAs(65001);
    server.setRouterId(Ip.parseV4("192.0.2.1"));
    server.start();
    Peer p =
        server.addPeer(
            SpeakerInteropTest.quick(PeerConfig.of(InetAddress.getByName("192.0.2.2"), 65002)));

    try (listener;
        Socket ours = listener.accept()) {
      ours.setSoTimeout(20_000);
      assertEquals(OPEN, read(ours)[18], "our OPEN on our connection");
      await().atMost(Duration.ofSeconds(5)).until(() -> p.status().state() == State.OPEN_SENT);
      try (Socket theirs = in(() -> new Socket(InetAddress.getByName("192.0.2.1"), 179))) {
        theirs.setSoTimeout(20_000);
        assertEquals(OPEN, read(theirs)[18], "our OPEN on the peer's connection");
        // the peer's OPEN on our connection, its identifier higher than ours: ours loses
        send(ours, open(65002, "192.0.2.200"));
        byte[] n = read(ours);
        assertEquals(NOTIFICATION, n[18]);
        assertEquals(6, n[19], "Cease");
        assertEquals(7, n[20], "Connection Collision Resolution");
        await("the state of the connection kept")
            .atMost(Duration.ofSeconds(5))
            .until(() -> p.status().state() == State.OPEN_SENT);
        // the peer drops its connection as well before sending its OPEN on it
        if (drop.equals("ceased")) {
          send(theirs, notification(6, 7));
        }
      }
      // the speaker tries again rather than staying in Idle
      try (Socket again = listener.accept()) {
        again.setSoTimeout(20_000);
        assertEquals(OPEN, read(again)[18]);
        send(again, open(65002, "192.0.2.200"));
        send(again, keepalive());
        assertEquals(KEEPALIVE, read(again)[18]);
        await().atMost(Duration.ofSeconds(10)).until(() -> p.status().state() == State.ESTABLISHED);
      }
    }
  }

  private <T> T in(Callable<T> c) throws Exception {
    return peerSide.submit(c).get();
  }
}
