package dev.sart.sartd;

import dev.sart.bgp.api.BgpApiService;
import dev.sart.bgp.metrics.BgpMetrics;
import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.peer.Warmup;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.server.BgpServer;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.LocalPref;
import dev.sart.bgp.wire.MultiExitDisc;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.PathAttributes;
import dev.sart.proto.LocalEndpoints;
import dev.sart.proto.v1.BgpExporterApiGrpc;
import dev.sart.proto.v1.ExportPeerStateRequest;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code sartd bgp}: the BGP speaker with its gRPC API. */
@Command(name = "bgp", mixinStandardHelpOptions = true, description = "Run the BGP speaker")
final class BgpCommand implements java.util.concurrent.Callable<Integer> {
  private static final Logger LOG = Logger.getLogger(BgpCommand.class.getName());

  @Option(
      names = {"-f", "--file"},
      description = "YAML config (sart's keys)")
  Path file;

  @Option(
      names = {"-a", "--as"},
      description = "local AS (overrides the file)")
  Long asn;

  @Option(
      names = {"-r", "--router-id"},
      description = "router id, an IPv4 address (overrides the file)")
  String routerId;

  @Option(
      names = "--exporter",
      description = "BgpExporterApi endpoint told of every peer state change (host:port)")
  String exporter;

  @Option(
      names = "--fib",
      description = "sart's FibApi endpoint (host:port); ignored: sartd fib pulls from --api")
  String fib;

  @Option(
      names = "--table-id",
      description = "sart's kernel table for --fib; ignored: set the table in sartd fib's channel")
  Integer tableId;

  @Option(names = "--api", description = "gRPC API listen address", defaultValue = "127.0.0.1:5000")
  String api;

  @Option(
      names = "--metrics-address",
      description =
          "Prometheus /metrics and /healthz over HTTP (host:port, 'off': none;"
              + " default ${DEFAULT-VALUE} unless the file sets metrics_address)")
  String metricsAddress;

  static final String DEFAULT_METRICS_ADDRESS = "127.0.0.1:7472";

  @Option(
      names = "--port",
      description = "BGP port to listen on (0: do not listen)",
      defaultValue = "179")
  int port;

  @Option(
      names = "--warmup",
      paramLabel = "ROUTES",
      description =
          "before listening, run this many routes through the"
              + " route path (in cycles over 4,096), on a RIB of its own, so that the first table and the first withdrawal run"
              + " compiled code"
              + " (0: no warm-up; at most 131072; default ${DEFAULT-VALUE})",
      defaultValue = "${sys:sart.bgp.warmup:-131072}")
  int warmup;

  @Option(
      names = "--await-local-paths",
      hidden = true,
      description =
          "after a start, wait for LocalPathsComplete before the restart is complete (sartd node:"
              + " the agent calls it after its first pass)")
  boolean awaitLocalPaths;

  @Option(
      names = "--graceful-restart",
      description =
          "be the restarting speaker of RFC 4724 §4.1 unless the file says graceful_restart:"
              + " {enabled: false} (sartd node passes it; default: only when the file enables it)")
  boolean gracefulRestart;

  @Mixin LogOptions log;

  @Override
  public Integer call() throws Exception {
    HeapBound.install();
    log.install();
    // every input is checked before anything starts: a mistake is one line on stderr, exit 2
    ConfigFile<BgpConfigFile> config =
        file == null ? null : ConfigFile.readLenient(file, BgpConfigFile.class);
    BgpConfigFile cfg = config == null ? null : config.value();
    if (config != null) {
      config.check(BgpCommand::check);
      // sart ignores keys it does not know; so do we, once, out loud
      config.ignored().forEach(w -> LOG.warning("event=config-key-ignored msg=\"" + w + "\""));
    }
    InetSocketAddress apiAddress = flagAddress("--api", api);
    String exp = exporter != null ? exporter : cfg == null ? null : cfg.exporter();
    if (exp != null) {
      if (exporter != null) {
        flagAddress("--exporter", exp);
      } else {
        config.check(c -> address("exporter", exp));
      }
    }
    String metricsAt =
        metricsAddress != null
            ? metricsAddress
            : cfg != null && cfg.metricsAddress() != null
                ? cfg.metricsAddress()
                : DEFAULT_METRICS_ADDRESS;
    InetSocketAddress metricsSocket = null;
    if (!"off".equals(metricsAt)) {
      metricsSocket =
          metricsAddress != null || cfg == null || cfg.metricsAddress() == null
              ? flagAddress("--metrics-address", metricsAt)
              : config.check(c -> address("metrics_address", metricsAt));
    }
    Long as = asn != null ? asn : cfg == null ? null : cfg.asn();
    String id = routerId != null ? routerId : cfg == null ? null : cfg.routerId();
    if (routerId != null) {
      routerId("--router-id", routerId);
    }
    String fibGiven = fib != null ? fib : cfg == null ? null : cfg.fibEndpoint();
    Integer tableGiven = tableId != null ? tableId : cfg == null ? null : cfg.fibTable();
    if (fibGiven != null || tableGiven != null) {
      // sart pushed best paths to sartd fib; here sartd fib follows this API's WatchPath instead:
      // said once, at start, with the channel that does the same
      int table = tableGiven != null ? tableGiven : 254;
      LOG.warning(
          "event=fib-ignored fib="
              + fibGiven
              + " table="
              + table
              + " msg=\"--fib/--table-id (fib_endpoint/fib_table) are superseded: sartd fib pulls"
              + " the best paths from this API; give it a channel with subscribers [{protocol: bgp,"
              + " endpoint: "
              + api
              + "}] and publishers [{protocol: kernel, tables: ["
              + table
              + "]}] (sartd node does this by itself)\"");
    }
    if (warmup > 0) {
      try {
        Warmup.Report r = Warmup.run(warmup);
        LOG.info(
            () ->
                "event=warmup-done routes="
                    + r.routes()
                    + " announced="
                    + r.announced()
                    + " withdrawn="
                    + r.withdrawn()
                    + " millis="
                    + r.millis());
      } catch (RuntimeException e) {
        // only speed is lost: the speaker does not depend on it
        LOG.log(java.util.logging.Level.WARNING, "event=warmup-failed", e);
      }
    }
    BgpServer server = new BgpServer(port);
    dev.sart.bgp.peer.RestartingSpeaker.Settings restart =
        restartSettings(cfg == null ? null : cfg.gracefulRestart(), gracefulRestart);
    if (restart != null) {
      server.restartGracefully(restart.withAwaitLocalPaths(true));
    }
    server.start();
    if (as != null) {
      server.setLocalAs(as);
    }
    if (id != null) {
      server.setRouterId(Ip.parseV4(id));
    }
    if (cfg != null) {
      if (Boolean.TRUE.equals(cfg.multiPath())) {
        server.setMultipath(true);
      }
      if (cfg.clusterId() != null) {
        server.setClusterId(Ip.parseV4(cfg.clusterId()));
      }
      PolicyConfig.policies(cfg).forEach(server.policies()::define);
      for (BgpConfigFile.Neighbor n :
          cfg.neighbors() == null ? List.<BgpConfigFile.Neighbor>of() : cfg.neighbors()) {
        server.addPeer(peerConfig(n), PolicyConfig.peerPolicy(n, server.policies()::get));
      }
      for (BgpConfigFile.Paths p :
          cfg.paths() == null ? List.<BgpConfigFile.Paths>of() : cfg.paths()) {
        server.addPaths(
            p.prefixes().stream().map(Prefix::parse).toList(), attributes(p.attributes()));
      }
    }
    if (!awaitLocalPaths) {
      server.localPathsComplete(); // the file's paths are in; nobody else re-adds any
    }
    if (exp != null) {
      exportPeerStates(server, exp);
    }
    MetricsServer metrics = null;
    if (metricsSocket != null) {
      metrics = new MetricsServer(metricsSocket);
      BgpMetrics bgpMetrics = new BgpMetrics(server, metrics.registry());
      metrics.beforeScrape(bgpMetrics::refresh);
    }
    HealthStatusManager health = new HealthStatusManager();
    java.util.concurrent.ExecutorService calls = Executors.newVirtualThreadPerTaskExecutor();
    BgpApiService apiService = new BgpApiService(server);
    Server grpc =
        NettyServerBuilder.forAddress(apiAddress)
            .addService(apiService)
            .addService(health.getHealthService())
            .addService(ProtoReflectionServiceV1.newInstance())
            .executor(calls)
            .build()
            .start();
    // sartd node's FIB and agent reach this API in process (LocalEndpoints)
    Server local =
        LocalEndpoints.serveInProcess(api, List.of(apiService, health.getHealthService()), calls)
            .orElse(null);
    LOG.info(
        () -> "event=api-listening address=" + api + (local != null ? " in_process=true" : ""));
    CountDownLatch stopped = new CountDownLatch(1);
    MetricsServer metricsServer = metrics;
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  // a restarting speaker leaves its peers helping (BgpServer.close)
                  LOG.info("event=stopping graceful-restart=" + (server.restart() != null));
                  health.enterTerminalState();
                  grpc.shutdown();
                  if (local != null) {
                    local.shutdown();
                  }
                  if (metricsServer != null) {
                    metricsServer.close();
                  }
                  server.close();
                  stopped.countDown();
                }));
    grpc.awaitTermination();
    stopped.await(10, TimeUnit.SECONDS);
    return 0;
  }

  /**
   * Checks the whole file before anything starts; each mistake names its key path (then its line).
   */
  static Void check(BgpConfigFile cfg) {
    if (cfg.asn() != null && (cfg.asn() < 1 || cfg.asn() > 0xFFFF_FFFFL)) {
      throw new IllegalArgumentException(
          "asn: " + cfg.asn() + " is not an AS number (1..4294967295)");
    }
    if (cfg.clusterId() != null) {
      routerId("cluster_id", cfg.clusterId());
    }
    if (cfg.routerId() != null) {
      routerId("router_id", cfg.routerId());
    }
    restartSettings(cfg.gracefulRestart(), false);
    List<BgpConfigFile.Neighbor> neighbors = cfg.neighbors() == null ? List.of() : cfg.neighbors();
    Map<String, dev.sart.bgp.policy.Policy> defined = new java.util.HashMap<>();
    PolicyConfig.policies(cfg).forEach(p -> defined.put(p.name(), p));
    java.util.function.Function<String, dev.sart.bgp.policy.Policy> policies =
        name -> {
          if (name == null || name.isEmpty()) {
            return dev.sart.bgp.policy.Policy.ACCEPT_ALL;
          }
          var p = defined.get(name);
          if (p == null) {
            throw new IllegalArgumentException(
                "no policy '"
                    + name
                    + "' (defined: "
                    + new java.util.TreeSet<>(defined.keySet())
                    + ")");
          }
          return p;
        };
    for (int i = 0; i < neighbors.size(); i++) {
      String at = "neighbors[" + i + "]";
      BgpConfigFile.Neighbor n = neighbors.get(i);
      if (n == null) {
        throw new IllegalArgumentException(at + ": an empty neighbor");
      }
      try {
        peerConfig(n);
        PolicyConfig.peerPolicy(n, policies);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(at + "." + e.getMessage(), e);
      }
    }
    List<BgpConfigFile.Paths> paths = cfg.paths() == null ? List.of() : cfg.paths();
    for (int i = 0; i < paths.size(); i++) {
      BgpConfigFile.Paths p = paths.get(i);
      if (p == null || p.prefixes() == null || p.prefixes().isEmpty()) {
        throw new IllegalArgumentException("paths[" + i + "]: needs 'prefixes'");
      }
      for (int j = 0; j < p.prefixes().size(); j++) {
        try {
          Prefix.parse(p.prefixes().get(j));
        } catch (RuntimeException e) {
          throw new IllegalArgumentException(
              "paths["
                  + i
                  + "].prefixes["
                  + j
                  + "]: '"
                  + p.prefixes().get(j)
                  + "' is not a prefix (192.0.2.0/24, 2001:db8::/48)");
        }
      }
      try {
        attributes(p.attributes());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("paths[" + i + "].attributes." + e.getMessage(), e);
      }
    }
    return null;
  }

  /**
   * The speaker's own graceful restart (RFC 4724 §4.1) from the file's {@code graceful_restart};
   * null: off. Off unless the file sets {@code enabled: true} or {@code byDefault} (sartd node's
   * {@code --graceful-restart}) and the file does not set {@code enabled: false}: as with FRR, BIRD
   * and GoBGP, a standalone speaker is not the restarting one unless told, since the role defers
   * what it sends after every start until its peers' End-of-RIB (bgp/docs/graceful-restart.md).
   */
  static dev.sart.bgp.peer.RestartingSpeaker.Settings restartSettings(
      BgpConfigFile.RestartDef r, boolean byDefault) {
    var d = dev.sart.bgp.peer.RestartingSpeaker.Settings.DEFAULT;
    Integer t = r == null ? null : r.selectionDeferralTime();
    if (t != null && (t < 0 || t > 3600)) {
      throw new IllegalArgumentException(
          "graceful_restart.selection_deferral_time: " + t + " seconds: 0..3600");
    }
    boolean enabled = r == null || r.enabled() == null ? byDefault : r.enabled();
    if (!enabled) {
      return null;
    }
    return new dev.sart.bgp.peer.RestartingSpeaker.Settings(
        r == null || !Boolean.FALSE.equals(r.forwardingState()),
        t == null ? d.selectionDeferral() : Duration.ofSeconds(t),
        d.awaitLocalPaths());
  }

  private static void routerId(String key, String value) {
    try {
      Ip.parseV4(value);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          key + ": '" + value + "' is not a router id (an IPv4 address such as 192.0.2.1)");
    }
  }

  private static InetSocketAddress flagAddress(String flag, String value) {
    try {
      return socketAddress(value);
    } catch (IllegalArgumentException e) {
      throw new UsageException(flag + ": " + e.getMessage());
    }
  }

  private static InetSocketAddress address(String key, String value) {
    try {
      return socketAddress(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(key + ": " + e.getMessage());
    }
  }

  /** A neighbour's session settings; a mistake names its key ({@code "address: ..."}). */
  static PeerConfig peerConfig(BgpConfigFile.Neighbor n) {
    FabricConfig.checkUnnumbered(n);
    if (n.address() == null && n.interfaceName() == null) {
      throw new IllegalArgumentException("address: a neighbor needs an 'address' or 'interface'");
    }
    if (n.asn() == null && n.remoteAs() == null) {
      throw new IllegalArgumentException(
          "asn: a neighbor needs an 'asn' or 'remote_as: external|internal'");
    }
    if (n.asn() != null && (n.asn() < 1 || n.asn() > 0xFFFF_FFFFL)) {
      throw new IllegalArgumentException(
          "asn: " + n.asn() + " is not an AS number (1..4294967295)");
    }
    InetAddress address =
        n.interfaceName() != null ? PeerConfig.UNNUMBERED : literal("address", n.address());
    if (n.port() != null && (n.port() < 1 || n.port() > 65535)) {
      throw new IllegalArgumentException("port: " + n.port() + " is not a TCP port (1..65535)");
    }
    if (n.holdTime() != null && n.holdTime() != 0 && (n.holdTime() < 3 || n.holdTime() > 65535)) {
      throw new IllegalArgumentException(
          "hold_time: " + n.holdTime() + " seconds: 0, or 3..65535 (RFC 4271 §4.2)");
    }
    Set<Family> families = new HashSet<>();
    for (String f : n.families() == null ? List.<String>of() : n.families()) {
      families.add(
          switch (f.toLowerCase(Locale.ROOT)) {
            case "ipv4", "ipv4-unicast", "ipv4_unicast" -> Family.IPV4_UNICAST;
            case "ipv6", "ipv6-unicast", "ipv6_unicast" -> Family.IPV6_UNICAST;
            default ->
                throw new IllegalArgumentException(
                    "families: unknown family '" + f + "' (ipv4, ipv6)");
          });
    }
    var gr = n.gracefulRestart();
    if (gr != null
        && gr.restartTime() != null
        && (gr.restartTime() < 0 || gr.restartTime() > 4095)) {
      throw new IllegalArgumentException(
          "graceful_restart.restart_time: "
              + gr.restartTime()
              + " seconds: 0..4095 (RFC 4724 §3, 12 bits)");
    }
    PeerConfig.Builder b =
        PeerConfig.builder(address, n.asn() == null ? 0 : n.asn())
            .name(n.name())
            .passive(Boolean.TRUE.equals(n.passive()))
            .password(n.password())
            .ttlSecurity(Boolean.TRUE.equals(n.ttlSecurity()))
            .families(families)
            .bfd(bfd(n.bfd()))
            .addPath(FabricConfig.addPath(n.addPath()))
            .routeReflectorClient(Boolean.TRUE.equals(n.routeReflectorClient()))
            .nextHopSelf(Boolean.TRUE.equals(n.nextHopSelf()));
    FabricConfig.unnumbered(n, b);
    if (n.port() != null) {
      b.port(n.port());
    }
    if (n.localAddress() != null) {
      b.localAddress(literal("local_address", n.localAddress()));
    }
    if (n.multihopTtl() != null) {
      b.multihopTtl(n.multihopTtl());
    }
    if (n.holdTime() != null) {
      b.holdTime(Duration.ofSeconds(n.holdTime()));
    }
    if (n.keepaliveTime() != null) {
      b.keepaliveTime(Duration.ofSeconds(n.keepaliveTime()));
    }
    if (n.connectRetryTime() != null) {
      b.connectRetryTime(Duration.ofSeconds(n.connectRetryTime()));
    }
    if (gr != null) {
      b.gracefulRestart(
          new PeerConfig.GracefulRestart(
              !Boolean.FALSE.equals(gr.helper()),
              gr.restartTime() == null
                  ? PeerConfig.GracefulRestart.DEFAULT.restartTime()
                  : Duration.ofSeconds(gr.restartTime()),
              Boolean.TRUE.equals(gr.notification())));
    }
    return b.build();
  }

  /** A neighbour's {@code bfd:} block, defaults filled in (300 ms × 3); null: no BFD. */
  static dev.sart.bgp.bfd.BfdConfig bfd(BgpConfigFile.BfdDef b) {
    if (b == null) {
      return null;
    }
    dev.sart.bgp.bfd.BfdConfig d = dev.sart.bgp.bfd.BfdConfig.DEFAULT;
    try {
      return dev.sart.bgp.bfd.BfdConfig.ofMillis(
          b.minTx() == null ? d.minTx().toMillis() : b.minTx(),
          b.minRx() == null ? d.minRx().toMillis() : b.minRx(),
          b.multiplier() == null ? d.multiplier() : b.multiplier());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("bfd: " + e.getMessage(), e);
    }
  }

  /**
   * sart's attribute keys in {@code paths}: origin, local_pref, med (values as strings or numbers).
   */
  static PathAttributes attributes(Map<String, String> attrs) {
    PathAttributes.Builder b = PathAttributes.builder();
    Origin origin = Origin.IGP;
    for (Map.Entry<String, String> e :
        attrs == null ? Map.<String, String>of().entrySet() : attrs.entrySet()) {
      long v;
      try {
        v = Long.parseLong(String.valueOf(e.getValue()).strip());
      } catch (NumberFormatException x) {
        throw new IllegalArgumentException(
            e.getKey() + ": '" + e.getValue() + "' is not a whole number");
      }
      switch (e.getKey()) {
        case "origin" -> {
          if (v < 0 || v >= Origin.values().length) {
            throw new IllegalArgumentException(
                "origin: " + v + " is not an origin (0 IGP, 1 EGP, 2 INCOMPLETE)");
          }
          origin = Origin.values()[(int) v];
        }
        case "local_pref" -> b.add(new LocalPref(v));
        case "med", "multi_exit_disc" -> b.add(new MultiExitDisc(v));
        default ->
            throw new IllegalArgumentException(
                e.getKey() + ": unknown path attribute (origin, local_pref, med)");
      }
    }
    b.add(origin);
    return b.build();
  }

  static InetSocketAddress socketAddress(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    String wanted = "expected host:port with an IP address (127.0.0.1:5000, [::1]:5000)";
    if (colon < 0) {
      throw new IllegalArgumentException("'" + hostPort + "': " + wanted);
    }
    String host = hostPort.substring(0, colon).replace("[", "").replace("]", "");
    int port;
    try {
      port = Integer.parseInt(hostPort.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + hostPort + "': " + wanted);
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("'" + hostPort + "': the port is 0..65535");
    }
    try {
      return new InetSocketAddress(InetAddress.ofLiteral(host), port);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("'" + hostPort + "': " + wanted);
    }
  }

  private static InetAddress literal(String key, String value) {
    try {
      return InetAddress.ofLiteral(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          key + ": '" + value + "' is not an IP address (192.0.2.1, 2001:db8::1)");
    }
  }

  /**
   * sart's exporter: every state change goes to BgpExporterApi.ExportPeerState (the agent's
   * watcher).
   */
  private static void exportPeerStates(BgpServer server, String endpoint) {
    ManagedChannel ch =
        io.grpc.netty.NettyChannelBuilder.forAddress(socketAddress(endpoint))
            .usePlaintext()
            .build();
    BgpExporterApiGrpc.BgpExporterApiFutureStub stub = BgpExporterApiGrpc.newFutureStub(ch);
    server.addListener(
        (peer, from, to) ->
            stub.exportPeerState(
                ExportPeerStateRequest.newBuilder()
                    .setAsn((int) peer.config().asn())
                    .setAddr(peer.config().address().getHostAddress())
                    .setName(peer.config().name())
                    .setState(dev.sart.proto.v1.Peer.State.forNumber(to.ordinal() + 1))
                    .build()));
  }
}
