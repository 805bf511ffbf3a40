package dev.sart.bgp.server;

import static dev.sart.bgp.server.RawBgp.OPEN;
import static dev.sart.bgp.server.RawBgp.read;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The start of a connection collision (RFC 4271 §6.8) with the order of events fixed by a peer
 * played by hand ({@link RawBgp}): the speaker (192.0.2.1, AS 65001) opens its connection to the
 * peer (192.0.2.2, AS 65002) and sends its OPEN ({@link #ours}, OpenSent); then the peer's
 * connection arrives and the speaker answers it with its OPEN too ({@link #theirs}). Both OPENs
 * have been read; what the peer does next is the test's. Closing ends the sockets, the speaker and
 * the peer's thread.
 */
final class CrossedConnections implements AutoCloseable {
  private static final int TIMEOUT_MS = 20_000;

  private ExecutorService peerSide;
  private ServerSocket listener;
  private BgpServer server;

  /** The speaker's session with the peer. */
  Peer peer;

  /** The speaker's connection, as the peer accepted it. */
  Socket ours;

  /** The peer's connection to the speaker. */
  Socket theirs;

  private CrossedConnections() {}

  /** Both connections open, the speaker's OPEN read on each; {@code routerId} is the speaker's. */
  static CrossedConnections open(Testbed testbed, String routerId) throws Exception {
    CrossedConnections c = new CrossedConnections();
    try {
      c.start(testbed, routerId);
      return c;
    } catch (Exception | AssertionError e) {
      c.close();
      throw e;
    }
  }

  private void start(Testbed testbed, String routerId) throws Exception {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    Node p = t.node("peer");
    t.link(sart, p).addresses("192.0.2.1/29", "192.0.2.2/29");
    peerSide = Executors.newSingleThreadExecutor(NamespaceThreads.factory(p, "fake-peer"));
    listener = RawBgp.listen(peerSide, "192.0.2.2");
    listener.setSoTimeout(TIMEOUT_MS);
    server = new BgpServer(179, 1, NamespaceThreads.factory(sart, "bgp-io"));
    server.setLocalAs(65001);
    server.setRouterId(Ip.parseV4(routerId));
    server.start();
    peer =
        server.addPeer(
            SpeakerInteropTest.quick(PeerConfig.of(InetAddress.getByName("192.0.2.2"), 65002)));
    ours = accept();
    assertEquals(OPEN, read(ours)[18], "our OPEN on our connection");
    await().atMost(Duration.ofSeconds(5)).until(() -> peer.status().state() == State.OPEN_SENT);
    theirs = connect();
    assertEquals(OPEN, read(theirs)[18], "our OPEN on the peer's connection");
  }

  /** A new connection of the peer's to the speaker. */
  Socket connect() throws Exception {
    Socket s = peerSide.submit(() -> new Socket(InetAddress.getByName("192.0.2.1"), 179)).get();
    s.setSoTimeout(TIMEOUT_MS);
    return s;
  }

  /** The speaker's next connection to the peer. */
  Socket accept() throws Exception {
    Socket s = listener.accept();
    s.setSoTimeout(TIMEOUT_MS);
    return s;
  }

  @Override
  public void close() throws Exception {
    for (AutoCloseable c : new AutoCloseable[] {theirs, ours, listener, server}) {
      if (c != null) {
        c.close();
      }
    }
    if (peerSide != null) {
      peerSide.shutdownNow();
    }
  }
}
