package dev.sart.bgp.server;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import dev.sart.bgp.fsm.State;
import dev.sart.bgp.peer.Peer;
import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Ip;
import dev.sart.net.IpPrefix;
import dev.sart.proto.v1.AddressFamily;
import dev.sart.proto.v1.GetPathByPrefixRequest;
import dev.sart.testbed.Bird;
import dev.sart.testbed.ExaBgp;
import dev.sart.testbed.Frr;
import dev.sart.testbed.GoBgp;
import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.Route;
import dev.sart.testbed.Router;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ADD-PATH (RFC 7911) against FRR, GoBGP and BIRD, each one's own CLI as the oracle. Three FRR
 * origins in AS 65002..65004 announce one prefix to us (AS 65001); three receivers take several
 * paths per prefix from us:
 *
 * <pre>
 *   o2: FRR 65002 ─┐                  ┌─ r1: FRR 65011   (all paths)
 *   o3: FRR 65003 ─┼─ sart AS 65001 ──┼─ r2: GoBGP 65012 (all paths)
 *   o4: FRR 65004 ─┘                  └─ r3: BIRD 65013  (the best 2)
 * </pre>
 *
 * <p>Each receiver must hold the prefix three times (twice for BIRD, sent the best two), with the
 * AS_PATHs 65001 6500x; when o3 withdraws it, only the path through 65003 goes, and the others
 * stay. A receiver without ADD-PATH would have one path: the test fails without the capability.
 */
class AddPathInteropTest {
  private static final String PREFIX = "203.0.113.0/24";

  @RegisterExtension final Testbed testbed = new Testbed();
  private BgpServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void everyPathReachesTheReceiversAndAWithdrawalTakesOnlyItsOwn() throws Exception {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    List<Router> origins = new ArrayList<>();
    List<Peer> peers = new ArrayList<>();
    server = new BgpServer(179, 1, NamespaceThreads.factory(sart, "bgp-io"));
    server.setLocalAs(65001);
    server.setRouterId(Ip.parseV4("192.0.2.1"));
    server.start();
    for (int i = 0; i < 3; i++) {
      long as = 65002 + i;
      String ours = "192.0.2." + (4 * i + 1);
      String theirs = "192.0.2." + (4 * i + 2);
      Node n = t.node("o" + as % 10);
      t.link(sart, n).addresses(ours + "/30", theirs + "/30");
      Frr o =
          Frr.withoutZebra(
              n, RouterConfig.of(as, theirs).neighbor(Neighbor.of(ours, 65001)).originate(PREFIX));
      o.start();
      origins.add(o);
      peers.add(
          server.addPeer(
              SpeakerInteropTest.quick(PeerConfig.of(InetAddress.getByName(theirs), as))));
    }
    List<Router> receivers = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      long as = 65011 + i;
      String ours = "198.51.100." + (4 * i + 1);
      String theirs = "198.51.100." + (4 * i + 2);
      Node n = t.node("r" + (i + 1));
      t.link(sart, n).addresses(ours + "/30", theirs + "/30");
      RouterConfig rc =
          RouterConfig.of(as, theirs).neighbor(Neighbor.of(ours, 65001).withAddPathReceive());
      Router r =
          switch (i) {
            case 0 -> Frr.withoutZebra(n, rc);
            case 1 -> new GoBgp(n, rc);
            default -> new Bird(n, rc);
          };
      r.start();
      receivers.add(r);
      PeerConfig c =
          SpeakerInteropTest.quick(PeerConfig.of(InetAddress.getByName(theirs), as)).toBuilder()
              .addPath(
                  new PeerConfig.AddPath(
                      Set.of(), Set.of(Family.IPV4_UNICAST), r instanceof Bird ? 2 : 0))
              .build();
      peers.add(server.addPeer(c));
    }
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> peers.stream().allMatch(p -> p.status().state() == State.ESTABLISHED));

    // every receiver: one path per origin, each with its origin's AS behind ours (BIRD: the best
    // two, the lowest router ids 192.0.2.2 and .6 winning the tie-break of RFC 4271 §9.1.2.2)
    Set<List<Long>> all =
        Set.of(List.of(65001L, 65002L), List.of(65001L, 65003L), List.of(65001L, 65004L));
    for (Router r : receivers) {
      Set<List<Long>> want =
          r instanceof Bird ? Set.of(List.of(65001L, 65002L), List.of(65001L, 65003L)) : all;
      await(r + " has every path")
          .atMost(Duration.ofSeconds(30))
          .until(() -> asPaths(r).equals(want));
    }

    // o3 withdraws: the path through 65003 goes from every receiver, the others stay; BIRD, sent
    // the best two, gets 65004's path in its place
    origins.get(1).withdraw(PREFIX);
    Set<List<Long>> left = Set.of(List.of(65001L, 65002L), List.of(65001L, 65004L));
    for (Router r : receivers) {
      await(r + " lost only 65003's path")
          .atMost(Duration.ofSeconds(30))
          .until(() -> asPaths(r).equals(left));
    }
    for (Router r : receivers) {
      await(r + " keeps the two")
          .during(Duration.ofSeconds(2))
          .atMost(Duration.ofSeconds(5))
          .until(() -> asPaths(r).equals(left));
    }
    // and back: the path comes again under an identifier free at the receiver
    origins.get(1).announce(PREFIX);
    for (Router r : receivers) {
      Set<List<Long>> want =
          r instanceof Bird ? Set.of(List.of(65001L, 65002L), List.of(65001L, 65003L)) : all;
      await(r + " has every path again")
          .atMost(Duration.ofSeconds(30))
          .until(() -> asPaths(r).equals(want));
    }
  }

  /**
   * Receiving: an aggregator (FRR, GoBGP or BIRD in AS 65020) learns the prefix from two FRR
   * origins and sends us both paths with ADD-PATH (FRR {@code addpath-tx-all-paths}, GoBGP {@code
   * send-max}, BIRD {@code add paths tx}); our API shows two paths of that one peer under two
   * distinct Path Identifiers (RFC 7911 §3), and one origin's withdrawal takes only its path (§5).
   * Without receiving negotiated the aggregator would send one path: the test fails then.
   */
  @ParameterizedTest
  @ValueSource(strings = {"frr", "gobgp", "bird"})
  void severalPathsFromOnePeerAreShownApartByTheirIdentifiers(String daemon) throws Exception {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    Node agg = t.node("agg");
    t.link(sart, agg).addresses("192.0.2.1/30", "192.0.2.2/30");
    server = new BgpServer(179, 1, NamespaceThreads.factory(sart, "bgp-io"));
    server.setLocalAs(65001);
    server.setRouterId(Ip.parseV4("192.0.2.1"));
    server.start();
    RouterConfig aggConfig =
        RouterConfig.of(65020, "192.0.2.2")
            .neighbor(Neighbor.of("192.0.2.1", 65001).withAddPathSend());
    List<Router> origins = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      long as = 65002 + i;
      String ours = "198.51.100." + (4 * i + 1);
      String theirs = "198.51.100." + (4 * i + 2);
      Node n = t.node("o" + as % 10);
      t.link(agg, n).addresses(ours + "/30", theirs + "/30");
      aggConfig = aggConfig.neighbor(Neighbor.of(theirs, as));
      // ExaBGP: an origin that never sends back what it learns. An FRR origin sends the other
      // origin's path back after its own withdrawal (an implicit withdrawal that the AS loop makes
      // unusable), which GoBGP 3.10 ignores: it keeps the withdrawn path and sends no withdrawal.
      ExaBgp o =
          new ExaBgp(
              n, RouterConfig.of(as, theirs).neighbor(Neighbor.of(ours, 65020)).originate(PREFIX));
      o.start();
      origins.add(o);
    }
    Router aggregator =
        switch (daemon) {
          case "frr" -> Frr.withoutZebra(agg, aggConfig);
          case "gobgp" -> new GoBgp(agg, aggConfig);
          default -> new Bird(agg, aggConfig);
        };
    aggregator.start();
    Peer p =
        server.addPeer(
            SpeakerInteropTest.quick(PeerConfig.of(InetAddress.getByName("192.0.2.2"), 65020))
                .toBuilder()
                .addPath(new PeerConfig.AddPath(Set.of(Family.IPV4_UNICAST), Set.of(), 0))
                .build());
    await().atMost(Duration.ofSeconds(60)).until(() -> p.status().state() == State.ESTABLISHED);
    try (InProcessApi api = InProcessApi.serve(server)) {
      await(daemon + ": two paths from the one peer")
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> apiPaths(api).equals(Set.of(List.of(65020L, 65002L), List.of(65020L, 65003L))));
      origins.get(1).withdraw(PREFIX);
      await(daemon + ": only 65003's path went")
          .atMost(Duration.ofSeconds(30))
          .until(() -> apiPaths(api), equalTo(Set.of(List.of(65020L, 65002L))));
      await(daemon + ": 65002's path stays")
          .during(Duration.ofSeconds(2))
          .atMost(Duration.ofSeconds(5))
          .until(() -> apiPaths(api), equalTo(Set.of(List.of(65020L, 65002L))));
    }
  }

  /**
   * The AS_PATHs of the prefix's paths as sart's API shows them ({@code GetPathByPrefix}, what
   * {@code sart bgp global rib get} prints), all from 192.0.2.2; two paths under one Path
   * Identifier, or one without, add a marker that no expected set holds.
   */
  private static Set<List<Long>> apiPaths(InProcessApi api) {
    List<dev.sart.proto.v1.Path> paths =
        api.stub()
            .getPathByPrefix(
                GetPathByPrefixRequest.newBuilder()
                    .setPrefix(PREFIX)
                    .setFamily(
                        AddressFamily.newBuilder()
                            .setAfi(AddressFamily.Afi.AFI_IP4)
                            .setSafi(AddressFamily.Safi.SAFI_UNICAST))
                    .build())
            .getPathsList();
    Set<List<Long>> out = new HashSet<>();
    Set<Integer> ids = new HashSet<>();
    for (dev.sart.proto.v1.Path path : paths) {
      List<Long> asns = new ArrayList<>();
      path.getSegmentsList().forEach(s -> s.getElmList().forEach(a -> asns.add((long) a)));
      out.add(asns);
      if (path.getPathId() == 0 || !path.getPeerAddr().equals("192.0.2.2")) {
        out.add(List.of(-1L));
      }
      ids.add(path.getPathId());
    }
    if (ids.size() != paths.size()) {
      out.add(List.of(-2L)); // two paths under one identifier
    }
    return out;
  }

  /**
   * The AS_PATHs of the receiver's paths for the prefix, as its CLI shows them; a path listed twice
   * makes the set one larger than any expected one.
   */
  private static Set<List<Long>> asPaths(Router r) {
    Set<List<Long>> out = new java.util.HashSet<>();
    List<Route> routes = r.routes(IpPrefix.parse(PREFIX));
    for (Route route : routes) {
      out.add(route.asPath());
    }
    if (out.size() != routes.size()) {
      out.add(List.of(-1L)); // a duplicate
    }
    return out;
  }
}
