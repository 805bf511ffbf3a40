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
import dev.sart.bgp.wire.Ip;
import dev.sart.testbed.Testbed;
import java.net.Socket;
import java.time.Duration;
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

  @ParameterizedTest(name = "the peer's BGP Identifier {0}, ours " + OURS)
  @ValueSource(strings = {"192.0.2.7", "192.0.2.200"})
  void theConnectionOpenedByTheHigherIdentifierStays(String theirId) throws Exception {
    boolean weAreHigher = Integer.compareUnsigned(Ip.parseV4(OURS), Ip.parseV4(theirId)) > 0;
    try (CrossedConnections c = CrossedConnections.open(testbed, OURS)) {
      send(c.theirs, open(65002, theirId));
      Socket loser = weAreHigher ? c.theirs : c.ours;
      Socket winner = weAreHigher ? c.ours : c.theirs;
      byte[] n = read(loser);
      assertEquals(NOTIFICATION, n[18], "the connection of the lower identifier is closed");
      assertEquals(6, n[19], "Cease");
      assertEquals(7, n[20], "Connection Collision Resolution");
      // the session comes up on the other one
      if (winner == c.ours) {
        send(c.ours, open(65002, theirId));
      }
      assertEquals(KEEPALIVE, read(winner)[18], "our KEEPALIVE answers the OPEN kept");
      send(winner, keepalive());
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> c.peer.status().state() == State.ESTABLISHED);
      assertEquals(0, c.peer.status().flaps(), "the lost connection took nothing along");
    }
  }

  /**
   * The peer resolves the collision first and closes its own connection, with Cease / Connection
   * Collision Resolution or without a word. The speaker's record of that connection must go with
   * it: it stayed as the tracked second connection, in Idle (or Active), restarted itself after the
   * IdleHoldTimer and connected to the peer, a second connection beside the session (against a peer
   * that can restart gracefully, an OPEN that ends the session, RFC 4724 §4.2); and the peer's next
   * connection was refused (Cease / Connection Rejected) while a collision was "tracked".
   */
  @ParameterizedTest(name = "the peer closes its connection {0}")
  @ValueSource(strings = {"with Cease / Connection Collision Resolution", "without a NOTIFICATION"})
  void aConnectionThePeerClosedLeavesNothingBehind(String how) throws Exception {
    try (CrossedConnections c = CrossedConnections.open(testbed, OURS)) {
      if (how.startsWith("with")) {
        send(c.theirs, RawBgp.notification(6, 7));
      }
      c.theirs.shutdownOutput();
      RawBgp.readUntilClosed(c.theirs); // the speaker closed its end: it has handled ours
      c.theirs.close();
      // the peer connects once more while our connection waits in OpenSent: a collision to track
      // again, answered with our OPEN
      try (Socket next = c.connect()) {
        assertEquals(OPEN, read(next)[18], "the next connection is taken, not rejected");
        next.close();
        send(c.ours, open(65002, "192.0.2.7"));
        assertEquals(KEEPALIVE, read(c.ours)[18]);
        send(c.ours, keepalive());
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> c.peer.status().state() == State.ESTABLISHED);
      }
    }
  }
}
