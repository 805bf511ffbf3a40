package dev.sart.sartd;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code sartd node}: the BGP speaker and the node agent in one JVM (the FIB daemon joins when it
 * exists). The agent still drives the speaker only through its gRPC API, here on the speaker's
 * loopback endpoint ({@code --api}).
 */
@Command(name = "node", mixinStandardHelpOptions = true, description = "Run the BGP speaker and the node agent together")
final class NodeCommand implements java.util.concurrent.Callable<Integer> {
  private static final Logger LOG = Logger.getLogger(NodeCommand.class.getName());

  @Option(names = {"-f", "--file"}, description = "the speaker's YAML config (sart's keys)")
  Path file;

  @Option(names = "--api", description = "the speaker's gRPC API listen address", defaultValue = "127.0.0.1:5000")
  String api;

  @Option(names = "--port", description = "BGP port to listen on (0: do not listen)", defaultValue = "179")
  int port;

  @Option(names = "--kubeconfig", description = "kubeconfig file (default: in-cluster, then $KUBECONFIG, then ~/.kube/config)")
  Path kubeconfig;

  @Option(names = "--node-name", description = "this node's name (default: $NODE_NAME, then $HOSTNAME)")
  String nodeName;

  @Option(names = "--cni-config", description = "start the CNI server with this JSON configuration")
  Path cniConfig;

  @Option(names = "--cni-socket", description = "the CNI server's UNIX socket (overrides the configuration's)")
  Path cniSocket;

  @Option(names = "--resync", description = "seconds between the agent's full passes", defaultValue = "30")
  int resync;

  @Mixin LogOptions log;

  @Override
  public Integer call() throws Exception {
    List<String> bgpArgs = new ArrayList<>(List.of("--api", api, "--port", Integer.toString(port), "-l", log.level,
        "-d", log.format));
    if (file != null) {
      bgpArgs.addAll(List.of("-f", file.toString()));
    }
    List<String> agentArgs = new ArrayList<>(List.of("--speaker-endpoint", api, "--resync", Integer.toString(resync),
        "-l", log.level, "-d", log.format));
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
    CommandLine bgp = new CommandLine(new BgpCommand());
    bgp.parseArgs(bgpArgs.toArray(String[]::new));
    CommandLine agent = new CommandLine(new AgentCommand());
    agent.parseArgs(agentArgs.toArray(String[]::new));
    Thread speaker = Thread.ofPlatform().name("sartd-bgp").start(() -> {
      try {
        ((BgpCommand) bgp.getCommand()).call();
      } catch (Exception e) {
        LOG.log(Level.SEVERE, "event=speaker-failed reason=\"" + e.getMessage() + "\"", e);
        System.exit(1);
      }
    });
    // the agent retries until the speaker's API answers
    int rc = ((AgentCommand) agent.getCommand()).call();
    speaker.join();
    return rc;
  }
}
