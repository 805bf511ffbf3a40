package dev.sart.bgp.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.fsm.State;
import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.LocalPref;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.PathAttributes;
import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.Route;
import dev.sart.testbed.Router;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.RouterKind;
import dev.sart.testbed.SessionState;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The session options of issue 4's interop matrix against each of FRR, BIRD, GoBGP and OpenBGPD.
 * Each check uses one small topology and, where two variants fit, runs them side by side: one over
 * IPv4, the other over IPv6 (two sessions between the same two namespaces). The daemon's own CLI
 * and our peer status are the oracles.
 */
class SpeakerOptionsInteropTest {
  private static final String US_V4 = "192.0.2.1";
  private static final String US_V6 = "2001:db8::1";
  private static final String THEM_V4 = "192.0.2.2";
  private static final String THEM_V6 = "2001:db8::2";

  @RegisterExtension final Testbed testbed = new Testbed();
  private BgpServer server;
  private Node sart;
  @RegisterExtension final LogCapture peerLog = new LogCapture(Peer.class.getName());

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  /**
   * sart (192.0.2.1/30, 2001:db8::1/64) and the daemon's node on one link; our server runs as
   * {@code localAs}.
   */
  private Node direct(long localAs) {
    Topology t = testbed.topology();
    sart = t.node("sart");
    Node peer = t.node("peer");
    t.link(sart, peer)
        .addresses(US_V4 + "/30", THEM_V4 + "/30")
        .addresses(US_V6 + "/64", THEM_V6 + "/64");
    startServer(localAs);
    return peer;
  }

  /** sart 192.0.2.1/30 — router (forwarding) — daemon 198.51.100.2/30, and the same in IPv6. */
  private Node routed() {
    Topology t = testbed.topology();
    sart = t.node("sart");
    Node router = t.node("router");
    Node peer = t.node("peer");
    t.link(sart, router)
        .addresses("192.0.2.1/30", "192.0.2.2/30")
        .addresses("2001:db8:1::1/64", "2001:db8:1::2/64");
    t.link(router, peer)
        .addresses("198.51.100.1/30", "198.51.100.2/30")
        .addresses("2001:db8:2::1/64", "2001:db8:2::2/64");
    router.exec("sysctl", "-q", "-w", "net.ipv4.ip_forward=1");
    router.exec("sysctl", "-q", "-w", "net.ipv6.conf.all.forwarding=1");
    sart.route("198.51.100.0/30", "192.0.2.2");
    peer.route("192.0.2.0/30", "198.51.100.1");
    sart.route("2001:db8:2::/64", "2001:db8:1::2");
    peer.route("2001:db8:1::/64", "2001:db8:2::1");
    startServer(65001);
    return peer;
  }

  private void startServer(long localAs) {
    server = new BgpServer(179, 1, NamespaceThreads.factory(sart, "bgp-io"));
    server.setLocalAs(localAs);
    server.setRouterId(Ip.parseV4("192.0.2.1"));
    server.start();
  }

  private Peer ours(String address, long asn, UnaryOperator<PeerConfig> options) throws Exception {
    return server.addPeer(
        options.apply(
            SpeakerInteropTest.quick(PeerConfig.of(InetAddress.getByName(address), asn))));
  }

  private static PeerConfig password(PeerConfig c, String secret) {
    return c.toBuilder().password(secret).build();
  }

  private static PeerConfig passive(PeerConfig c) {
    return c.toBuilder().passive(true).build();
  }

  private static PeerConfig gtsm(PeerConfig c, int hops) {
    return c.toBuilder().multihopTtl(hops).ttlSecurity(true).build();
  }

  private static PeerConfig multihop(PeerConfig c, int ttl) {
    return c.toBuilder().multihopTtl(ttl).ttlSecurity(false).build();
  }

  private static void awaitEstablished(Router r, String us, Peer p) {
    r.awaitEstablished(us);
    await().atMost(Duration.ofSeconds(20)).until(() -> p.status().state() == State.ESTABLISHED);
  }

  /** Neither side reaches Established for several seconds while both retry every second. */
  private static void awaitNoSession(Router r, String us, Peer p) {
    await()
        .during(Duration.ofSeconds(5))
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                p.status().state() != State.ESTABLISHED
                    && r.sessionState(us) != SessionState.ESTABLISHED);
    assertNotEquals(State.ESTABLISHED, p.status().state());
  }

  private boolean inOurRib(String prefix) {
    return server.rib().query(v -> v.route(Prefix.parse(prefix))).join() != null;
  }

  /**
   * Our established BGP connections as {@code ss} prints them: local address:port, peer
   * address:port.
   */
  private List<String[]> ourConnections() {
    List<String[]> out = new ArrayList<>();
    for (String line :
        sart.exec("ss", "-Htn", "state", "established", "( sport = :179 or dport = :179 )")
            .lines()
            .toList()) {
      String[] f = line.trim().split("\\s+");
      if (f.length >= 4) {
        out.add(new String[] {f[f.length - 2], f[f.length - 1]});
      }
    }
    return out;
  }

  @ParameterizedTest(
      name =
          "an iBGP session with {0} exchanges IPv4 and IPv6 routes and carries LOCAL_PREF both ways")
  @EnumSource(
      value = RouterKind.class,
      names = {"FRR", "BIRD", "GOBGP", "OPENBGPD"})
  void ibgpCarriesLocalPref(RouterKind kind) throws Exception {
    Node peer = direct(65001);
    Peer v4 = ours(THEM_V4, 65001, c -> c);
    Peer v6 = ours(THEM_V6, 65001, c -> c);
    Router r =
        kind.create(
                peer,
                RouterConfig.of(65001, THEM_V4)
                    .neighbor(Neighbor.of(US_V4, 65001))
                    .neighbor(Neighbor.of(US_V6, 65001))
                    .originate("198.51.100.0/24", "2001:db8:2::/48"))
            .start();
    awaitEstablished(r, US_V4, v4);
    awaitEstablished(r, US_V6, v6);
    server.addPaths(
        List.of(Prefix.parse("203.0.113.0/24"), Prefix.parse("2001:db8:1::/48")),
        PathAttributes.of(Origin.IGP, new LocalPref(250)));

    for (String prefix : List.of("203.0.113.0/24", "2001:db8:1::/48")) {
      Route route = r.awaitRoute(prefix);
      assertEquals(List.of(), route.asPath(), () -> "iBGP: no AS prepended " + route);
      assertEquals(250, route.localPref().orElseThrow(), route::toString);
    }
    for (String prefix : List.of("198.51.100.0/24", "2001:db8:2::/48")) {
      await().atMost(Duration.ofSeconds(20)).until(() -> inOurRib(prefix));
      // every one of the four sends LOCAL_PREF to an internal peer, its default 100 here (RFC 4271
      // §5.1.5)
      long lp =
          server
              .rib()
              .query(v -> v.route(Prefix.parse(prefix)).paths().getFirst().attrs().localPref())
              .join();
      assertEquals(100, lp, prefix);
    }
  }

  @ParameterizedTest(
      name =
          "with {0}, a TCP MD5 session comes up with the right password and stays down with a wrong one")
  @EnumSource(
      value = RouterKind.class,
      names = {"FRR", "BIRD", "GOBGP", "OPENBGPD"})
  void md5RightAndWrong(RouterKind kind) throws Exception {
    Node peer = direct(65001);
    Peer right = ours(THEM_V4, 65002, c -> password(c, "s3cret"));
    Peer wrong = ours(THEM_V6, 65002, c -> password(c, "s3cret"));
    Router r =
        kind.create(
                peer,
                RouterConfig.of(65002, THEM_V4)
                    .neighbor(Neighbor.of(US_V4, 65001).withPassword("s3cret"))
                    .neighbor(Neighbor.of(US_V6, 65001).withPassword("not-the-secret"))
                    .originate("198.51.100.0/24"))
            .start();
    awaitEstablished(r, US_V4, right);
    await().atMost(Duration.ofSeconds(20)).until(() -> inOurRib("198.51.100.0/24"));
    awaitNoSession(r, US_V6, wrong);
  }

  @ParameterizedTest(name = "with {0}, either side can be the passive one")
  @EnumSource(
      value = RouterKind.class,
      names = {"FRR", "BIRD", "GOBGP", "OPENBGPD"})
  void passiveBothWays(RouterKind kind) throws Exception {
    Node peer = direct(65001);
    // IPv4: we wait, the daemon connects. IPv6: the daemon waits, we connect.
    Peer weWait = ours(THEM_V4, 65002, SpeakerOptionsInteropTest::passive);
    Peer weConnect = ours(THEM_V6, 65002, c -> c);
    Router r =
        kind.create(
                peer,
                RouterConfig.of(65002, THEM_V4)
                    .neighbor(Neighbor.of(US_V4, 65001))
                    .neighbor(Neighbor.of(US_V6, 65001).asPassive()))
            .start();
    awaitEstablished(r, US_V4, weWait);
    awaitEstablished(r, US_V6, weConnect);
    List<String[]> conns = ourConnections();
    assertEquals(2, conns.size(), () -> conns.stream().map(List::of).toList().toString());
    for (String[] c : conns) {
      boolean v6 = c[0].contains("2001:db8");
      // who connected shows in the ports: the side that accepted has port 179 locally
      assertEquals(!v6, c[0].endsWith(":179"), () -> List.of(c).toString());
      assertEquals(v6, c[1].endsWith(":179"), () -> List.of(c).toString());
    }
  }

  /**
   * GTSM (RFC 5082) across one router, the daemon allowing two hops (it accepts TTL 254 and up) on
   * both sessions. IPv4: our GTSM, we connect and send with TTL 255 (254 on arrival): the session
   * comes up. IPv6, we only listen: with our GTSM the session comes up too, so the SYN-ACK the
   * kernel sends from our listening socket (before the accepted one gets its own TTL) leaves with
   * TTL 255 as well (it left with 64 before: BIRD, GoBGP and OpenBGPD dropped it). Then the same
   * IPv6 neighbour again with plain multihop, TTL 2 (1 on arrival): the session stays down, which
   * shows that the daemon does check. (A daemon allowing one hop would not tell: BIRD and FRR do
   * not even try a single-hop eBGP neighbour that is not on a connected network.)
   */
  @ParameterizedTest(
      name =
          "GTSM with {0} across a router: up when we send TTL 255, connecting or listening, down with TTL 2")
  @EnumSource(
      value = RouterKind.class,
      names = {"FRR", "BIRD", "GOBGP", "OPENBGPD"})
  void gtsmAcrossARouter(RouterKind kind) throws Exception {
    Node peer = routed();
    Peer weConnect = ours("198.51.100.2", 65002, c -> gtsm(c, 2));
    Peer weListen = ours("2001:db8:2::2", 65002, c -> passive(gtsm(c, 2)));
    Router r =
        kind.create(
                peer,
                RouterConfig.of(65002, "198.51.100.2")
                    .neighbor(Neighbor.of(US_V4, 65001).withTtlSecurity(2))
                    .neighbor(Neighbor.of("2001:db8:1::1", 65001).withTtlSecurity(2))
                    .originate("203.0.113.0/24"))
            .start();
    awaitEstablished(r, US_V4, weConnect);
    awaitEstablished(r, "2001:db8:1::1", weListen);
    await().atMost(Duration.ofSeconds(20)).until(() -> inOurRib("203.0.113.0/24"));

    if (kind == RouterKind.BIRD) {
      // BIRD 2.0.12 let this IPv6 session (its GTSM, our TTL 2) come up in a clean-clone CI run
      // (2026-11-21 12:15 UTC), after refusing it in every run before: its IPv6 check is not
      // dependable, so the refusal is not asserted against BIRD (bgp/docs/interop.md, notes)
      return;
    }
    server.deletePeer(InetAddress.getByName("2001:db8:2::2")).join();
    Peer ttl2 = ours("2001:db8:2::2", 65002, c -> passive(multihop(c, 2)));
    awaitNoSession(r, "2001:db8:1::1", ttl2);
  }

  /**
   * RFC 4271 §6.8 with BIRD, GoBGP and OpenBGPD (FRR: {@link SpeakerCollisionTest}, which also
   * checks which connection wins). Both connections are made to exist before either side has read
   * an OPEN: the daemon's SYNs to us are dropped (nftables in our namespace), so its connection
   * attempt hangs in SYN-SENT; we freeze all its processes (SIGSTOP), add it (our connection waits
   * in its kernel's backlog with our OPEN), let its SYN through (the kernel's retransmission
   * completes it while the daemon is still frozen) and let the daemon run again: it finds two
   * connections with an OPEN on each. Exactly one session survives, Established on both sides and
   * staying so; with BIRD we see the collision and the connection opened by the higher BGP
   * Identifier is the one that stays.
   */
  @ParameterizedTest(name = "a connection collision with {0} leaves exactly one session")
  @EnumSource(
      value = RouterKind.class,
      names = {"BIRD", "GOBGP", "OPENBGPD"})
  void collision(RouterKind kind) throws Exception {
    Node peer = direct(65001);
    sart.exec("nft", "add table inet collision");
    sart.exec("nft", "add chain inet collision in { type filter hook input priority 0; }");
    sart.exec(
        "nft",
        "add rule inet collision in ip saddr " + THEM_V4 + " tcp dport 179 tcp flags syn drop");
    Router r =
        kind.create(
                peer,
                RouterConfig.of(65002, THEM_V4)
                    .neighbor(Neighbor.of(US_V4, 65001))
                    .originate("198.51.100.0/24"))
            .start();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                peer.exec("ss", "-Htn", "state", "syn-sent", "( dport = :179 )")
                    .contains(US_V4 + ":179"));
    List<String> pids = new ArrayList<>();
    for (var p : r.processes()) {
      pids.add(Long.toString(p.pid()));
      ProcessHandle.of(p.pid())
          .ifPresent(h -> h.descendants().forEach(d -> pids.add(Long.toString(d.pid()))));
    }
    signal(peer, "-STOP", pids);
    Peer p;
    try {
      p = ours(THEM_V4, 65002, c -> c);
      await().atMost(Duration.ofSeconds(5)).until(() -> p.status().state() == State.OPEN_SENT);
      sart.exec("nft", "delete table inet collision");
      // the daemon's SYN is retransmitted 1, 3, 7 s after its first: its connection completes
      await().atMost(Duration.ofSeconds(10)).until(() -> ourConnections().size() == 2);
    } finally {
      signal(peer, "-CONT", pids);
    }
    awaitEstablished(r, US_V4, p);
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                p.status().state() == State.ESTABLISHED
                    && r.sessionState(US_V4) == SessionState.ESTABLISHED);
    assertEquals(0, p.status().flaps());
    List<String[]> conns = ourConnections();
    assertEquals(1, conns.size(), () -> conns.stream().map(List::of).toList().toString());
    await().atMost(Duration.ofSeconds(20)).until(() -> inOurRib("198.51.100.0/24"));
    if (kind == RouterKind.BIRD) {
      // BIRD reads both OPENs: we see the collision, and RFC 4271 §6.8 decides. Our BGP Identifier
      // 192.0.2.1 is the lower, so the daemon's connection stays: the one on which we have port 179
      assertTrue(
          peerLog.messages().stream().anyMatch(m -> m.contains("event=collision")),
          () -> peerLog.messages().toString());
      assertTrue(conns.getFirst()[0].endsWith(":179"), () -> List.of(conns.getFirst()).toString());
    }
    // GoBGP and OpenBGPD do not always send an OPEN on both connections (seen in our log and in
    // OpenBGPD's): whether we then see a collision, and which connection carries the session,
    // depends on their timing and is not asserted
  }

  private static void signal(Node node, String signal, List<String> pids) {
    List<String> argv = new ArrayList<>(List.of("kill", signal));
    argv.addAll(pids);
    node.exec(argv.toArray(String[]::new));
  }
}
