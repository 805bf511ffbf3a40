package dev.sart.sartd;

import dev.sart.agent.bgp.BgpAgent;
import dev.sart.agent.bgp.PeerStateWatcher;
import dev.sart.agent.cni.AgentConfig;
import dev.sart.agent.cni.CniAgent;
import dev.sart.agent.kube.BlockSource;
import dev.sart.agent.kube.KubeIpam;
import dev.sart.agent.kube.PoolSelector;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code sartd agent}: the node agent. The BGP side (NodeBGP, BGPPeer, BGPAdvertisement) drives the
 * node's speaker over its gRPC API; with {@code --cni-config} the CNI server for sart-cni runs too.
 */
@Command(name = "agent", mixinStandardHelpOptions = true, description = "Run the node agent")
final class AgentCommand implements java.util.concurrent.Callable<Integer> {
  private static final Logger LOG = Logger.getLogger(AgentCommand.class.getName());

  @Option(
      names = "--kubeconfig",
      description = "kubeconfig file (default: in-cluster, then $KUBECONFIG, then ~/.kube/config)")
  Path kubeconfig;

  @Option(
      names = "--node-name",
      description = "this node's name (default: $NODE_NAME, then $HOSTNAME)")
  String nodeName;

  @Option(
      names = "--speaker-endpoint",
      description = "the BGP speaker's gRPC API (host:port); default: the NodeBGP's speaker.path")
  String speakerEndpoint;

  @Option(
      names = "--cni-config",
      description =
          "start the CNI server with this JSON configuration (socket, node addresses, MTU, ...)")
  Path cniConfig;

  @Option(
      names = "--cni-socket",
      description = "the CNI server's UNIX socket (overrides the configuration's)")
  Path cniSocket;

  @Option(
      names = "--metrics-address",
      description =
          "/metrics, /healthz and /readyz over HTTP (host:port, 'off': none);"
              + " default 0.0.0.0 on --http-port (8000), as sart, whose probes use it")
  String metricsAddress;

  @Option(
      names = "--resync",
      description = "seconds between full passes over the node's objects (default 30)")
  Integer resync;

  @Option(
      names = "--peer-state-watcher",
      description =
          "serve sart's BgpExporterApi here for `sartd bgp --exporter` (host:port, 'off': none;"
              + " default 127.0.0.1:5003)")
  String peerStateWatcher;

  @Option(
      names = "--cni-endpoint",
      description =
          "the CNI server (modes cni, dual): a UNIX socket path (default /var/run/sart.sock) or"
              + " host:port, where sart-cni's frames and sart's gRPC CNIApi are both served")
  String cniEndpoint;

  @Mixin SartDaemonOptions sart;

  @Mixin LogOptions log;

  /** sart's agent ports (its agent::config). */
  static final int HTTP_PORT = 8000;

  static final int HTTPS_PORT = 9443;

  private SartDaemonOptions.Settings settings;

  @Override
  public Integer call() throws Exception {
    HeapBound.install();
    log.install();
    String node = node(nodeName);
    settings(); // every flag and file before anything starts
    if (cniConfig != null) {
      readCniConfig();
    }
    try (KubernetesClient client = client(kubeconfig);
        Running r = start(client, node)) {
      CountDownLatch stop = new CountDownLatch(1);
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    LOG.info("event=stopping");
                    r.close();
                    stop.countDown();
                  }));
      stop.await();
    }
    return 0;
  }

  /** The agent's parts, started; closing stops them in reverse. */
  final class Running implements AutoCloseable {
    private final BgpAgent bgp;
    private final CniAgent cni;
    private final ScheduledExecutorService blocks;
    private final MetricsServer metrics;
    private final io.grpc.Server watcher;
    private dev.sart.agent.egress.ClientAgent egress;

    /** The egress client side (cni and dual modes), closed with the rest. */
    Running egress(dev.sart.agent.egress.ClientAgent e) {
      this.egress = e;
      return this;
    }

    private Running(
        BgpAgent bgp,
        CniAgent cni,
        ScheduledExecutorService blocks,
        MetricsServer metrics,
        io.grpc.Server watcher) {
      this.watcher = watcher;
      this.bgp = bgp;
      this.cni = cni;
      this.blocks = blocks;
      this.metrics = metrics;
    }

    /** The HTTP port of /metrics, /healthz, /readyz, or -1. */
    int httpPort() {
      return metrics == null ? -1 : metrics.port();
    }

    /** The HTTP address bound, or null. */
    java.net.InetSocketAddress httpAddress() {
      return metrics == null ? null : metrics.address();
    }

    /** The HTTPS port of the same, or -1. */
    int httpsPort() {
      return metrics == null ? -1 : metrics.httpsPort();
    }

    /** The peer state watcher's port, or -1. */
    int watcherPort() {
      return watcher == null ? -1 : watcher.getPort();
    }

    /** The CNI server's TCP port, or -1 (none, or a UNIX socket only). */
    int cniTcpPort() {
      return cni == null ? -1 : cni.grpcPort();
    }

    boolean cni() {
      return cni != null;
    }

    @Override
    public void close() {
      if (egress != null) {
        egress.close();
      }
      if (metrics != null) {
        metrics.close();
      }
      if (watcher != null) {
        watcher.shutdownNow();
      }
      if (blocks != null) {
        blocks.shutdownNow();
      }
      if (cni != null) {
        try {
          cni.close();
        } catch (Exception e) {
          LOG.log(Level.WARNING, "event=cni-close-failed", e);
        }
      }
      bgp.close();
    }
  }

  /** The flags and sart's config file, resolved once. */
  SartDaemonOptions.Settings settings() {
    if (settings == null) {
      settings = sart.settings(HTTP_PORT, HTTPS_PORT);
    }
    return settings;
  }

  Running start(KubernetesClient client, String node) throws Exception {
    SartDaemonOptions.Settings s = settings();
    KubeDaemonFile f = s.file();
    int every =
        resync != null
            ? resync
            : s.requeueInterval() != null ? (int) Math.min(s.requeueInterval(), 3600) : 30;
    BgpAgent bgp = new BgpAgent(client, node, Duration.ofSeconds(every), speakerEndpoint);
    // sart's agent served its health and metrics on every address (its probes reach the node's)
    String httpAddress = metricsAddress != null ? metricsAddress : "0.0.0.0:" + s.httpPort();
    MetricsServer metrics =
        "off".equals(httpAddress) ? null : new MetricsServer(BgpCommand.socketAddress(httpAddress));
    io.grpc.Server watcher = null;
    BlockSource source = null;
    ScheduledExecutorService blocks = null;
    CniAgent cni = null;
    dev.sart.agent.egress.ClientAgent egress = null;
    try {
      if (metrics != null) {
        metrics.beforeScrape(bgp.metrics(metrics.registry())::refresh);
        metrics.readiness(bgp::ready);
        javax.net.ssl.SSLContext tls = s.tls();
        if (tls != null) {
          metrics.https(new java.net.InetSocketAddress("0.0.0.0", s.httpsPort()), tls);
        }
      }
      String w =
          peerStateWatcher != null
              ? peerStateWatcher
              : f != null && f.peerStateWatcher() != null ? f.peerStateWatcher() : "127.0.0.1:5003";
      if (!"off".equals(w)) {
        try {
          watcher = PeerStateWatcher.serve(BgpCommand.socketAddress(w), bgp);
          LOG.info("event=peer-state-watcher-listening address=" + w);
        } catch (java.io.IOException e) {
          // the speaker's WatchPeerState stream tells the agent the same: go on without it
          LOG.warning(
              "event=peer-state-watcher-off address="
                  + w
                  + " reason=\""
                  + e.getMessage()
                  + "\" msg=\"the agent follows the speaker's WatchPeerState stream instead\"");
        }
      }
      bgp.start();
      if (s.mode().cni()) {
        // the node's pod blocks keep one BGPAdvertisement each that targets every peer of the node;
        // an ADD waits at most 30 s for a requested block: well inside sart-cni's default timeout
        // (60 s), so the runtime hears TryAgainLater from the agent rather than the plugin's own
        source = new BlockSource(client, node, Duration.ofSeconds(30));
        blocks = Executors.newSingleThreadScheduledExecutor(Thread.ofVirtual().factory());
        BlockSource src = source;
        Runnable advertise =
            () -> {
              try {
                src.advertise();
              } catch (RuntimeException e) {
                LOG.log(
                    Level.WARNING,
                    "event=block-advertise-failed reason=\"" + e.getMessage() + "\"",
                    e);
              }
            };
        blocks.scheduleWithFixedDelay(advertise, 0, every, TimeUnit.SECONDS);
        // a new BGPPeer of the node is a new target of every block at once, not at the next resync
        ScheduledExecutorService b = blocks;
        bgp.onPeersChanged(
            () -> {
              if (!b.isShutdown()) {
                b.execute(advertise);
              }
            });
        AgentConfig c = cniConfig(client, node, f);
        // blocks listed in the file are used as they are (a node without the controller);
        // otherwise the pods' addresses come from this node's AddressBlocks (BlockRequests)
        boolean fromCluster = c.blocks().isEmpty();
        cni =
            fromCluster
                ? CniAgent.start(c, new KubeIpam(source, new PoolSelector(client)))
                : CniAgent.start(c);
        if (metrics != null) {
          metrics.beforeScrape(cni.metrics(metrics.registry()));
        }
        LOG.info(
            "event=cni-listening socket="
                + c.socket()
                + (c.grpcAddress() == null ? "" : " tcp=" + c.grpcAddress())
                + " ipam="
                + (fromCluster ? "addressblocks" : "file"));
        egress = egress(client, node, c);
      } else if (cniConfig != null || cniSocket != null) {
        throw new UsageException(
            "--cni-config and --cni-socket need --mode cni or dual, not " + s.mode());
      }
    } catch (Exception | Error e) {
      new Running(bgp, cni, blocks, metrics, watcher).egress(egress).close();
      throw e;
    }
    LOG.info(() -> "event=agent-started node=" + node + " mode=" + s.mode());
    return new Running(bgp, cni, blocks, metrics, watcher).egress(egress);
  }

  /**
   * The egress client side: the pods of this node that opted into an Egress get their tunnels, and
   * the static address of an Egress whose gateway runs here is routed to it (in the pod table).
   */
  static dev.sart.agent.egress.ClientAgent egress(
      KubernetesClient client, String node, AgentConfig c) throws Exception {
    var host =
        c.hostNetns() == null
            ? dev.sart.fib.netlink.Netlink.open()
            : dev.sart.fib.netlink.Netlink.open(dev.sart.fib.netlink.Netns.open(c.hostNetns()));
    var agent =
        new dev.sart.agent.egress.ClientAgent(
            client,
            node,
            dev.sart.agent.egress.PodNetns.in(dev.sart.fib.netlink.Netns.NAMED, name -> true, host),
            host,
            c.routeTable(),
            "eth0");
    agent.start();
    return agent;
  }

  /**
   * The CNI server's settings: {@code --cni-config}'s file, or sart's way without one: the socket
   * {@code /var/run/sart.sock}, the node's address from {@code SARTD_BGP_NODE_IP} (sart's DaemonSet
   * sets it to {@code status.hostIP}), else the Node's InternalIP addresses. {@code --cni-socket}
   * and {@code --cni-endpoint} (or the file's {@code cni_endpoint}) override the socket, or add the
   * TCP address.
   */
  AgentConfig cniConfig(KubernetesClient client, String node, KubeDaemonFile f) throws Exception {
    AgentConfig c;
    if (cniConfig != null) {
      c = readCniConfig();
    } else {
      String[] addresses = nodeAddresses(client, node);
      c =
          AgentConfig.of(
              AgentConfig.DEFAULT_SOCKET, null, addresses[0], addresses[1], List.of(), null);
    }
    String endpoint = cniEndpoint != null ? cniEndpoint : f != null ? f.cniEndpoint() : null;
    Path socket = cniSocket;
    String tcp = c.grpcAddress();
    if (endpoint != null) {
      if (endpoint.startsWith("/") || endpoint.startsWith("unix://")) {
        socket = Path.of(endpoint.replaceFirst("^unix://", ""));
      } else {
        tcp = endpoint.replaceFirst("^(http|tcp)://", "");
      }
    }
    return new AgentConfig(
        socket != null ? socket : c.socket(),
        c.hostNetns(),
        c.nodeAddress4(),
        c.nodeAddress6(),
        c.mtu(),
        c.routeTable(),
        c.rulePriority(),
        c.blocks(),
        c.defaultPool(),
        c.enableForwarding(),
        tcp);
  }

  /** The node's IPv4 and IPv6 address (either may be null); none is a usage error. */
  static String[] nodeAddresses(KubernetesClient client, String node) {
    String[] out = new String[2];
    String env = System.getenv("SARTD_BGP_NODE_IP");
    List<String> candidates = new java.util.ArrayList<>();
    if (env != null && !env.isBlank()) {
      candidates.addAll(List.of(env.split(",")));
    } else {
      io.fabric8.kubernetes.api.model.Node n = client.nodes().withName(node).get();
      if (n != null && n.getStatus() != null && n.getStatus().getAddresses() != null) {
        n.getStatus().getAddresses().stream()
            .filter(a -> "InternalIP".equals(a.getType()))
            .forEach(a -> candidates.add(a.getAddress()));
      }
    }
    for (String a : candidates) {
      String v = a.strip();
      int i = v.contains(":") ? 1 : 0;
      if (out[i] == null) {
        out[i] = v;
      }
    }
    if (out[0] == null && out[1] == null) {
      throw new UsageException(
          "the CNI server needs the node's address (the pods' gateway): set SARTD_BGP_NODE_IP,"
              + " give the Node "
              + node
              + " an InternalIP, or pass --cni-config (or --mode lb for no CNI)");
    }
    return out;
  }

  /** The CNI server's configuration; a mistake is file:line: what. */
  AgentConfig readCniConfig() throws java.io.IOException {
    try {
      return AgentConfig.read(cniConfig);
    } catch (java.nio.file.NoSuchFileException e) {
      throw new ConfigException(cniConfig, 0, "no such file");
    } catch (IllegalArgumentException e) {
      throw ConfigFile.errorAt(cniConfig, e.getMessage());
    }
  }

  static String node(String option) {
    String n = option != null ? option : System.getenv("NODE_NAME");
    if (n == null || n.isBlank()) {
      n = System.getenv("HOSTNAME");
    }
    if (n == null || n.isBlank()) {
      throw new IllegalArgumentException("the node name is unknown: set --node-name or NODE_NAME");
    }
    return n;
  }

  static KubernetesClient client(Path kubeconfig) throws java.io.IOException {
    if (kubeconfig == null) {
      return new KubernetesClientBuilder().build();
    }
    if (!Files.isReadable(kubeconfig)) {
      throw new IllegalArgumentException("cannot read kubeconfig " + kubeconfig);
    }
    return new KubernetesClientBuilder()
        .withConfig(Config.fromKubeconfig(Files.readString(kubeconfig)))
        .build();
  }
}
