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
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
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
  private static final int OPEN = 1;
  private static final int NOTIFICATION = 3;
  private static final int KEEPALIVE = 4;

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
    ServerSocket listener =
        in(
            () -> {
              ServerSocket s = new ServerSocket();
              s.bind(new InetSocketAddress(InetAddress.getByName("192.0.2.2"), 179));
              return s;
            });
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
          send(theirs, cease());
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

  /** One whole message (header included). */
  private static byte[] read(Socket s) throws IOException {
    DataInputStream in = new DataInputStream(s.getInputStream());
    byte[] header = new byte[19];
    in.readFully(header);
    int length = ((header[16] & 0xff) << 8) | (header[17] & 0xff);
    byte[] m = Arrays.copyOf(header, length);
    in.readFully(m, 19, length - 19);
    return m;
  }

  private static void send(Socket s, byte[] m) throws IOException {
    OutputStream out = s.getOutputStream();
    out.write(m);
    out.flush();
  }

  /**
   * RFC 4271 §4.2 with the multiprotocol (IPv4 unicast, RFC 4760) and 4-octet AS (RFC 6793)
   * capabilities.
   */
  private static byte[] open(int asn, String id) throws IOException {
    byte[] caps = {2, 12, 1, 4, 0, 1, 0, 1, 65, 4, 0, 0, (byte) (asn >> 8), (byte) asn};
    ByteBuffer b = ByteBuffer.allocate(19 + 10 + caps.length);
    header(b, b.capacity(), OPEN);
    b.put((byte) 4)
        .putShort((short) asn)
        .putShort((short) 90)
        .put(InetAddress.getByName(id).getAddress())
        .put((byte) caps.length)
        .put(caps);
    return b.array();
  }

  private static byte[] keepalive() {
    ByteBuffer b = ByteBuffer.allocate(19);
    header(b, 19, KEEPALIVE);
    return b.array();
  }

  /** NOTIFICATION Cease / Connection Collision Resolution (RFC 4271 §4.5, RFC 4486 §3). */
  private static byte[] cease() {
    ByteBuffer b = ByteBuffer.allocate(21);
    header(b, 21, NOTIFICATION);
    b.put((byte) 6).put((byte) 7);
    return b.array();
  }

  private static void header(ByteBuffer b, int length, int type) {
    for (int i = 0; i < 16; i++) {
      b.put((byte) 0xff);
    }
    b.putShort((short) length).put((byte) type);
  }
}
