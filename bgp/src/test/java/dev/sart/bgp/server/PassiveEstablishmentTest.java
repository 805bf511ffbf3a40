package dev.sart.bgp.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.fsm.State;
import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.PathAttributes;
import dev.sart.testbed.ExaBgp;
import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 23 §1: a peer that only connects (does not listen) establishes; every connection from a
 * configured address gets a BGP answer; peers that cannot be reached are retried with a back-off
 * and logged at a falling rate.
 */
class PassiveEstablishmentTest {
  private static final String MARKER = RawBgp.MARKER;

  @RegisterExtension final Testbed testbed = new Testbed();
  private BgpServer server;
  private ExecutorService clientSide;
  @RegisterExtension final LogCapture bgpLog = new LogCapture("dev.sart.bgp", Level.FINE);

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
    if (clientSide != null) {
      clientSide.shutdownNow();
    }
  }

  private BgpServer speaker(Node node, String id) {
    BgpServer s = new BgpServer(179, 1, NamespaceThreads.factory(node, "bgp-io"));
    s.setLocalAs(65001);
    s.setRouterId(Ip.parseV4(id));
    s.start();
    return s;
  }

  @Test
  void anExaBgpThatOnlyConnectsEstablishesAndExchangesRoutes() throws Exception {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    Node exaNode = t.node("exa");
    t.link(sart, exaNode).addresses("192.0.2.1/30", "192.0.2.2/30");
    server = speaker(sart, "192.0.2.1");
    server.addPaths(List.of(Prefix.parse("203.0.113.0/24")), PathAttributes.of(Origin.IGP));
    Peer p =
        server.addPeer(
            SpeakerInteropTest.quick(PeerConfig.of(InetAddress.getByName("192.0.2.2"), 65002)));
    // nothing listens there: our connects are refused
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> String.valueOf(p.status().lastError()).startsWith("connect failed"));

    ExaBgp exa =
        new ExaBgp(
                exaNode,
                RouterConfig.of(65002, "192.0.2.2")
                    .neighbor(Neighbor.of("192.0.2.1", 65001))
                    .originate("198.51.100.0/24"))
            .withoutListening();
    exa.start();
    exa.awaitEstablished("192.0.2.1");
    await().atMost(Duration.ofSeconds(10)).until(() -> p.status().state() == State.ESTABLISHED);
    // ExaBGP's route reaches our RIB, ours reaches ExaBGP
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> server.rib().query(v -> v.route(Prefix.parse("198.51.100.0/24"))).join() != null);
    assertEquals(List.of(65001L), exa.awaitRoute("203.0.113.0/24").asPath());
    // the session is ExaBGP's connection: it never listened
    String listening = exaNode.exec("ss", "-Htln", "sport = :179");
    assertTrue(listening.isBlank(), listening);
  }

  /**
   * A raw client at a configured address, which does not listen (our connects to it are refused),
   * sends a bad header: it gets the Message Header Error of RFC 4271 §6.1, byte for byte, whether
   * the FSM took its connection (our OPEN comes first, the error in OpenSent) or was in Idle (the
   * connection is rejected, and what it sent read first). A client that sends nothing while the FSM
   * is in Idle gets Cease / Connection Rejected (RFC 4486 §4).
   */
  @Test
  void aBadHeaderGetsItsMessageHeaderErrorAndARejectedConnectionACease() throws Exception {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    Node client = t.node("client");
    t.link(sart, client).addresses("192.0.2.1/30", "192.0.2.2/30");
    clientSide = Executors.newSingleThreadExecutor(NamespaceThreads.factory(client, "raw-client"));
    server = speaker(sart, "192.0.2.1");
    Peer p =
        server.addPeer(
            SpeakerInteropTest.quick(PeerConfig.of(InetAddress.getByName("192.0.2.2"), 65002)));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> String.valueOf(p.status().lastError()).startsWith("connect failed"));

    String badMarker = "00000000000000000000000000000000" + "0013" + "04";
    String length18 = MARKER + "0012" + "04";
    String unknownType = MARKER + "0013" + "07";
    // RFC 4271 §6.1: 1/1 without data, 1/2 with the erroneous length, 1/3 with the erroneous type
    String notSynchronized = MARKER + "0015" + "03" + "0101";
    String badLength = MARKER + "0017" + "03" + "0102" + "0012";
    String badType = MARKER + "0016" + "03" + "0103" + "07";
    String connectionRejected = MARKER + "0015" + "03" + "0605";

    // waiting in Active after a failed connect: the connection is taken, OPEN, then the error;
    // each error sends the FSM to Idle for 1, 2, then 4 s (damped), and after that it connects,
    // fails, and waits in Active again
    await().atMost(Duration.ofSeconds(10)).until(() -> p.status().state() == State.ACTIVE);
    assertEquals(List.of("OPEN", notSynchronized), exchange(badMarker));
    await().atMost(Duration.ofSeconds(10)).until(() -> p.status().state() == State.ACTIVE);
    assertEquals(List.of("OPEN", badLength), exchange(length18));
    await().atMost(Duration.ofSeconds(10)).until(() -> p.status().state() == State.ACTIVE);
    assertEquals(List.of("OPEN", badType), exchange(unknownType));
    // now in Idle for 4 s (the FSM's state is published just after the close the client saw):
    // rejected, with the error the bytes deserve or the Cease, and no OPEN
    await().atMost(Duration.ofSeconds(1)).until(() -> p.status().state() == State.IDLE);
    assertEquals(List.of(connectionRejected), exchange(""));
    assertEquals(List.of(notSynchronized), exchange(badMarker));
    assertEquals(List.of(badLength), exchange(length18));
    assertEquals(List.of(badType), exchange(unknownType));
    assertEquals(State.IDLE, p.status().state(), "a rejected connection leaves the FSM alone");
  }

  /**
   * Connects from the client, sends {@code hex}, and reads until the connection closes: an OPEN
   * shows as "OPEN", anything else as its bytes in hex.
   */
  private List<String> exchange(String hex) throws Exception {
    return in(
        () -> {
          try (Socket s = new Socket(InetAddress.getByName("192.0.2.1"), 179)) {
            s.setSoTimeout(10_000);
            RawBgp.send(s, hex);
            return RawBgp.readUntilClosed(s);
          }
        });
  }

  private <T> T in(Callable<T> c) throws Exception {
    return clientSide.submit(c).get();
  }

  /**
   * 20 peers that cannot be reached: 10 without a route (the connect fails at once) and 10 on the
   * link that nobody answers ARP for (the connect gets no answer). Each is retried with a back-off
   * and its failures are logged once with the reason, then at the 2nd, 4th, 8th ... failure.
   *
   * <p>The issue asks for 60 s; this runs 20 s at a ConnectRetryTime of 1 s. What the number of
   * lines depends on is the number of back-off steps in the window (log2 of window ÷
   * ConnectRetryTime), and 20 s at 1 s holds more of them than 60 s at the default 10 s. Before the
   * change, each peer went Connect → Idle → Connect every second with two INFO lines each time:
   * ~800 lines in this window (~2,400 in 60 s); the bound here is 6 per peer.
   */
  @Test
  void twentyUnreachablePeersAreRetriedWithBackOffAndLoggedAtAFallingRate() throws Exception {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    Node other = t.node("other");
    t.link(sart, other).addresses("192.0.2.1/24", "192.0.2.2/24");
    server = speaker(sart, "192.0.2.1");

    List<String> addresses = new ArrayList<>();
    for (int i = 1; i <= 10; i++) {
      addresses.add("198.51.100." + i); // no route
      addresses.add("192.0.2." + (100 + i)); // on the link, nobody there
    }
    long start = System.nanoTime();
    for (String a : addresses) {
      server.addPeer(SpeakerInteropTest.quick(PeerConfig.of(InetAddress.getByName(a), 65002)));
    }
    Duration window = Duration.ofSeconds(20);
    // nothing to wait for but time itself: the peers stay down all along
    await()
        .during(window)
        .atMost(window.plusSeconds(5))
        .until(
            () ->
                server.peers().stream().noneMatch(pe -> pe.status().state() == State.ESTABLISHED));
    long elapsed = System.nanoTime() - start;

    List<LogRecord> all = bgpLog.records();
    List<LogRecord> logged = all.stream().filter(r -> r.getLevel().intValue() >= 800).toList();
    // every attempt that failed, logged or not (FINE), and how many in a row each peer reached
    Pattern failure = Pattern.compile("peer=(\\S+) event=connect-failed .* failed-in-a-row=(\\d+)");
    Map<String, Integer> failures = new HashMap<>();
    for (LogRecord r : all) {
      Matcher m = failure.matcher(r.getMessage() == null ? "" : r.getMessage());
      if (m.find()) {
        failures.merge(m.group(1), Integer.parseInt(m.group(2)), Math::max);
      }
    }
    String lines =
        String.join("\n", logged.stream().map(r -> r.getLevel() + " " + r.getMessage()).toList());
    assertEquals(20, failures.size(), () -> "every peer was tried and failed\n" + failures);
    for (var e : failures.entrySet()) {
      // 20 s at 1 s doubling: attempts at about 0, 1, 3, 7, 15 s (a connect without an answer
      // takes up to its ConnectRetryTimer on top): at least 3 failures, and without the back-off
      // there would be ~20
      assertTrue(
          e.getValue() >= 3 && e.getValue() <= 7, () -> e + " failures in " + elapsed / 1e9 + " s");
    }
    System.out.printf(
        "%d lines at INFO or above in %.1f s; failures in a row per peer: %s%n",
        logged.size(), elapsed / 1e9, failures);
    assertTrue(
        logged.size() <= 6 * 20,
        () -> logged.size() + " lines at INFO or above in " + elapsed / 1e9 + " s:\n" + lines);
  }
}
