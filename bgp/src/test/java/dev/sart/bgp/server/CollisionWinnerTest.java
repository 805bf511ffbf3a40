package dev.sart.bgp.server;

import static dev.sart.bgp.server.RawBgp.KEEPALIVE;
import static dev.sart.bgp.server.RawBgp.NOTIFICATION;
import static dev.sart.bgp.server.RawBgp.OPEN;
import static dev.sart.bgp.server.RawBgp.keepalive;
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
 * RFC 4271 §6.8, which connection survives a collision, with the order of events fixed by a peer
 * played by hand: our connection is open and our OPEN sent, the peer's connection arrives and we
 * answer it with our OPEN, then the peer's OPEN comes on its own connection. The connection opened
 * by the speaker with the higher BGP Identifier stays; the other gets Cease / Connection Collision
 * Resolution (RFC 4486 §3) and the session comes up on the one kept. (SpeakerCollisionTest shows
 * the same against FRR, where the order of events is FRR's.)
 */
class CollisionWinnerTest {
  private static final String OURS = "192.0.2.100";

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

  @ParameterizedTest(name = "the peer's BGP Identifier {0}, ours " + OURS)
  @ValueSource(strings = {"192.0.2.7", "192.0.2.200"})
  void theConnectionOpenedByTheHigherIdentifierStays(String theirId) throws Exception {
    boolean weAreHigher = Integer.compareUnsigned(Ip.parseV4(OURS), Ip.parseV4(theirId)) > 0;
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    Node peer = t.node("peer");
    t.link(sart, peer).addresses("192.0.2.1/29", "192.0.2.2/29");
    peerSide = Executors.newSingleThreadExecutor(NamespaceThreads.factory(peer, "fake-peer"));
    ServerSocket listener = RawBgp.listen(peerSide, "192.0.2.2");
    listener.setSoTimeout(20_000);
    server = new BgpServer(179, 1, NamespaceThreads.factory(sart, "bgp-io"));
    server.setLocalAs(65001);
    server.setRouterId(Ip.parseV4(OURS));
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
        send(theirs, open(65002, theirId));
        Socket loser = weAreHigher ? theirs : ours;
        Socket winner = weAreHigher ? ours : theirs;
        byte[] n = read(loser);
        assertEquals(NOTIFICATION, n[18], "the connection of the lower identifier is closed");
        assertEquals(6, n[19], "Cease");
        assertEquals(7, n[20], "Connection Collision Resolution");
        // the session comes up on the other one
        if (winner == ours) {
          send(ours, open(65002, theirId));
        }
        assertEquals(KEEPALIVE, read(winner)[18], "our KEEPALIVE answers the OPEN kept");
        send(winner, keepalive());
        await().atMost(Duration.ofSeconds(10)).until(() -> p.status().state() == State.ESTABLISHED);
        assertEquals(0, p.status().flaps(), "the lost connection took nothing along");
      }
    }
  }

  private <T> T in(Callable<T> c) throws Exception {
    return peerSide.submit(c).get();
  }
}
