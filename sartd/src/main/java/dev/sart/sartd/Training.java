package dev.sart.sartd;

import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.server.BgpServer;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.MultiExitDisc;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.PathAttributes;
import dev.sart.proto.v1.AddressFamily;
import dev.sart.proto.v1.BgpApiGrpc;
import dev.sart.proto.v1.GetBgpInfoRequest;
import dev.sart.proto.v1.GetNeighborPathRequest;
import dev.sart.proto.v1.GetNeighborRequest;
import dev.sart.proto.v1.ListNeighborRequest;
import dev.sart.proto.v1.Peer;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * The training run of sartd's JDK 25 AOT cache (JEP 483, 514, 515), run once at build time with
 * {@code -XX:AOTCacheOutput} ({@code src/build/aot.sh}): what it loads, links and profiles is in
 * the cache, so a sartd started with {@code -XX:AOTCache} finds those classes loaded and linked and
 * its JIT finds method profiles that have seen announcements and withdrawals.
 *
 * <p>It runs {@code sartd bgp} as a user would (picocli, the YAML file with a neighbour and a path,
 * the warm-up over the route path, the gRPC API and {@code /metrics}) on loopback ports that were
 * free, and a second speaker in this process, passive, that sends it {@code routes} routes over a
 * real session, withdraws a tenth, announces it again and withdraws everything; meanwhile it asks
 * the API and scrapes the metrics. Then it exits, and the JVM writes the cache. Nothing leaves the
 * loopback interface; the routes are /32s of 198.18.0.0/15 (RFC 2544).
 */
final class Training {
  private static final Duration WAIT = Duration.ofSeconds(120);

  private Training() {}

  public static void main(String[] args) throws Exception {
    int routes = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    int bgpPort = freePort();
    int peerPort = freePort();
    int apiPort = freePort();
    int metricsPort = freePort();
    Path dir = Files.createTempDirectory("sartd-training");
    Path conf = dir.resolve("sartd.yaml");
    Files.writeString(
        conf,
        """
        asn: 65001
        router_id: 192.0.2.1
        neighbors:
          - name: training
            asn: 65002
            address: 127.0.0.1
            port: %d
            hold_time: 30
        paths:
          - prefixes: [203.0.113.0/24]
            attributes: {origin: 0, med: 10}
        """
            .formatted(peerPort));
    StringWriter daemonErr = new StringWriter();
    Thread daemon =
        Thread.ofPlatform()
            .daemon()
            .name("training-sartd")
            .start(
                () ->
                    Sartd.run(
                        new String[] {
                          "bgp",
                          "-f",
                          conf.toString(),
                          "--api",
                          "127.0.0.1:" + apiPort,
                          "--port",
                          Integer.toString(bgpPort),
                          "--metrics-address",
                          "127.0.0.1:" + metricsPort,
                          "-l",
                          "warn"
                        },
                        new PrintWriter(System.out, true),
                        new PrintWriter(daemonErr, true)));
    // the peer: passive, sartd connects to it
    BgpServer peer = new BgpServer(peerPort);
    peer.start();
    peer.setLocalAs(65002);
    peer.setRouterId(Ip.parseV4("192.0.2.2"));
    InetAddress loopback = InetAddress.getLoopbackAddress();
    peer.addPeer(
        new PeerConfig(
            "sartd",
            loopback,
            65001,
            bgpPort,
            null,
            true,
            null,
            0,
            false,
            Duration.ofSeconds(30),
            null,
            Duration.ofSeconds(1),
            Set.of(Family.IPV4_UNICAST),
            PeerConfig.GracefulRestart.DEFAULT));
    ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", apiPort).usePlaintext().build();
    BgpApiGrpc.BgpApiBlockingStub api = BgpApiGrpc.newBlockingStub(ch);
    try {
      until("sartd's API", () -> daemon.isAlive() && answers(api), daemon, daemonErr);
      until("the session", () -> established(api), daemon, daemonErr);
      List<Prefix> table = new ArrayList<>(routes);
      for (int i = 0; i < routes; i++) {
        table.add(Prefix.parse(benchmarking(i) + "/32"));
      }
      PathAttributes attrs =
          PathAttributes.builder().add(Origin.IGP).add(new MultiExitDisc(5)).build();
      peer.addPaths(table, attrs);
      until("the table", () -> received(api) == routes, daemon, daemonErr);
      scrape(metricsPort);
      List<Prefix> tenth = table.subList(0, routes / 10);
      peer.deletePaths(tenth);
      until("the withdrawal", () -> received(api) == routes - tenth.size(), daemon, daemonErr);
      peer.addPaths(tenth, attrs);
      until("the announcement", () -> received(api) == routes, daemon, daemonErr);
      peer.deletePaths(table);
      until("the withdrawal of all", () -> received(api) == 0, daemon, daemonErr);
      api.getBgpInfo(GetBgpInfoRequest.getDefaultInstance());
      api.listNeighbor(ListNeighborRequest.getDefaultInstance());
      scrape(metricsPort);
    } finally {
      ch.shutdownNow();
      peer.close();
    }
    // the JVM writes the AOT cache at exit (the daemon's shutdown hook stops it first)
    System.exit(0);
  }

  private static String benchmarking(int i) {
    return "198." + (18 + (i >>> 16)) + "." + ((i >>> 8) & 0xff) + "." + (i & 0xff);
  }

  private static boolean answers(BgpApiGrpc.BgpApiBlockingStub api) {
    try {
      api.getBgpInfo(GetBgpInfoRequest.getDefaultInstance());
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  private static boolean established(BgpApiGrpc.BgpApiBlockingStub api) {
    return api.getNeighbor(GetNeighborRequest.newBuilder().setAddr("127.0.0.1").build())
            .getPeer()
            .getState()
        == Peer.State.ESTABLISHED;
  }

  private static int received(BgpApiGrpc.BgpApiBlockingStub api) {
    return api.getNeighborPath(
            GetNeighborPathRequest.newBuilder()
                .setKind(GetNeighborPathRequest.Kind.IN)
                .setAddr("127.0.0.1")
                .setFamily(
                    AddressFamily.newBuilder()
                        .setAfi(AddressFamily.Afi.AFI_IP4)
                        .setSafi(AddressFamily.Safi.SAFI_UNICAST))
                .build())
        .getPathsCount();
  }

  /** One HTTP/1.0 GET of /metrics over a plain socket (no HTTP client to load into the cache). */
  private static void scrape(int port) throws IOException {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      s.getOutputStream()
          .write("GET /metrics HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
      if (!answer.startsWith("HTTP/1.1 200") || !answer.contains("sart_bgp_session_up")) {
        throw new IllegalStateException(
            "training: /metrics answered " + answer.lines().findFirst());
      }
    }
  }

  private static void until(
      String what, BooleanSupplier done, Thread daemon, StringWriter daemonErr)
      throws InterruptedException {
    long end = System.nanoTime() + WAIT.toNanos();
    while (true) {
      try {
        if (done.getAsBoolean()) {
          return;
        }
      } catch (RuntimeException e) {
        // not yet (the API starts after the warm-up)
      }
      if (!daemon.isAlive() || System.nanoTime() > end) {
        throw new IllegalStateException(
            "training: no " + what + " (sartd: " + daemonErr.toString().strip() + ")");
      }
      Thread.sleep(20);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
