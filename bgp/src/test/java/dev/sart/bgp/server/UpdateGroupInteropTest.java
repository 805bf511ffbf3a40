package dev.sart.bgp.server;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.fsm.State;
import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.MultiExitDisc;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.PathAttributes;
import dev.sart.proto.v1.BgpApiGrpc;
import dev.sart.proto.v1.GetNeighborRequest;
import dev.sart.testbed.Bird;
import dev.sart.testbed.Frr;
import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.Programs;
import dev.sart.testbed.Route;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Update groups against FRR, FRR's CLI as the oracle. Three members of AS 65002, each on its own
 * link, over IPv4 and IPv6; an origin in AS 65010:
 *
 * <pre>
 *   O: FRR AS 65010 --- sart AS 65001 --- M1, M2, M3: FRR AS 65002
 *   192.0.2.2, 2001:db8::2     192.0.2.(4i+1), 2001:db8:0:i::1 on link i
 * </pre>
 *
 * <p>The members' IPv4 sessions export alike and so do their IPv6 sessions: each set is one group,
 * whose UPDATEs are encoded once and sent to each member with its own next hop (our address on its
 * link, RFC 4271 §5.1.3). Routes the origin announces after the groups formed must reach each
 * member with that member's next hop; a member that asks for a route refresh leaves its group and
 * comes back; a member that goes leaves the others unharmed.
 */
class UpdateGroupInteropTest {
  @RegisterExtension final Testbed testbed = new Testbed();
  private BgpServer server;
  private InProcessApi api;

  @AfterEach
  void stop() {
    if (api != null) {
      api.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private static String v4Self(int member) {
    return "192.0.2." + (4 * member + 1);
  }

  private static String v6Self(int member) {
    return "2001:db8:0:" + member + "::1";
  }

  /**
   * Member {@code i} (1..3) holds {@code prefix} with our address on its link as the next hop,
   * AS_PATH 65001 65010.
   */
  private static void assertFromUs(Frr member, int i, String prefix) throws Exception {
    Route r = member.awaitRoute(prefix);
    String self = prefix.contains(":") ? v6Self(i) : v4Self(i);
    assertTrue(r.nextHops().contains(dev.sart.net.Ip.parse(self)), () -> "member " + i + ": " + r);
    assertEquals(List.of(65001L, 65010L), r.asPath(), r::toString);
  }

  @Test
  void membersGetTheGroupsUpdatesWithTheirOwnNextHop() throws Exception {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    Node oNode = t.node("o");
    t.link(sart, oNode)
        .addresses("192.0.2.1/30", "192.0.2.2/30")
        .addresses("2001:db8::1/64", "2001:db8::2/64");
    List<Node> memberNodes = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      Node m = t.node("m" + i);
      t.link(sart, m)
          .addresses(v4Self(i) + "/30", "192.0.2." + (4 * i + 2) + "/30")
          .addresses(v6Self(i) + "/64", "2001:db8:0:" + i + "::2/64");
      memberNodes.add(m);
    }

    startSpeaker(sart, "192.0.2.1");
    addPeer("192.0.2.2", 65010);
    addPeer("2001:db8::2", 65010);
    Frr o =
        Frr.withoutZebra(
            oNode,
            RouterConfig.of(65010, "192.0.2.2")
                .neighbor(Neighbor.of("192.0.2.1", 65001))
                .neighbor(Neighbor.of("2001:db8::1", 65001))
                .originate("198.51.100.0/24", "2001:db8:100::/48"));
    o.start();
    List<Frr> members = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      addPeer("192.0.2." + (4 * i + 2), 65002);
      addPeer("2001:db8:0:" + i + "::2", 65002);
      Frr m =
          Frr.withoutZebra(
              memberNodes.get(i - 1),
              RouterConfig.of(65002, "192.0.2." + (4 * i + 2))
                  .neighbor(Neighbor.of(v4Self(i), 65001))
                  .neighbor(Neighbor.of(v6Self(i), 65001)));
      m.start();
      members.add(m);
    }
    for (int i = 1; i <= 3; i++) {
      members.get(i - 1).awaitEstablished(v4Self(i)).awaitEstablished(v6Self(i));
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> server.peers().stream().allMatch(p -> p.status().state() == State.ESTABLISHED));

    // the first table goes to each session on its own; then the sessions that export alike join
    for (int i = 1; i <= 3; i++) {
      assertFromUs(members.get(i - 1), i, "198.51.100.0/24");
      assertFromUs(members.get(i - 1), i, "2001:db8:100::/48");
    }
    // the origin's two sessions (AS 65010) are groups of one; the members' are two groups of three
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> server.updateGroups().sizes(), equalTo(List.of(1, 1, 3, 3)));
    // as the API shows them (GetNeighbor): one group for the IPv4 sessions, another for the IPv6
    api = InProcessApi.serve(server);
    BgpApiGrpc.BgpApiBlockingStub stub = api.stub();
    List<dev.sart.proto.v1.Peer> v4 = new ArrayList<>();
    List<dev.sart.proto.v1.Peer> v6 = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      v4.add(
          stub.getNeighbor(
                  GetNeighborRequest.newBuilder().setAddr("192.0.2." + (4 * i + 2)).build())
              .getPeer());
      v6.add(
          stub.getNeighbor(
                  GetNeighborRequest.newBuilder().setAddr("2001:db8:0:" + i + "::2").build())
              .getPeer());
    }
    for (List<dev.sart.proto.v1.Peer> family : List.of(v4, v6)) {
      assertTrue(family.getFirst().getUpdateGroup() != 0, family.getFirst()::toString);
      for (dev.sart.proto.v1.Peer p : family) {
        assertEquals(family.getFirst().getUpdateGroup(), p.getUpdateGroup(), p::toString);
        assertEquals(3, p.getUpdateGroupMembers(), p::toString);
      }
    }
    assertTrue(v4.getFirst().getUpdateGroup() != v6.getFirst().getUpdateGroup());
    int origin =
        stub.getNeighbor(GetNeighborRequest.newBuilder().setAddr("192.0.2.2").build())
            .getPeer()
            .getUpdateGroupMembers();
    assertEquals(1, origin, "the origin exports to another AS: a group of its own");

    // routes announced now are encoded once per group: each member must see its own next hop
    o.announce("203.0.113.0/24");
    o.announce("2001:db8:200::/48");
    for (int i = 1; i <= 3; i++) {
      assertFromUs(members.get(i - 1), i, "203.0.113.0/24");
      assertFromUs(members.get(i - 1), i, "2001:db8:200::/48");
    }

    // M2 asks for its IPv4 routes again (RFC 2918): it leaves its group for that, and rejoins
    members.get(1).vtysh("clear bgp ipv4 unicast " + v4Self(2) + " soft in");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> server.updateGroups().sizes(), equalTo(List.of(1, 1, 3, 3)));
    assertFromUs(members.get(1), 2, "198.51.100.0/24");
    assertFromUs(members.get(1), 2, "203.0.113.0/24");
    o.withdraw("203.0.113.0/24");
    for (Frr m : members) {
      m.awaitNoRoute("203.0.113.0/24");
    }
    assertEquals(
        State.ESTABLISHED, server.peer(InetAddress.getByName("192.0.2.10")).status().state());

    // M3 goes: the other two stay in their groups and keep getting routes, with their next hops
    members.get(2).stop();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> server.updateGroups().sizes(), equalTo(List.of(1, 1, 2, 2)));
    assertEquals(
        2,
        stub.getNeighbor(GetNeighborRequest.newBuilder().setAddr("192.0.2.6").build())
            .getPeer()
            .getUpdateGroupMembers());
    assertEquals(
        0,
        stub.getNeighbor(GetNeighborRequest.newBuilder().setAddr("192.0.2.14").build())
            .getPeer()
            .getUpdateGroup(),
        "a session that is down is in no group");
    o.announce("198.51.100.128/25");
    o.withdraw("2001:db8:200::/48");
    for (int i = 1; i <= 2; i++) {
      assertFromUs(members.get(i - 1), i, "198.51.100.128/25");
      members.get(i - 1).awaitNoRoute("2001:db8:200::/48");
      assertFromUs(members.get(i - 1), i, "2001:db8:100::/48");
    }
  }

  /** Our speaker (AS 65001) in {@code node}, listening. */
  private void startSpeaker(Node node, String routerId) {
    server = new BgpServer(179, 1, NamespaceThreads.factory(node, "bgp-io"));
    server.setLocalAs(65001);
    server.setRouterId(Ip.parseV4(routerId));
    server.start();
  }

  private void addPeer(String address, long asn) throws Exception {
    server.addPeer(SpeakerInteropTest.quick(PeerConfig.of(InetAddress.getByName(address), asn)));
  }

  /** BIRD's own count of the routes in its table ({@code show route count}). */
  private static long birdCount(Bird bird) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("(\\d+) of (\\d+) routes")
            .matcher(bird.birdc("show route count"));
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }

  private static void signal(Bird bird, String sig) throws Exception {
    long pid = bird.processes().getFirst().pid();
    assertEquals(
        0,
        Programs.processBuilder("kill", "-" + sig, Long.toString(pid))
            .inheritIO()
            .start()
            .waitFor());
  }

  /**
   * Flow control against real peers: one member of a group of two stops reading (its BIRD is
   * stopped with SIGSTOP, so the kernel's buffers and then our channel fill). The other must still
   * get every route: the stuck member is made to leave the group, and once it reads again it gets
   * them from its own Adj-RIB-Out and joins again.
   */
  @Test
  void aMemberThatStopsReadingDoesNotHoldTheOtherUp() throws Exception {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    Node n1 = t.node("m1");
    Node n2 = t.node("m2");
    t.link(sart, n1).addresses("192.0.2.5/30", "192.0.2.6/30");
    t.link(sart, n2).addresses("192.0.2.9/30", "192.0.2.10/30");
    startSpeaker(sart, "192.0.2.5");
    addPeer("192.0.2.6", 65002);
    addPeer("192.0.2.10", 65002);
    Bird m1 =
        new Bird(n1, RouterConfig.of(65002, "192.0.2.6").neighbor(Neighbor.of("192.0.2.5", 65001)));
    Bird m2 =
        new Bird(
            n2, RouterConfig.of(65002, "192.0.2.10").neighbor(Neighbor.of("192.0.2.9", 65001)));
    m1.start();
    m2.start();
    m1.awaitEstablished("192.0.2.5");
    m2.awaitEstablished("192.0.2.9");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> server.updateGroups().sizes(), equalTo(List.of(2)));

    signal(m2, "STOP");
    try {
      // one UPDATE per route (a MED each): many more than the group's queue and the socket buffers
      // hold
      int routes = 60_000;
      for (int i = 0; i < routes; i++) {
        server.addPaths(
            List.of(Prefix.v4(0xC6120000 | i, 32)),
            PathAttributes.of(Origin.IGP, new MultiExitDisc(i)));
      }
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> birdCount(m1) == routes);
      assertEquals(List.of(1), server.updateGroups().sizes(), "the stuck member left the group");
    } finally {
      signal(m2, "CONT");
    }
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> birdCount(m2) == 60_000);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> server.updateGroups().sizes(), equalTo(List.of(2)));
    assertEquals(
        State.ESTABLISHED, server.peer(InetAddress.getByName("192.0.2.10")).status().state());
  }
}
