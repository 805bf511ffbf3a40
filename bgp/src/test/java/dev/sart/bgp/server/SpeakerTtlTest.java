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
import dev.sart.testbed.Frr;
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
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * TTL handling against real daemons: GTSM (RFC 5082) with FRR's {@code ttl-security}, and eBGP
 * multihop across a router namespace that forwards between two links.
 */
class SpeakerTtlTest {
  /** The daemon's address when it is behind the router. */
  private static final String FAR = "198.51.100.2";

  /** The daemon's address on a link shared with us. */
  private static final String NEAR = "192.0.2.2";

  @RegisterExtension final Testbed testbed = new Testbed();
  private BgpServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  /**
   * sart 192.0.2.1/30 — router (192.0.2.2 | 198.51.100.1) — peer 198.51.100.2/30, forwarding on.
   */
  private Node routed() {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
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
    startServer(sart);
    return peer;
  }

  /** sart 192.0.2.1/30 and the peer 192.0.2.2/30 on one link. */
  private Node direct() {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    Node peer = t.node("peer");
    t.link(sart, peer).addresses("192.0.2.1/30", "192.0.2.2/30");
    startServer(sart);
    return peer;
  }

  private void startServer(Node sart) {
    server = new BgpServer(179, 1, NamespaceThreads.factory(sart, "bgp-io"));
    server.setLocalAs(65001);
    server.setRouterId(Ip.parseV4("192.0.2.1"));
    server.start();
  }

  private Peer addPeer(String address, int multihopTtl, boolean ttlSecurity) throws Exception {
    PeerConfig c = SpeakerInteropTest.quick(PeerConfig.of(InetAddress.getByName(address), 65002));
    return server.addPeer(c.toBuilder().multihopTtl(multihopTtl).ttlSecurity(ttlSecurity).build());
  }

  private static void awaitEstablished(Router r, Peer p) {
    r.awaitEstablished("192.0.2.1");
    await().atMost(Duration.ofSeconds(10)).until(() -> p.status().state() == State.ESTABLISHED);
  }

  /** Neither side reaches Established for several seconds (each retries every second meanwhile). */
  private static void awaitNoSession(Router r, Peer p) {
    await()
        .during(Duration.ofSeconds(6))
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                p.status().state() != State.ESTABLISHED
                    && r.sessionState("192.0.2.1") != SessionState.ESTABLISHED);
  }

  private Frr frr(Node node, String address, Neighbor toUs) {
    Frr f =
        new Frr(node, RouterConfig.of(65002, address).neighbor(toUs).originate("203.0.113.0/24"));
    f.start();
    return f;
  }

  @Test
  void gtsmSessionComesUpWithFrrOneHopAway() throws Exception {
    Frr frr = frr(direct(), NEAR, Neighbor.of("192.0.2.1", 65001));
    frr.vtysh("configure terminal", "router bgp 65002", "neighbor 192.0.2.1 ttl-security hops 1");
    Peer p = addPeer(NEAR, 0, true);
    awaitEstablished(frr, p);
    // FRR now drops what arrives with a TTL below 255: the session proves we send with 255
    server.addPaths(List.of(Prefix.parse("192.0.2.128/25")), PathAttributes.of(Origin.IGP));
    assertEquals(List.of(65001L), frr.awaitRoute("192.0.2.128/25").asPath());
  }

  @Test
  void gtsmRejectsAPeerOneHopFartherThanAllowed() throws Exception {
    Node peer = routed();
    Frr frr = frr(peer, FAR, Neighbor.of("192.0.2.1", 65001));
    frr.vtysh("configure terminal", "router bgp 65002", "neighbor 192.0.2.1 ttl-security hops 1");
    Peer p = addPeer(FAR, 0, true);
    awaitNoSession(frr, p);
    // the same two speakers allowing two hops: the session comes up, so GTSM was what kept it down
    server.deletePeer(InetAddress.getByName(FAR)).join();
    frr.vtysh("configure terminal", "router bgp 65002", "neighbor 192.0.2.1 ttl-security hops 2");
    Peer again = addPeer(FAR, 2, true);
    awaitEstablished(frr, again);
  }

  /**
   * FRR sends with TTL 255 but does not check what it receives: only our side can keep the session
   * down. It must do so from the SYN on (the listener's filter), not only once a connection exists.
   */
  @ParameterizedTest(name = "our GTSM alone drops a peer one hop too far, over {0}")
  @org.junit.jupiter.params.provider.ValueSource(strings = {"IPv4", "IPv6"})
  void ourGtsmAloneDropsAPeerOneHopFartherThanAllowed(String family) throws Exception {
    Node peer = routed();
    boolean v6 = family.equals("IPv6");
    String far = v6 ? "2001:db8:2::2" : FAR;
    String us = v6 ? "2001:db8:1::1" : "192.0.2.1";
    Frr frr = frr(peer, FAR, Neighbor.of(us, 65001).withMultihop(255));
    Peer p = addPeer(far, 0, true);
    await()
        .during(Duration.ofSeconds(6))
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                p.status().state() != State.ESTABLISHED
                    && frr.sessionState(us) != SessionState.ESTABLISHED);
    server.deletePeer(InetAddress.getByName(far)).join();
    Peer again = addPeer(far, 2, true);
    frr.awaitEstablished(us);
    await().atMost(Duration.ofSeconds(10)).until(() -> again.status().state() == State.ESTABLISHED);
  }

  @ParameterizedTest(name = "eBGP multihop with {0} across a router")
  @EnumSource(
      value = RouterKind.class,
      names = {"FRR", "BIRD", "GOBGP", "OPENBGPD"})
  void ebgpMultihopAcrossARouter(RouterKind kind) throws Exception {
    Node peer = routed();
    Router r =
        kind.create(
                peer,
                RouterConfig.of(65002, FAR)
                    .neighbor(Neighbor.of("192.0.2.1", 65001).withMultihop(2))
                    .originate("203.0.113.0/24"))
            .start();
    Peer p = addPeer(FAR, 2, false);
    awaitEstablished(r, p);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> server.rib().query(v -> v.route(Prefix.parse("203.0.113.0/24"))).join() != null);
    if (kind != RouterKind.BIRD) {
      // BIRD would need a route to our next hop in its own table to use the path
      server.addPaths(List.of(Prefix.parse("192.0.2.128/25")), PathAttributes.of(Origin.IGP));
      Route route = r.awaitRoute("192.0.2.128/25");
      assertEquals(List.of(65001L), route.asPath());
      assertTrue(route.nextHops().contains(dev.sart.net.Ip.parse("192.0.2.1")), route::toString);
    }
  }

  @Test
  void withoutMultihopOurTtlOfOneNeverCrossesTheRouter() throws Exception {
    Node peer = routed();
    Frr frr = frr(peer, FAR, Neighbor.of("192.0.2.1", 65001).withMultihop(2));
    Peer p = addPeer(FAR, 0, false);
    awaitNoSession(frr, p);
  }
}
