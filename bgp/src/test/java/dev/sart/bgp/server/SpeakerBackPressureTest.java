package dev.sart.bgp.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.fsm.State;
import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Ip;
import dev.sart.net.IpPrefix;
import dev.sart.testbed.Frr;
import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.SessionState;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Read back-pressure against FRR with a 3 s hold time: the RIB thread is kept busy for 12 s while
 * FRR withdraws routes, so the connection stops reading (for up to 5 s at a time). Our hold timer
 * must not count the time we did not read: the session stays up on both sides, and the withdrawals
 * are applied once the RIB goes on.
 */
class SpeakerBackPressureTest {
  @RegisterExtension final Testbed testbed = new Testbed();
  private BgpServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void aPauseLongerThanTheHoldTimeKeepsTheSession() throws Exception {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    Node peer = t.node("peer");
    t.link(sart, peer).addresses("192.0.2.1/30", "192.0.2.2/30");
    server = new BgpServer(179, 1, NamespaceThreads.factory(sart, "bgp-io"));
    server.setLocalAs(65001);
    server.setRouterId(Ip.parseV4("192.0.2.1"));
    server.start();
    server.rib().setBackPressure(1, 0); // pause as soon as more than one prefix waits for the RIB
    Frr frr =
        new Frr(
            peer,
            RouterConfig.of(65002, "192.0.2.2")
                .neighbor(Neighbor.of("192.0.2.1", 65001))
                .originate(
                    "198.51.100.0/26",
                    "198.51.100.64/26",
                    "198.51.100.128/26",
                    "198.51.100.192/26"));
    frr.start();
    PeerConfig c = PeerConfig.of(InetAddress.getByName("192.0.2.2"), 65002);
    // hold time 3 s (FRR agrees to the smaller one and sends a KEEPALIVE every second)
    Peer p =
        server.addPeer(
            c.toBuilder()
                .holdTime(Duration.ofSeconds(3))
                .keepaliveTime(null)
                .connectRetryTime(Duration.ofSeconds(1))
                .families(Set.of(Family.IPV4_UNICAST))
                .build());
    frr.awaitEstablished("192.0.2.1");
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> server.rib().query(v -> v.size()).join() == 4);
    assertEquals(Duration.ofSeconds(3), p.status().holdTime());

    CountDownLatch release = new CountDownLatch(1);
    server
        .rib()
        .query(
            v -> {
              try {
                return release.await(60, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    for (String gone : new String[] {"198.51.100.0/26", "198.51.100.64/26", "198.51.100.128/26"}) {
      frr.withdraw(IpPrefix.parse(gone));
    }
    await().atMost(Duration.ofSeconds(20)).until(() -> server.rib().queuedPrefixes() >= 2);
    // four hold times with the RIB behind and reading paused: the session stays up on both sides
    InetAddress us = InetAddress.getByName("192.0.2.1");
    await("the session stays Established while the RIB is held")
        .during(Duration.ofSeconds(12))
        .atMost(Duration.ofSeconds(14))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () ->
                p.status().state() == State.ESTABLISHED
                    && p.status().flaps() == 0
                    && frr.sessionState(us) == SessionState.ESTABLISHED);
    release.countDown();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> server.rib().query(v -> v.size()).join() == 1);
    assertTrue(server.rib().query(v -> v.route(Prefix.parse("198.51.100.192/26"))).join() != null);
    assertEquals(0, p.status().flaps());
    assertEquals(State.ESTABLISHED, p.status().state());
  }
}
