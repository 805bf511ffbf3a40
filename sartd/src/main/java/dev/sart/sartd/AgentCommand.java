package dev.sart.sartd;

import dev.sart.agent.bgp.BgpAgent;
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
      description = "/metrics, /healthz and /readyz over HTTP (host:port, 'off': none)",
      defaultValue = "127.0.0.1:8000")
  String metricsAddress;

  @Option(
      names = "--resync",
      description = "seconds between full passes over the node's objects",
      defaultValue = "30")
  int resync;

  @Mixin LogOptions log;

  @Override
  public Integer call() throws Exception {
    log.install();
    String node = node(nodeName);
    if (cniConfig != null) {
      readCniConfig(); // before anything starts
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

    private Running(
        BgpAgent bgp, CniAgent cni, ScheduledExecutorService blocks, MetricsServer metrics) {
      this.bgp = bgp;
      this.cni = cni;
      this.blocks = blocks;
      this.metrics = metrics;
    }

    @Override
    public void close() {
      if (metrics != null) {
        metrics.close();
      }
      blocks.shutdownNow();
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

  Running start(KubernetesClient client, String node) throws Exception {
    BgpAgent bgp = new BgpAgent(client, node, Duration.ofSeconds(resync), speakerEndpoint);
    // the same HTTP endpoint as sartd bgp's (MetricsServer), at sart's agent port
    MetricsServer metrics =
        "off".equals(metricsAddress)
            ? null
            : new MetricsServer(BgpCommand.socketAddress(metricsAddress));
    if (metrics != null) {
      metrics.beforeScrape(bgp.metrics(metrics.registry())::refresh);
      metrics.readiness(bgp::ready);
    }
    bgp.start();
    // the node's pod blocks keep one BGPAdvertisement each that targets every peer of the node
    // an ADD waits at most 30 s for a requested block: well inside sart-cni's default timeout (60
    // s),
    // so the runtime hears TryAgainLater from the agent rather than the plugin's own timeout
    BlockSource source = new BlockSource(client, node, Duration.ofSeconds(30));
    ScheduledExecutorService blocks =
        Executors.newSingleThreadScheduledExecutor(Thread.ofVirtual().factory());
    Runnable advertise =
        () -> {
          try {
            source.advertise();
          } catch (RuntimeException e) {
            LOG.log(
                Level.WARNING, "event=block-advertise-failed reason=\"" + e.getMessage() + "\"", e);
          }
        };
    blocks.scheduleWithFixedDelay(advertise, 0, resync, TimeUnit.SECONDS);
    // a new BGPPeer of the node is a new target of every block at once, not at the next resync
    bgp.onPeersChanged(
        () -> {
          if (!blocks.isShutdown()) {
            blocks.execute(advertise);
          }
        });
    CniAgent cni = null;
    if (cniConfig != null) {
      AgentConfig c = readCniConfig();
      if (cniSocket != null) {
        c =
            new AgentConfig(
                cniSocket,
                c.hostNetns(),
                c.nodeAddress4(),
                c.nodeAddress6(),
                c.mtu(),
                c.routeTable(),
                c.rulePriority(),
                c.blocks(),
                c.defaultPool(),
                c.enableForwarding(),
                c.grpcAddress());
      }
      // blocks listed in the file are used as they are (a node without the controller); otherwise
      // the pods' addresses come from this node's AddressBlocks, requested through BlockRequests
      boolean fromCluster = c.blocks().isEmpty();
      cni =
          fromCluster
              ? CniAgent.start(c, new KubeIpam(source, new PoolSelector(client)))
              : CniAgent.start(c);
      LOG.info(
          "event=cni-listening socket="
              + c.socket()
              + " ipam="
              + (fromCluster ? "addressblocks" : "file"));
    } else if (cniSocket != null) {
      throw new IllegalArgumentException(
          "--cni-socket needs --cni-config (the node addresses and blocks)");
    }
    LOG.info(() -> "event=agent-started node=" + node);
    return new Running(bgp, cni, blocks, metrics);
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
