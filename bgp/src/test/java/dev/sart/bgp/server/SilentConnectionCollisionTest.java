package dev.sart.bgp.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.fsm.State;
import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.wire.Ip;
import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Node;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * RFC 4271 §6.8 with a connection in OpenSent: our connection to the peer was accepted but its OPEN
 * never answered (the peer lost its end of it, as after a link loss), while the peer opens
 * connections of its own. While ours is younger than a hold time the collision rule keeps it (our
 * BGP Identifier is the higher); once it has waited longer, the peer's connection carries the
 * session instead of being refused until the 4-minute OpenSent hold timer.
 */
class SilentConnectionCollisionTest {
  private static final String MARKER = RawBgp.MARKER;
  private static final String KEEPALIVE = RawBgp.KEEPALIVE_HEX;
  private static final String COLLISION = MARKER + "0015" + "03" + "0607";
  private static final Duration HOLD = Duration.ofSeconds(6);
  // version 4, AS 65002, hold time 6 s, BGP Identifier 192.0.2.0 (lower than ours), no parameters
  private static final String OPEN =
      MARKER + "001d" + "01" + "04" + "fdea" + "0006" + "c0000200" + "00";

  @RegisterExtension final Testbed testbed = new Testbed();
  private BgpServer server;
  private ExecutorService peerSide;
  private final List<AutoCloseable> sockets = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    if (server != null) {
      server.close();
    }
    for (AutoCloseable s : sockets) {
      s.close();
    }
    if (peerSide != null) {
      peerSide.shutdownNow();
    }
  }

  @Test
  void aConnectionWhoseOpenWentUnansweredForAHoldTimeGivesWayToThePeers() throws Exception {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    Node peer = t.node("peer");
    t.link(sart, peer).addresses("192.0.2.1/30", "192.0.2.2/30");
    peerSide = Executors.newCachedThreadPool(NamespaceThreads.factory(peer, "silent-peer"));
    // the peer's listener takes our connection and never answers on it
    ServerSocket listener = RawBgp.listen(peerSide, "192.0.2.2");
    sockets.add(listener);
    peerSide.submit(
        () -> {
          while (true) {
            sockets.add(listener.accept());
          }
        });

    server = new BgpServer(179, 1, NamespaceThreads.factory(sart, "bgp-io"));
    server.setLocalAs(65001);
    server.setRouterId(Ip.parseV4("192.0.2.1"));
    server.start();
    PeerConfig c = PeerConfig.of(InetAddress.getByName("192.0.2.2"), 65002);
    Peer p =
        server.addPeer(
            c.toBuilder()
                .holdTime(HOLD)
                .keepaliveTime(Duration.ofSeconds(2))
                .connectRetryTime(Duration.ofSeconds(1))
                .build());
    await().atMost(Duration.ofSeconds(10)).until(() -> p.status().state() == State.OPEN_SENT);
    long openSent = System.nanoTime();

    // at once: while ours is younger than the hold time the collision keeps it, ours having the
    // higher identifier (CollisionWinnerTest fixes that case); a machine slow enough to get here
    // later sees the peer's taken, but never before a hold time (the speaker's OpenSent began
    // before we saw it, so its age is at least what we measure)
    long sent = System.nanoTime() - openSent;
    List<String> first = peerSide.submit(this::connectAndOpen).get();
    long answered = System.nanoTime() - openSent;
    if (first.equals(List.of("OPEN", COLLISION))) {
      assertTrue(sent < HOLD.toNanos(), () -> "kept ours at " + sent / 1e9 + " s");
    } else {
      assertEquals(List.of("OPEN", KEEPALIVE), first);
      assertTrue(
          answered > HOLD.minusSeconds(1).toNanos(),
          () -> "gave way to the peer's after " + answered / 1e9 + " s");
    }
    // after a hold time without an answer, the peer's connection carries the session
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofSeconds(1))
        .until(() -> p.status().state() == State.ESTABLISHED || opened());
    await().atMost(Duration.ofSeconds(10)).until(() -> p.status().state() == State.ESTABLISHED);
    // and it stays: the peer keeps its keepalives coming through the open socket
    assertEquals(State.ESTABLISHED, p.status().state());
  }

  private Socket live;

  /** One more connection from the peer; true when it was taken (OPEN and KEEPALIVE back). */
  private boolean opened() throws Exception {
    if (live != null) {
      return false;
    }
    List<String> got = peerSide.submit(this::connectAndOpen).get();
    return got.contains(KEEPALIVE);
  }

  /**
   * Connects from the peer, sends its OPEN and reads until a NOTIFICATION and the close, or until
   * our KEEPALIVE, which it answers with its own and keeps answering.
   */
  private List<String> connectAndOpen() throws Exception {
    Socket s = new Socket();
    s.bind(new InetSocketAddress(InetAddress.getByName("192.0.2.2"), 0));
    s.connect(new InetSocketAddress(InetAddress.getByName("192.0.2.1"), 179), 5_000);
    sockets.add(s);
    s.setSoTimeout(10_000);
    RawBgp.send(s, OPEN);
    List<String> got = RawBgp.readUntil(s, KEEPALIVE::equals);
    if (got.contains(KEEPALIVE)) {
      live = s;
      peerSide.submit(
          () -> {
            while (!s.isClosed()) {
              RawBgp.send(s, KEEPALIVE);
              Thread.sleep(1_000);
            }
            return null;
          });
    }
    return got;
  }
}
