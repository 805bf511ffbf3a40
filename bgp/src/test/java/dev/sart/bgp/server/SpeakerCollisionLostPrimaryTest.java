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
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.fsm.State;
import dev.sart.bgp.peer.Peer;
import dev.sart.testbed.Testbed;
import java.net.Socket;
import java.time.Duration;
import org.junit.jupiter.api.Test;
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

  @ParameterizedTest(name = "the peer's connection then {0}")
  @ValueSource(strings = {"closed", "ceased"})
  void thePeersConnectionTakesOverAndTheSessionComesUpEvenWhenItIsDroppedToo(String drop)
      throws Exception {
    try (CrossedConnections c = CrossedConnections.open(testbed, "192.0.2.1")) {
      Peer p = c.peer;
      // the peer's OPEN on our connection, its identifier higher than ours: ours loses
      send(c.ours, open(65002, "192.0.2.200"));
      byte[] n = read(c.ours);
      assertEquals(NOTIFICATION, n[18]);
      assertEquals(6, n[19], "Cease");
      assertEquals(7, n[20], "Connection Collision Resolution");
      await("the state of the connection kept")
          .atMost(Duration.ofSeconds(5))
          .until(() -> p.status().state() == State.OPEN_SENT);
      // the peer drops its connection as well before sending its OPEN on it
      if (drop.equals("ceased")) {
        send(c.theirs, notification(6, 7));
      }
      c.theirs.close();
      // the speaker tries again rather than staying in Idle
      try (Socket again = c.accept()) {
        assertEquals(OPEN, read(again)[18]);
        send(again, open(65002, "192.0.2.200"));
        send(again, keepalive());
        assertEquals(KEEPALIVE, read(again)[18]);
        await().atMost(Duration.ofSeconds(10)).until(() -> p.status().state() == State.ESTABLISHED);
      }
    }
  }

  /**
   * The same loss, and then the peer never sends its OPEN on the connection kept, nor closes it
   * (SpeakerCollisionTest once waited on FRR's that way). The peer is alive: its OPEN came on the
   * other connection, with a hold time of 3 s. The kept connection waits that long, not the 4
   * minutes of the OpenSent HoldTimer (RFC 4271 §8.2.2), then ends with Hold Timer Expired, and the
   * speaker connects again.
   */
  @Test
  void aKeptConnectionThatNeverGetsItsOpenWaitsNoLongerThanTheHoldTimeOfTheOneClosed()
      throws Exception {
    try (CrossedConnections c = CrossedConnections.open(testbed, "192.0.2.1")) {
      Peer p = c.peer;
      send(c.ours, open(65002, "192.0.2.200", 3));
      byte[] n = read(c.ours);
      assertEquals(NOTIFICATION, n[18]);
      assertEquals(7, n[20], "Connection Collision Resolution");
      long t = System.nanoTime();
      byte[] expired = read(c.theirs); // the socket gives up after 20 s
      double waited = (System.nanoTime() - t) / 1e9;
      assertEquals(NOTIFICATION, expired[18], "the kept connection ends");
      assertEquals(4, expired[19], "Hold Timer Expired");
      assertTrue(waited < 10, () -> "after the 3 s hold time, not §8.2.2's 4 minutes: " + waited);
      try (Socket again = c.accept()) {
        assertEquals(OPEN, read(again)[18]);
        send(again, open(65002, "192.0.2.200", 3));
        send(again, keepalive());
        assertEquals(KEEPALIVE, read(again)[18]);
        await().atMost(Duration.ofSeconds(10)).until(() -> p.status().state() == State.ESTABLISHED);
      }
    }
  }
}
