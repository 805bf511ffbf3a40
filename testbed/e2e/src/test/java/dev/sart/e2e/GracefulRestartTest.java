package dev.sart.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.fib.netlink.Family;
import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.Netns;
import dev.sart.fib.netlink.Route;
import dev.sart.fib.netlink.RouteFilter;
import dev.sart.proto.v1.AddPathRequest;
import dev.sart.proto.v1.AddressFamily;
import dev.sart.proto.v1.BgpApiGrpc;
import dev.sart.proto.v1.BgpInfo;
import dev.sart.proto.v1.GetBgpInfoRequest;
import dev.sart.proto.v1.LocalPathsCompleteRequest;
import dev.sart.testbed.Frr;
import dev.sart.testbed.ManagedProcess;
import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.Shell;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * RFC 4724 §4.1 end to end: {@code sartd bgp} and {@code sartd fib} are killed with SIGKILL (a
 * node's crash or an upgrade) and started again while a client behind FRR pings an address sart
 * announced. sart plays the agent: it originates its addresses over the API and says when they are
 * all back ({@code LocalPathsComplete}). The client's replies leave sart by the route to the
 * client's network that sart learned from FRR and {@code sartd fib} installed: that route must stay
 * in the kernel across the restart, as FRR must keep sart's route (stale) until sart's End-of-RIB.
 */
class GracefulRestartTest {
  private static final String ADDRESS = "203.0.113.10";
  private static final String GONE = "203.0.113.11";
  private static final String CLIENTS = "198.51.100.0/24";

  @RegisterExtension final Testbed testbed = new Testbed();

  private static final String FIB_CONFIG =
      """
      channels:
        - name: bgp-to-kernel
          ip_version: ipv4
          subscribers: [{protocol: bgp, endpoint: 127.0.0.1:5000}]
          publishers: [{protocol: kernel, tables: [254]}]
      """;

  private Node sart;
  private Node client;
  private Frr frr;
  private Path config;
  private CompletableFuture<FibNode> fib;

  /** sart — tor (FRR, forwarding) — client; sart's addresses on its loopback. */
  private void build(int restartTime) throws IOException {
    build(restartTime, false);
  }

  /** As {@link #build(int)}; with {@code bfd}, BFD 100 ms × 3 on both sides (FRR's bfdd). */
  private void build(int restartTime, boolean bfd) throws IOException {
    Topology t = testbed.topology();
    sart = t.node("sart");
    Node tor = t.node("tor");
    client = t.node("client");
    t.link(sart, tor).addresses("192.0.2.1/24", "192.0.2.10/24");
    t.link(client, tor).addresses("198.51.100.2/24", "198.51.100.1/24");
    tor.exec("sysctl", "-q", "-w", "net.ipv4.ip_forward=1");
    client.route("203.0.113.0/24", "198.51.100.1");
    sart.address("lo", ADDRESS + "/32");
    sart.address("lo", GONE + "/32");
    config = sart.dir().resolve("sartd.yaml");
    Files.writeString(
        config,
        """
        asn: 65001
        router_id: 192.0.2.1
        neighbors:
          - {asn: 65000, address: 192.0.2.10, graceful_restart: {restart_time: %d}%s}
        """
            .formatted(restartTime, bfd ? ", bfd: {min_tx: 100, min_rx: 100, multiplier: 3}" : ""));
    // FRR installs what it learns (zebra), so the client's packets reach sart through it
    frr =
        new Frr(
                tor,
                RouterConfig.of(65000, "192.0.2.10")
                    .neighbor(Neighbor.of("192.0.2.1", 65001))
                    .originate(CLIENTS))
            .withGracefulRestart(120);
    if (bfd) {
      frr.withBfd(100, 100, 3);
    }
    frr.start();
  }

  /**
   * The speaker and the FIB as {@code sartd node} runs them, the speaker waiting for its agent; the
   * FIB is ready (reconciled) only once the speaker's restart is complete, hence in the background.
   */
  private SartdNode startSart(String name) {
    SartdNode s =
        SartdNode.startAs(
            sart,
            name,
            "-f",
            config.toString(),
            "--graceful-restart",
            "--await-local-paths",
            "--warmup",
            "0");
    fib =
        CompletableFuture.supplyAsync(
            () -> FibNode.start(sart, FIB_CONFIG, name + "-fib"), r -> Thread.ofVirtual().start(r));
    return s;
  }

  /** What the agent does after each start of the speaker: its paths, then that they are all. */
  private void originate(String... addresses) {
    api(
        stub -> {
          for (String a : addresses) {
            stub.addPath(
                AddPathRequest.newBuilder()
                    .setFamily(
                        AddressFamily.newBuilder()
                            .setAfi(AddressFamily.Afi.AFI_IP4)
                            .setSafi(AddressFamily.Safi.SAFI_UNICAST))
                    .addPrefixes(a + "/32")
                    .build());
          }
          stub.localPathsComplete(LocalPathsCompleteRequest.getDefaultInstance());
          return null;
        });
  }

  private BgpInfo info() {
    return api(stub -> stub.getBgpInfo(GetBgpInfoRequest.getDefaultInstance()).getInfo());
  }

  /**
   * A call of the speaker's API from inside its namespace: the socket is made on the thread that
   * starts the transport (with a direct executor, the caller's) and served by the loop's, both in
   * the namespace.
   */
  private <T> T api(java.util.function.Function<BgpApiGrpc.BgpApiBlockingStub, T> call) {
    java.util.concurrent.ExecutorService caller =
        java.util.concurrent.Executors.newSingleThreadExecutor(
            NamespaceThreads.factory(sart, "grpc-call"));
    try {
      return caller
          .submit(
              () -> {
                MultiThreadIoEventLoopGroup loop =
                    new MultiThreadIoEventLoopGroup(
                        1, NamespaceThreads.factory(sart, "grpc"), NioIoHandler.newFactory());
                ManagedChannel ch =
                    NettyChannelBuilder.forAddress("127.0.0.1", 5000)
                        .eventLoopGroup(loop)
                        .channelType(NioSocketChannel.class)
                        .directExecutor()
                        .usePlaintext()
                        .build();
                try {
                  return call.apply(
                      BgpApiGrpc.newBlockingStub(ch).withDeadlineAfter(20, TimeUnit.SECONDS));
                } finally {
                  ch.shutdownNow();
                  loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
                }
              })
          .get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (java.util.concurrent.ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e);
    } finally {
      caller.shutdownNow();
    }
  }

  /** Our route to the client's network in sart's main table, as sartd fib installed it. */
  private boolean clientsRouteInstalled() {
    try (Netns ns = Netns.named(sart.netns());
        Netlink nl = Netlink.open(ns)) {
      for (Route r :
          nl.routes().list(RouteFilter.ALL.family(Family.INET).table(254).protocol(186))) {
        if (r.destination().toString().equals(CLIENTS)) {
          return true;
        }
      }
    }
    return false;
  }

  /** FRR's paths for one of our /32s: {@code show bgp ipv4 unicast A/32 json}. */
  private JsonNode frrPaths(String address) throws IOException {
    return new ObjectMapper()
        .readTree(frr.vtysh("show bgp ipv4 unicast " + address + "/32 json"))
        .path("paths");
  }

  private boolean frrHas(String address) throws IOException {
    return !frrPaths(address).isEmpty();
  }

  private boolean frrStale(String address) throws IOException {
    JsonNode paths = frrPaths(address);
    return !paths.isEmpty() && paths.get(0).path("stale").asBoolean();
  }

  /** {@code ping -c count -i 0.1} from the client, in the background; its summary line. */
  private CompletableFuture<Shell.Result> ping(int count) {
    return CompletableFuture.supplyAsync(
        () -> client.tryExec("ping", "-n", "-c", "" + count, "-i", "0.1", "-W", "1", ADDRESS),
        r -> Thread.ofVirtual().start(r));
  }

  /**
   * {@code ping -i 0.1} from the client until {@link #summary} stops it with SIGINT (ping then
   * prints its statistics).
   */
  private ManagedProcess pingUntilStopped() {
    return client.spawn("ping", java.util.List.of("ping", "-n", "-i", "0.1", "-W", "1", ADDRESS));
  }

  private static int[] summary(ManagedProcess ping) throws IOException {
    Shell.run("kill", "-INT", Long.toString(ping.pid()));
    await().atMost(Duration.ofSeconds(10)).until(() -> !ping.isAlive());
    String out = Files.readString(ping.log());
    return sentAndReceived(out);
  }

  private static int[] sentAndReceived(String pingOutput) {
    Matcher m = Pattern.compile("(\\d+) packets transmitted, (\\d+) received").matcher(pingOutput);
    assertTrue(m.find(), () -> "ping printed no summary: " + pingOutput);
    return new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))};
  }

  /** SIGKILL to the speaker and the FIB (a crash), then their exit. */
  private static void kill(SartdNode s, Node node, String fibName) {
    stop(s, node, fibName, ProcessHandle::destroyForcibly);
  }

  /** SIGTERM to the speaker and the FIB (the kubelet's stop), then their exit. */
  private static void terminate(SartdNode s, Node node, String fibName) {
    stop(s, node, fibName, ProcessHandle::destroy);
  }

  private static void stop(
      SartdNode s, Node node, String fibName, java.util.function.Consumer<ProcessHandle> signal) {
    ProcessHandle.of(s.process.pid()).ifPresent(signal);
    node.topology().processes().stream()
        .filter(p -> p.name().equals(fibName))
        .forEach(p -> ProcessHandle.of(p.pid()).ifPresent(signal));
    await().atMost(Duration.ofSeconds(20)).until(() -> !s.process.isAlive());
  }

  @Test
  void aKilledSpeakerAndFibRestartWithoutLosingAPingAndEndOfRibWaitsForTheAgent() throws Exception {
    build(120);
    SartdNode first = startSart("sartd");
    originate(ADDRESS, GONE);
    frr.awaitRoute(ADDRESS + "/32");
    frr.awaitRoute(GONE + "/32");
    await("the client's network in sart's kernel")
        .atMost(Duration.ofSeconds(60))
        .until(this::clientsRouteInstalled);
    JsonNode neighbor =
        new ObjectMapper()
            .readTree(frr.vtysh("show bgp neighbors 192.0.2.1 json"))
            .path("192.0.2.1")
            .path("gracefulRestartInfo");
    // RFC 4724 §3 as FRR read our OPEN: Restart State set (this was a start), F bit for IPv4
    assertTrue(neighbor.path("rBit").asBoolean(), neighbor::toString);
    assertTrue(neighbor.path("ipv4Unicast").path("fBit").asBoolean(), neighbor::toString);

    fib.join();
    await("the client reaches our address")
        .atMost(Duration.ofSeconds(30))
        .until(() -> sentAndReceived(ping(1).join().stdout())[1] == 1);
    ManagedProcess pings = pingUntilStopped();
    ManagedProcess routes = watchRoutes();
    kill(first, sart, "sartd-fib");

    // FRR, the helper, keeps our routes, stale; the kernel keeps the route the FIB installed
    await("FRR marks our route stale")
        .atMost(Duration.ofSeconds(10))
        .until(() -> frrStale(ADDRESS));
    assertTrue(clientsRouteInstalled());

    SartdNode second = startSart("sartd-2");
    second.awaitEstablished("192.0.2.10");
    // the agent has not said its paths are back: no End-of-RIB, so FRR keeps both stale routes
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .until(() -> frrStale(ADDRESS) && frrStale(GONE) && clientsRouteInstalled());
    BgpInfo restarting = info();
    assertTrue(restarting.getRestarting());
    assertEquals(java.util.List.of("local paths"), restarting.getRestartWaitingForList());

    originate(ADDRESS); // GONE is not announced any more
    await("our End-of-RIB: the route sent again is fresh, the other one gone at FRR")
        .atMost(Duration.ofSeconds(30))
        .until(() -> frrHas(ADDRESS) && !frrStale(ADDRESS) && !frrHas(GONE));
    assertFalse(info().getRestarting());
    fib.join(); // reconciled after the speaker's restart: the route it kept is still there
    assertTrue(clientsRouteInstalled());

    int[] sr = summary(pings);
    assertEquals(sr[0], sr[1], "pings lost across the restart: " + (sr[0] - sr[1]));
    // FRR, started less than its restart time ago, sets its own Restart State bit and sends its
    // routes only after our End-of-RIB: the FIB must not reconcile them away meanwhile
    assertNeverDeleted(routes, "during the restart");
  }

  /**
   * What a rolling update of the DaemonSet does: the kubelet stops the speaker and the FIB with
   * SIGTERM, not SIGKILL. A restarting speaker (§4.1) that sent a NOTIFICATION as it stopped would
   * end the helper's part (§4.2 keeps routes only for a session that ended without one, RFC 8538
   * aside): FRR would drop our route at once and the client's packets with it. So the stop closes
   * the connection without one, as a crash would, and FRR keeps our route, stale, until we are
   * back. With BFD, our BFD session stops after the TCP close, silently as in a crash: FRR, helping
   * already when it sees it down, must keep helping (an AdminDown first made FRR 8.4 end the
   * session itself and drop our route).
   */
  @ParameterizedTest(name = "bfd={0}")
  @ValueSource(booleans = {false, true})
  void aSpeakerStoppedWithSigtermIsHelpedAsAKilledOneAndNoPingIsLost(boolean bfd) throws Exception {
    SartdNode first = startedWithOurRoute(120, bfd);
    if (bfd) {
      // FRR replaces its BFD session once its BGP session is up, which may flap that session once
      // (bgp/docs/bfd.md): settled when both stay up
      await("BFD up on both sides, the route at FRR")
          .atMost(Duration.ofSeconds(30))
          .during(Duration.ofSeconds(2))
          .until(
              () ->
                  "up".equals(frr.bfdState(java.net.InetAddress.getByName("192.0.2.1")))
                      && "up".equals(first.bfdState("192.0.2.10"))
                      && frrHas(ADDRESS));
    }
    await("the client reaches our address")
        .atMost(Duration.ofSeconds(30))
        .until(() -> sentAndReceived(ping(1).join().stdout())[1] == 1);
    ManagedProcess pings = pingUntilStopped();
    terminate(first, sart, "sartd-fib");
    assertTrue(
        Files.readString(first.process.log()).contains("event=stopping graceful-restart=true"),
        "the speaker logged that it stopped for a restart");
    await("FRR keeps our route, stale, while we are away")
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .until(() -> frrStale(ADDRESS) && clientsRouteInstalled());

    startSart("sartd-2");
    originate(ADDRESS);
    await("our End-of-RIB: the route fresh again at FRR")
        .atMost(Duration.ofSeconds(30))
        .until(() -> frrHas(ADDRESS) && !frrStale(ADDRESS));
    fib.join();
    int[] sr = summary(pings);
    assertEquals(sr[0], sr[1], "pings lost across the SIGTERM restart: " + (sr[0] - sr[1]));
  }

  @Test
  void aRestartLongerThanTheRestartTimeFlushesOurRoutesAtTheHelper() throws Exception {
    SartdNode first = startedWithOurRoute(5);
    kill(first, sart, "sartd-fib");
    // kept for our restart time (5 s), then gone
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(4))
        .until(() -> frrHas(ADDRESS));
    await("flushed after the restart time")
        .atMost(Duration.ofSeconds(10))
        .until(() -> !frrHas(ADDRESS));
    // and back once we are
    startSart("sartd-2");
    originate(ADDRESS);
    frr.awaitRoute(ADDRESS + "/32");
    fib.join();
    assertTrue(clientsRouteInstalled());
  }

  /**
   * The helper's side (RFC 4724 §4.2) down to the kernel: FRR restarting with graceful restart
   * (killed with SIGKILL) keeps its route in sart's kernel, through the FIB, until it is back; FRR
   * started again without that route: its End-of-RIB removes it from sart's kernel.
   */
  @Test
  void aRestartingFrrsRouteStaysInOurKernelUntilItsEndOfRib() throws Exception {
    startedWithOurRoute(120);
    await().atMost(Duration.ofSeconds(30)).until(this::clientsRouteInstalled);
    killFrr();
    await("FRR's route kept in our kernel while FRR is away")
        .during(Duration.ofSeconds(5))
        .atMost(Duration.ofSeconds(7))
        .until(this::clientsRouteInstalled);
    Frr again = startFrrAgain(RouterConfig.of(65000, "192.0.2.10"));
    again.awaitRoute(ADDRESS + "/32");
    await("FRR's End-of-RIB: the route it did not send again leaves our kernel")
        .atMost(Duration.ofSeconds(30))
        .until(() -> !clientsRouteInstalled());
  }

  /**
   * RFC 4724 §4.2 with FRR as the restarting ToR: bgpd and zebra killed with SIGKILL and started
   * again with the same route and graceful restart, so its OPEN carries the Restart State bit
   * (§4.1) and it sends its routes only after our End-of-RIB. Our path stays, stale, until FRR's
   * End-of-RIB, and the route does not leave our kernel before it ({@code ip monitor route}).
   */
  @Test
  void aRestartingFrrThatSendsItsRouteAgainNeverTakesItOutOfOurKernel() throws Exception {
    SartdNode s = startedWithOurRoute(120);
    await().atMost(Duration.ofSeconds(30)).until(this::clientsRouteInstalled);
    ManagedProcess routes = watchRoutes();
    killFrr();
    await("our path to FRR's route stale while FRR restarts")
        .atMost(Duration.ofSeconds(20))
        .until(() -> stale(s, CLIENTS));
    Frr again = startFrrAgain(RouterConfig.of(65000, "192.0.2.10").originate(CLIENTS));
    await("FRR back: its OPEN's Restart State bit as we read it")
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                Files.readString(s.process.log())
                    .contains("event=graceful-restart-peer-back restart-state=true"));
    await("FRR's End-of-RIB: our path to its route fresh again")
        .atMost(Duration.ofSeconds(60))
        .until(() -> !s.paths("ipv4", CLIENTS).isEmpty() && !stale(s, CLIENTS));
    again.awaitRoute(ADDRESS + "/32");
    assertTrue(clientsRouteInstalled());
    // FRR, restarting, sometimes sends its End-of-RIB some 25 ms before its route (seen in a full
    // run: End-of-RIB 8 ms after Established, the route after it); RFC 4724 §4.2 has the stale
    // path go at the End-of-RIB, so what sart must hold is the route until then
    assertNotDeletedBefore(routes, endOfRibAt(s), "while FRR restarted, before its End-of-RIB");
  }

  /** When sart took FRR's End-of-RIB after its restart (its log's {@code event=end-of-rib}). */
  private static java.time.Instant endOfRibAt(SartdNode s) throws IOException {
    return Files.readString(s.process.log())
        .lines()
        .filter(l -> l.contains("event=end-of-rib"))
        .map(l -> java.time.Instant.parse(l.substring(5, l.indexOf(' '))))
        .reduce((a, b) -> b)
        .orElseThrow(() -> new AssertionError("sart logged no End-of-RIB from FRR"));
  }

  /** No line of {@code routes} deleted the route to the clients before {@code until}. */
  private static void assertNotDeletedBefore(
      ManagedProcess routes, java.time.Instant until, String when) throws IOException {
    String changes = Files.readString(routes.log());
    // ip -ts: "[2026-11-27T17:13:43.092581] Deleted ...", the machine's local time
    assertFalse(
        changes
            .lines()
            .filter(l -> l.contains("Deleted") && l.contains(CLIENTS))
            .map(
                l ->
                    java.time.LocalDateTime.parse(l.substring(1, l.indexOf(']')))
                        .atZone(java.time.ZoneId.systemDefault())
                        .toInstant())
            .anyMatch(t -> t.isBefore(until)),
        () ->
            "the route to the clients left sart's kernel "
                + when
                + " ("
                + until
                + "):\n"
                + changes);
  }

  /** sart started, its address announced to FRR and the FIB reconciled. */
  private SartdNode startedWithOurRoute(int restartTime) throws IOException {
    return startedWithOurRoute(restartTime, false);
  }

  /** The same, with BFD to FRR or not. */
  private SartdNode startedWithOurRoute(int restartTime, boolean bfd) throws IOException {
    build(restartTime, bfd);
    SartdNode s = startSart("sartd");
    originate(ADDRESS);
    frr.awaitRoute(ADDRESS + "/32");
    fib.join();
    return s;
  }

  /** FRR's bgpd and zebra killed with SIGKILL: no NOTIFICATION, a restart (RFC 4724 §4.2). */
  private void killFrr() {
    for (ManagedProcess p : frr.processes()) {
      ProcessHandle.of(p.pid()).ifPresent(ProcessHandle::destroyForcibly);
    }
  }

  /** FRR started again on the ToR with {@code config}, sart its neighbour, graceful restart on. */
  private Frr startFrrAgain(RouterConfig config) throws Exception {
    Frr again =
        new Frr(frr.node(), config.neighbor(Neighbor.of("192.0.2.1", 65001)))
            .withGracefulRestart(120);
    again.start();
    return again;
  }

  /** Every change of sart's routes from here on, as the kernel reports it. */
  private ManagedProcess watchRoutes() throws InterruptedException {
    ManagedProcess routes =
        sart.spawn("ip-monitor", java.util.List.of("ip", "-ts", "monitor", "route"));
    Thread.sleep(1000); // ip monitor prints nothing once it listens: give it time to subscribe
    return routes;
  }

  /** No line of {@code routes} ({@link #watchRoutes}) deleted the route to the clients. */
  private static void assertNeverDeleted(ManagedProcess routes, String when) throws IOException {
    String changes = Files.readString(routes.log());
    assertFalse(
        changes.lines().anyMatch(l -> l.contains("Deleted") && l.contains(CLIENTS)),
        () -> "the route to the clients left sart's kernel " + when + ":\n" + changes);
  }

  /** Whether sart's path to {@code prefix} is kept stale for a restarting peer (the CLI's view). */
  private static boolean stale(SartdNode s, String prefix) {
    return s.paths("ipv4", prefix).stream().anyMatch(p -> p.path("stale").asBoolean());
  }
}
