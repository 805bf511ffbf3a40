package dev.sart.bgp.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.wire.Ip;
import dev.sart.proto.v1.AddPathRequest;
import dev.sart.proto.v1.DeletePathRequest;
import dev.sart.proto.v1.GetNeighborPathRequest;
import dev.sart.proto.v1.Path;
import dev.sart.proto.v1.Policy;
import dev.sart.proto.v1.PolicyStatement;
import dev.sart.proto.v1.SetNeighborPolicyRequest;
import dev.sart.proto.v1.SetPolicyRequest;
import dev.sart.testbed.Family;
import dev.sart.testbed.Frr;
import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.Route;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The agent's export-policy churn (testbed/cluster/README.md, "Found": a ToR kept a withdrawn /32):
 * a prefix is announced and withdrawn while the per-peer export policies that say which peer gets
 * it are redefined again and again, each call on its own thread as the agent's gRPC calls come in,
 * with no wait between them. Every redefinition makes the peer leave its update group and, once its
 * own Adj-RIB-Out has caught up, join one again. After each round the speaker's Adj-RIB-Out of each
 * peer ({@code GetNeighborPath OUT}) and FRR's own table must be the Loc-RIB filtered by that
 * peer's last policy.
 */
class ExportPolicyChurnTest {
  private static final int ROUNDS = 120;
  private static final String[] PEERS = {"192.0.2.2", "192.0.2.6"};

  /** Routes that every peer gets (no policy looks at them), added and withdrawn during a round. */
  private static final AddPathRequest OTHERS_ADD;

  private static final DeletePathRequest OTHERS_DELETE;

  static {
    AddPathRequest.Builder add = AddPathRequest.newBuilder().setFamily(InProcessApi.IPV4);
    DeletePathRequest.Builder delete = DeletePathRequest.newBuilder().setFamily(InProcessApi.IPV4);
    for (int i = 0; i < 256; i++) {
      add.addPrefixes("198.51.100." + i + "/32");
      delete.addPrefixes("198.51.100." + i + "/32");
    }
    OTHERS_ADD = add.build();
    OTHERS_DELETE = delete.build();
  }

  @RegisterExtension final Testbed testbed = new Testbed();
  private BgpServer server;
  private InProcessApi api;
  private final ExecutorService callers = Executors.newFixedThreadPool(4);

  @AfterEach
  void stop() {
    callers.shutdownNow();
    if (api != null) {
      api.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /**
   * The agent's shape of a peer's export policy (kube-agent {@code ExportPolicies}): accept exactly
   * the peer's targets, reject every other /32 of 203.0.113.0/24, accept the rest.
   */
  private static Policy policy(int peer, Set<String> targets) {
    Policy.Builder b = Policy.newBuilder().setName("export-" + peer).setDefaultReject(false);
    if (!targets.isEmpty()) {
      PolicyStatement.Builder s = PolicyStatement.newBuilder();
      targets.forEach(c -> s.addPrefixList("permit " + c));
      b.addStatements(s);
    }
    b.addStatements(
        PolicyStatement.newBuilder().addPrefixList("permit 203.0.113.0/24 le 32").setReject(true));
    return b.build();
  }

  private void define(int peer, Set<String> targets) {
    api.stub().setPolicy(SetPolicyRequest.newBuilder().setPolicy(policy(peer, targets)).build());
  }

  private Set<String> adjRibOut(String peer) {
    return api
        .stub()
        .getNeighborPath(
            GetNeighborPathRequest.newBuilder()
                .setKind(GetNeighborPathRequest.Kind.OUT)
                .setAddr(peer)
                .setFamily(InProcessApi.IPV4)
                .build())
        .getPathsList()
        .stream()
        .map(Path::getNlri)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static Set<String> frrTable(Frr frr) {
    return frr.routes(Family.IPV4_UNICAST).stream()
        .map(Route::prefix)
        .map(Object::toString)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /** What {@code have} lacks and what it has too many of, against {@code want} ("": nothing). */
  private static String difference(Set<String> want, Set<String> have) {
    Set<String> missing = new TreeSet<>(want);
    missing.removeAll(have);
    Set<String> extra = new TreeSet<>(have);
    extra.removeAll(want);
    return missing.isEmpty() && extra.isEmpty() ? "" : "missing " + missing + ", extra " + extra;
  }

  @Test
  void withdrawalsReachEveryPeerWhileItsExportPolicyChanges() throws Exception {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    List<Frr> frrs = new ArrayList<>();
    for (int i = 0; i < PEERS.length; i++) {
      Node n = t.node("tor" + i);
      String self = "192.0.2." + (4 * i + 1);
      t.link(sart, n).addresses(self + "/30", PEERS[i] + "/30");
      frrs.add(
          Frr.withoutZebra(
              n, RouterConfig.of(65002 + i, PEERS[i]).neighbor(Neighbor.of(self, 65001))));
    }
    server = new BgpServer(179, 1, NamespaceThreads.factory(sart, "bgp-io"));
    server.setLocalAs(65001);
    server.setRouterId(Ip.parseV4("192.0.2.1"));
    server.start();
    api = InProcessApi.serve(server);
    List<Set<String>> targets = List.of(new TreeSet<>(), new TreeSet<>());
    for (int i = 0; i < PEERS.length; i++) {
      define(i, targets.get(i));
      server.addPeer(
          SpeakerInteropTest.quick(PeerConfig.of(InetAddress.getByName(PEERS[i]), 65002 + i)));
      api.stub()
          .setNeighborPolicy(
              SetNeighborPolicyRequest.newBuilder()
                  .setAddr(PEERS[i])
                  .setExportPolicy("export-" + i)
                  .build());
      frrs.get(i).start();
    }
    for (int i = 0; i < PEERS.length; i++) {
      frrs.get(i).awaitEstablished("192.0.2." + (4 * i + 1));
    }

    Random random = new Random(20);
    Set<String> announced = new TreeSet<>();
    for (int round = 0; round < ROUNDS; round++) {
      String x = "203.0.113." + (round % 250 + 1) + "/32";
      boolean withdraw = random.nextBoolean();
      // each peer's policy is redefined 2 to 5 times, X in and out of its targets, ending either
      List<List<Boolean>> flips = new ArrayList<>();
      for (int i = 0; i < PEERS.length; i++) {
        List<Boolean> f = new ArrayList<>();
        int n = 2 + random.nextInt(4);
        for (int k = 0; k < n; k++) {
          f.add(k % 2 == 0);
        }
        if (random.nextBoolean()) {
          f.add(!f.getLast());
        }
        flips.add(f);
      }
      CountDownLatch go = new CountDownLatch(1);
      List<Future<?>> calls = new ArrayList<>();
      calls.add(
          callers.submit(
              () -> {
                go.await();
                api.stub()
                    .addPath(
                        AddPathRequest.newBuilder()
                            .setFamily(InProcessApi.IPV4)
                            .addPrefixes(x)
                            .build());
                if (withdraw) {
                  api.stub()
                      .deletePath(
                          DeletePathRequest.newBuilder()
                              .setFamily(InProcessApi.IPV4)
                              .addPrefixes(x)
                              .build());
                }
                return null;
              }));
      for (int i = 0; i < PEERS.length; i++) {
        int peer = i;
        Set<String> mine = targets.get(i);
        calls.add(
            callers.submit(
                () -> {
                  go.await();
                  for (boolean in : flips.get(peer)) {
                    Set<String> next = new TreeSet<>(mine);
                    if (in) {
                      next.add(x);
                    } else {
                      next.remove(x);
                    }
                    define(peer, next);
                  }
                  return null;
                }));
      }
      // other routes come and go meanwhile, so the speaker's event loop has the sessions' UPDATEs
      // to send between the tasks these calls queue on it, as a node's speaker has
      java.util.concurrent.atomic.AtomicBoolean busy =
          new java.util.concurrent.atomic.AtomicBoolean(true);
      Future<?> others =
          callers.submit(
              () -> {
                go.await();
                while (busy.get()) {
                  api.stub().addPath(OTHERS_ADD);
                  api.stub().deletePath(OTHERS_DELETE);
                }
                return null;
              });
      go.countDown();
      for (Future<?> c : calls) {
        c.get();
      }
      busy.set(false);
      others.get();
      if (withdraw) {
        announced.remove(x);
      } else {
        announced.add(x);
      }
      for (int i = 0; i < PEERS.length; i++) {
        if (flips.get(i).getLast()) {
          targets.get(i).add(x);
        } else {
          targets.get(i).remove(x);
        }
      }
      for (int i = 0; i < PEERS.length; i++) {
        Set<String> want = new TreeSet<>(announced);
        want.retainAll(targets.get(i));
        int peer = i;
        String why =
            "round " + round + ", peer " + PEERS[i] + ", X " + x + " withdrawn " + withdraw;
        assertEquals(
            "", difference(want, adjRibOut(PEERS[i])), "the speaker's Adj-RIB-Out: " + why);
        await(why)
            .atMost(Duration.ofSeconds(10))
            .pollInterval(Duration.ofMillis(50))
            .untilAsserted(() -> assertEquals("", difference(want, frrTable(frrs.get(peer)))));
      }
    }
  }
}
