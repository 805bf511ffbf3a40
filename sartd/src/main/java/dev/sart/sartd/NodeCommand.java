package dev.sart.sartd;

import dev.sart.fib.daemon.FibConfig;
import dev.sart.fib.netlink.Family;
import dev.sart.proto.LocalEndpoints;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code sartd node}: the BGP speaker, the FIB daemon and the node agent in one JVM (DESIGN.md §3).
 * The agent still drives the speaker only through its gRPC API, and the FIB follows the speaker's
 * best paths through the same API ({@code WatchPath}), here on the speaker's loopback endpoint
 * ({@code --api}).
 */
@Command(
    name = "node",
    mixinStandardHelpOptions = true,
    description = "Run the BGP speaker and the node agent together")
final class NodeCommand implements java.util.concurrent.Callable<Integer> {

  @Option(
      names = {"-f", "--file"},
      description = "the speaker's YAML config (sart's keys)")
  Path file;

  @Option(
      names = "--api",
      description = "the speaker's gRPC API listen address",
      defaultValue = "127.0.0.1:5000")
  String api;

  @Option(
      names = "--port",
      description = "BGP port to listen on (0: do not listen)",
      defaultValue = "179")
  int port;

  @Option(
      names = "--kubeconfig",
      description = "kubeconfig file (default: in-cluster, then $KUBECONFIG, then ~/.kube/config)")
  Path kubeconfig;

  @Option(
      names = "--node-name",
      description = "this node's name (default: $NODE_NAME, then $HOSTNAME)")
  String nodeName;

  @Option(names = "--cni-config", description = "start the CNI server with this JSON configuration")
  Path cniConfig;

  @Option(
      names = "--cni-socket",
      description = "the CNI server's UNIX socket (overrides the configuration's)")
  Path cniSocket;

  @Option(
      names = "--agent-metrics-address",
      description = "the agent's /metrics, /healthz, /readyz (host:port, 'off')",
      defaultValue = "127.0.0.1:8000")
  String agentMetricsAddress;

  @Option(
      names = "--bgp-metrics-address",
      description =
          "the speaker's /metrics and /healthz (host:port, 'off'; sartd bgp's --metrics-address;"
              + " default: the file's metrics_address, then 127.0.0.1:7472)")
  String bgpMetricsAddress;

  @Option(
      names = "--fib-config",
      description =
          "sartd fib's YAML for the FIB daemon (default: one channel "
              + "'bgp-to-kernel' from this speaker's --api to kernel table --fib-table)")
  Path fibConfig;

  @Option(
      names = "--fib-table",
      description = "the kernel table of the default FIB channel",
      defaultValue = "254")
  int fibTable;

  @Option(
      names = "--fib-endpoint",
      description = "the FIB's FibManagerApi listen address (default channel)",
      defaultValue = "127.0.0.1:5001")
  String fibEndpoint;

  @Option(
      names = "--fib-metrics",
      description = "serve the FIB's /metrics, /healthz, /readyz on this host:port")
  String fibMetrics;

  @Option(
      names = "--no-fib",
      description = "run without the FIB daemon (learned routes stay out of the kernel)")
  boolean noFib;

  @Option(
      names = "--resync",
      description = "seconds between the agent's full passes",
      defaultValue = "30")
  int resync;

  @Option(
      names = "--warmup",
      paramLabel = "ROUTES",
      description =
          "the speaker's warm-up before it listens (sartd bgp --warmup); default ${DEFAULT-VALUE}:"
              + " a node's speaker serves at once, its start costs no warm-up CPU or heap",
      defaultValue = "${sys:sart.bgp.warmup:-0}")
  int warmup;

  @Mixin LogOptions log;

  /**
   * sart's CNI set-up (its {@code sartd-fib-config}): the speaker's best paths of both families
   * into one kernel table, by default the main table, where the blocks of the other nodes' pods go.
   */
  FibConfig defaultFib() {
    return new FibConfig(
        fibEndpoint,
        FibConfig.DEFAULT_ROUTE_PROTOCOL,
        List.of(
            new FibConfig.ChannelConfig(
                "bgp-to-kernel",
                EnumSet.of(Family.INET, Family.INET6),
                List.of(
                    new FibConfig.Endpoint(
                        FibConfig.Protocol.bgp, api, List.of(), FibConfig.Mode.watch)),
                List.of(
                    new FibConfig.Endpoint(
                        FibConfig.Protocol.kernel, null, List.of(fibTable), null)))));
  }

  @Override
  public Integer call() throws Exception {
    HeapBound.install();
    List<String> bgpArgs =
        new ArrayList<>(
            List.of(
                "--api",
                api,
                "--port",
                Integer.toString(port),
                "--warmup",
                Integer.toString(warmup),
                "-l",
                log.level,
                "-d",
                log.format));
    if (file != null) {
      bgpArgs.addAll(List.of("-f", file.toString()));
    }
    if (bgpMetricsAddress != null) {
      bgpArgs.addAll(List.of("--metrics-address", bgpMetricsAddress));
    }
    // the agent re-adds the Services' and blocks' paths and then says so (RFC 4724 §4.1)
    bgpArgs.addAll(List.of("--graceful-restart", "--await-local-paths"));
    List<String> agentArgs =
        new ArrayList<>(
            List.of(
                "--speaker-endpoint",
                api,
                "--resync",
                Integer.toString(resync),
                "--metrics-address",
                agentMetricsAddress,
                // pods only with a CNI configuration; the speaker inside reports over
                // WatchPeerState
                "--mode",
                cniConfig != null ? "dual" : "lb",
                "--peer-state-watcher",
                "off",
                "-l",
                log.level,
                "-d",
                log.format));
    if (kubeconfig != null) {
      agentArgs.addAll(List.of("--kubeconfig", kubeconfig.toString()));
    }
    if (nodeName != null) {
      agentArgs.addAll(List.of("--node-name", nodeName));
    }
    if (cniConfig != null) {
      agentArgs.addAll(List.of("--cni-config", cniConfig.toString()));
    }
    if (cniSocket != null) {
      agentArgs.addAll(List.of("--cni-socket", cniSocket.toString()));
    }
    // the FIB and the agent reach the speaker's API in process, not over loopback TCP (DESIGN.md
    // §3); its TCP listener stays for the CLI and anything else outside this JVM
    LocalEndpoints.share(api);
    CommandLine bgp = new CommandLine(new BgpCommand());
    bgp.parseArgs(bgpArgs.toArray(String[]::new));
    CommandLine agent = new CommandLine(new AgentCommand());
    agent.parseArgs(agentArgs.toArray(String[]::new));
    Parts parts = Parts.ofProcess();
    Thread speaker = parts.start("bgp", ((BgpCommand) bgp.getCommand())::call);
    if (!noFib) {
      FibConfig fc =
          fibConfig != null
              ? ConfigFile.read(fibConfig, FibConfig.File.class).check(FibConfig::of)
              : defaultFib();
      FibCommand fibCommand = new FibCommand();
      fibCommand.metrics = fibMetrics;
      // the FIB's subscriber retries until the speaker's API answers
      parts.start(
          "fib",
          () -> {
            fibCommand.run(fc);
            return null;
          });
    }
    // the agent retries until the speaker's API answers
    Integer rc = parts.run("agent", ((AgentCommand) agent.getCommand())::call);
    speaker.join();
    return rc == null ? 1 : rc;
  }
}
