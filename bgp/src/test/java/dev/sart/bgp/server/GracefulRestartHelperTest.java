package dev.sart.bgp.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.fsm.State;
import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.PathAttributes;
import dev.sart.testbed.Frr;
import dev.sart.testbed.ManagedProcess;
import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * RFC 4724 §4.2 with FRR restarting gracefully ({@code bgp graceful-restart}, forwarding state
 * kept): when its bgpd dies, its routes stay in our RIB, stale, as our API shows them, with the
 * best path never withdrawn; when it comes back, what it sends again replaces them and its
 * End-of-RIB removes the rest; if it stays away longer than its restart time, they go.
 */
class GracefulRestartHelperTest {
  @RegisterExtension final Testbed testbed = new Testbed();
  private BgpServer server;
  private InProcessApi api;
  private Node peerNode;
  private Peer peer;
  private Withdrawals withdrawn;
  @RegisterExtension final LogCapture peerLog = new LogCapture(Peer.class.getName());

  @AfterEach
  void stop() {
    if (api != null) {
      api.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /** The Loc-RIB as the API lists it: prefix, the peer each path came from, and "stale". */
  private List<String> locRib() {
    return api.ipv4Paths().stream()
        .map(p -> p.getNlri() + " from " + p.getPeerAddr() + (p.getStale() ? " stale" : ""))
        .sorted()
        .toList();
  }

  /** FRR's 198.51.100.0/25 and our own 203.0.113.0/24, fresh. */
  private static final List<String> ONE_FROM_FRR =
      List.of("198.51.100.0/25 from 192.0.2.2", "203.0.113.0/24 from ");

  private void awaitLocRib(List<String> expected) {
    await().atMost(Duration.ofSeconds(10)).until(() -> locRib().equals(expected));
  }

  private Frr frrUp(int restartTime, String... originate) throws Exception {
    return frrUp(restartTime, false, originate);
  }

  /** {@code notification}: our capability carries RFC 8538's N bit. */
  private Frr frrUp(int restartTime, boolean notification, String... originate) throws Exception {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    peerNode = t.node("peer");
    t.link(sart, peerNode).addresses("192.0.2.1/30", "192.0.2.2/30");
    server = new BgpServer(179, 1, NamespaceThreads.factory(sart, "bgp-io"));
    server.setLocalAs(65001);
    server.setRouterId(Ip.parseV4("192.0.2.1"));
    server.start();
    withdrawn = Withdrawals.of(server.rib()); // what the FIB would be told
    api = InProcessApi.serve(server);
    Frr frr = new Frr(peerNode, config(originate)).withGracefulRestart(restartTime);
    frr.start();
    peer =
        server.addPeer(
            SpeakerInteropTest.quick(PeerConfig.of(InetAddress.getByName("192.0.2.2"), 65002))
                .toBuilder()
                .gracefulRestart(
                    new PeerConfig.GracefulRestart(true, Duration.ofSeconds(120), notification))
                .build());
    server.addPaths(List.of(Prefix.parse("203.0.113.0/24")), PathAttributes.of(Origin.IGP));
    frr.awaitEstablished("192.0.2.1");
    frr.awaitRoute("203.0.113.0/24");
    return frr;
  }

  private static RouterConfig config(String... originate) {
    return RouterConfig.of(65002, "192.0.2.2")
        .neighbor(Neighbor.of("192.0.2.1", 65001))
        .originate(originate);
  }

  private static double staleGauge(io.micrometer.core.instrument.MeterRegistry r, String afi) {
    return r.get("sart.bgp.graceful.restart.stale")
        .tag("peer", "192.0.2.2")
        .tag("afi", afi)
        .gauge()
        .value();
  }

  /** SIGKILL: no NOTIFICATION, the kernel closes the connection. */
  private void kill(Frr frr) {
    for (ManagedProcess proc : frr.processes()) {
      ProcessHandle.of(proc.pid()).ifPresent(ProcessHandle::destroyForcibly);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> peer.status().state() != State.ESTABLISHED);
  }

  @Test
  void aRestartingFrrsRoutesStayStaleUntilItsEndOfRib() throws Exception {
    Frr frr = frrUp(120, "198.51.100.0/25", "198.51.100.128/25");
    List<String> fresh =
        List.of(
            "198.51.100.0/25 from 192.0.2.2",
            "198.51.100.128/25 from 192.0.2.2",
            "203.0.113.0/24 from ");
    await().atMost(Duration.ofSeconds(10)).until(() -> locRib().equals(fresh));

    kill(frr);
    List<String> stale =
        List.of(
            "198.51.100.0/25 from 192.0.2.2 stale",
            "198.51.100.128/25 from 192.0.2.2 stale",
            "203.0.113.0/24 from ");
    await("kept, stale").atMost(Duration.ofSeconds(5)).until(() -> locRib().equals(stale));
    // sart_bgp_graceful_restart_stale{afi="ipv4"}: 1 while the helper keeps them
    io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
        new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    dev.sart.bgp.metrics.BgpMetrics metrics = new dev.sart.bgp.metrics.BgpMetrics(server, registry);
    metrics.refresh();
    assertEquals(1.0, staleGauge(registry, "ipv4"));
    assertEquals(0.0, staleGauge(registry, "ipv6"));
    await("still kept while FRR is away")
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .until(() -> locRib().equals(stale));

    // FRR comes back without 198.51.100.128/25: it sends /25 .0 again, which replaces the stale
    // path, and its End-of-RIB removes the other long before the restart time (120 s)
    Frr again = new Frr(peerNode, config("198.51.100.0/25")).withGracefulRestart(120);
    again.start();
    again.awaitEstablished("192.0.2.1");
    await("after FRR's End-of-RIB")
        .atMost(Duration.ofSeconds(20))
        .until(() -> locRib().equals(ONE_FROM_FRR));
    // nothing was withdrawn before FRR's End-of-RIB (FRR 8.4, not restarting as far as it knows,
    // may send its End-of-RIB before its own routes: then the route sent again comes back right
    // after it, as FRR as a helper would do too)
    long endOfRib = endOfRibAt();
    assertTrue(endOfRib > 0, "FRR's End-of-RIB was seen");
    metrics.refresh();
    assertEquals(0.0, staleGauge(registry, "ipv4"), "no stale routes after the End-of-RIB");
    assertTrue(
        withdrawn.times().stream().allMatch(w -> w >= endOfRib),
        () -> "withdrawn before the End-of-RIB at " + endOfRib + ": " + withdrawn.times());
    assertTrue(withdrawn.contains("198.51.100.128/25"), withdrawn.prefixes()::toString);
    assertEquals(1, again.awaitRoute("203.0.113.0/24").asPath().size());
  }

  @Test
  void aPeerAwayLongerThanItsRestartTimeLosesItsRoutes() throws Exception {
    Frr frr = frrUp(5, "198.51.100.0/25");
    awaitLocRib(ONE_FROM_FRR);
    long killed = System.nanoTime();
    long killedAt = System.currentTimeMillis();
    kill(frr);
    await("kept for the restart time")
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(4))
        .until(
            () ->
                locRib()
                    .equals(
                        List.of("198.51.100.0/25 from 192.0.2.2 stale", "203.0.113.0/24 from ")));
    await("flushed once the restart time (5 s) ran out")
        .atMost(Duration.ofSeconds(10))
        .until(() -> locRib().equals(List.of("203.0.113.0/24 from ")));
    double after = (System.nanoTime() - killed) / 1e9;
    assertTrue(after >= 4.5, () -> "flushed after " + after + " s, before the restart time");
    assertEquals(List.of("198.51.100.0/25"), withdrawn.prefixes());
    // the routes went with the restart timer, not with an End-of-RIB (one may have come before
    // the kill: a session that lost a connection collision comes back as a restart)
    assertTrue(endOfRibAt() < killedAt, () -> "an End-of-RIB after the kill at " + killedAt);
  }

  /**
   * RFC 8538: both sides sent the N bit, so FRR's Cease / Administrative Reset (sent as such once
   * {@code no bgp hard-administrative-reset}) ends the session as a restart would: its routes stay
   * with us, stale, and are never withdrawn, until its new session's End-of-RIB. FRR saw our N bit.
   */
  @Test
  void withTheNBitAResetThatIsNotHardKeepsThePeersRoutes() throws Exception {
    Frr frr = frrUp(120, true, "198.51.100.0/25");
    awaitLocRib(ONE_FROM_FRR);
    InetAddress us = InetAddress.getByName("192.0.2.1");
    assertTrue(
        frr.neighbor(us).path("gracefulRestartInfo").path("nBit").asBoolean(),
        () -> "FRR saw no N bit: " + frr.neighbor(us).path("gracefulRestartInfo"));
    frr.vtysh("configure", "router bgp 65002", "no bgp hard-administrative-reset");
    long reset = System.currentTimeMillis();
    frr.vtysh("clear bgp 192.0.2.1");
    await("a new session after the reset")
        .atMost(Duration.ofSeconds(20))
        .until(() -> endOfRibAt() > reset && peer.status().state() == State.ESTABLISHED);
    awaitLocRib(ONE_FROM_FRR);
    assertTrue(logged("event=notification-received error=\"Cease / Administrative Reset (6/4)\""));
    assertTrue(logged("event=graceful-restart-helper"), "kept as a restart's");
    assertEquals(List.of(), withdrawn.prefixes(), "nothing withdrawn across the reset");
  }

  /**
   * RFC 8538 §3, with the N bit on both sides: FRR's reset is a Hard Reset by default ({@code bgp
   * hard-administrative-reset}), so its routes go at once; and a peer we stop gets a Hard Reset
   * from us, which FRR reports as such.
   */
  @Test
  void aHardResetEitherWayEndsTheSessionForGood() throws Exception {
    Frr frr = frrUp(120, true, "198.51.100.0/25");
    awaitLocRib(ONE_FROM_FRR);
    frr.vtysh("clear bgp 192.0.2.1");
    await("withdrawn at once")
        .atMost(Duration.ofSeconds(5))
        .until(() -> withdrawn.contains("198.51.100.0/25"));
    assertTrue(
        logged(
            "event=notification-received error=\"Cease / Hard Reset (6/9) of Cease /"
                + " Administrative Reset (6/4)\""),
        "the Hard Reset and what it carries are logged");
    assertFalse(logged("event=graceful-restart-helper"));
    await().atMost(Duration.ofSeconds(20)).until(() -> peer.status().state() == State.ESTABLISHED);

    peer.stop().get(10, java.util.concurrent.TimeUnit.SECONDS);
    InetAddress us = InetAddress.getByName("192.0.2.1");
    await("FRR got a Hard Reset")
        .atMost(Duration.ofSeconds(10))
        .until(() -> frr.neighbor(us).path("lastNotificationHardReset").asBoolean());
    assertTrue(
        logged(
            "event=notification-sent error=\"Cease / Hard Reset (6/9) of Cease /"
                + " Administrative Shutdown (6/2)\""));
    frr.awaitNoRoute("203.0.113.0/24");
  }

  private boolean logged(String text) {
    return peerLog.records().stream().anyMatch(r -> String.valueOf(r.getMessage()).contains(text));
  }

  /** When the last {@code event=end-of-rib} was logged (epoch ms), 0 if never. */
  private long endOfRibAt() {
    return peerLog.records().stream()
        .filter(r -> String.valueOf(r.getMessage()).contains("event=end-of-rib"))
        .mapToLong(LogRecord::getMillis)
        .max()
        .orElse(0);
  }
}
