package dev.sart.bgp.server;

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
import java.io.DataInputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
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
  private static final HexFormat HEX = HexFormat.of();
  private static final String MARKER = "ffffffffffffffffffffffffffffffff";
  private static final String KEEPALIVE = MARKER + "0013" + "04";
  private static final String COLLISION = MARKER + "0015" + "03" + "0607";
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
    ServerSocket listener =
        peerSide
            .submit(
                () -> {
                  ServerSocket l = new ServerSocket();
                  l.bind(new InetSocketAddress(InetAddress.getByName("192.0.2.2"), 179));
                  return l;
                })
            .get();
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
                .holdTime(Duration.ofSeconds(6))
                .keepaliveTime(Duration.ofSeconds(2))
                .connectRetryTime(Duration.ofSeconds(1))
                .build());
    await().atMost(Duration.ofSeconds(10)).until(() -> p.status().state() == State.OPEN_SENT);
    long openSent = System.nanoTime();

    // at once: a collision with a live-looking connection, resolved for the higher identifier
    List<String> first = peerSide.submit(this::connectAndOpen).get();
    if (System.nanoTime() - openSent < Duration.ofSeconds(6).toNanos()) {
      assertEquals(List.of("OPEN", COLLISION), first);
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
    s.getOutputStream().write(HEX.parseHex(OPEN));
    s.getOutputStream().flush();
    List<String> got = new ArrayList<>();
    DataInputStream in = new DataInputStream(s.getInputStream());
    while (true) {
      byte[] header = new byte[19];
      try {
        in.readFully(header);
      } catch (java.io.EOFException | java.net.SocketException e) {
        return got;
      }
      int length = ((header[16] & 0xff) << 8) | (header[17] & 0xff);
      byte[] m = Arrays.copyOf(header, length);
      in.readFully(m, 19, length - 19);
      String hex = HEX.formatHex(m);
      got.add(m[18] == 1 ? "OPEN" : hex);
      if (hex.equals(KEEPALIVE)) {
        live = s;
        peerSide.submit(
            () -> {
              while (!s.isClosed()) {
                s.getOutputStream().write(HEX.parseHex(KEEPALIVE));
                s.getOutputStream().flush();
                Thread.sleep(1_000);
              }
              return null;
            });
        return got;
      }
    }
  }
}
