package dev.sart.testbed.cluster;

import static org.awaitility.Awaitility.await;

import dev.sart.testbed.ManagedProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * sart's processes on a node, started as its DaemonSet would: {@code sartd node} (speaker, FIB and
 * agent in one JVM, the project's manifests), or "split" as sart's DaemonSet runs them, three
 * processes in the node's namespace: {@code sartd bgp} (reporting peer states to the agent with
 * {@code --exporter}, sart's way), {@code sartd fib} (the speaker's best paths into the main table)
 * and {@code sartd agent} (NodeBGP, BGPPeers, BGPAdvertisements and the CNI server), so that the
 * agent can be restarted alone.
 */
final class NodeDaemons {
  /** The speaker's and the agent's endpoints inside the node (sart's defaults). */
  static final String SPEAKER_API = "127.0.0.1:5000";

  static final String EXPORTER = "127.0.0.1:5003";
  static final int AGENT_HTTP_PORT = 8000;

  private NodeDaemons() {}

  private static List<String> jvm() {
    return new ArrayList<>(
        List.of(
            Launch.java(),
            "--enable-native-access=ALL-UNNAMED",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Xmx256m",
            "-Dsart.bgp.warmup=0",
            Launch.classpathArgument(),
            "dev.sart.sartd.Sartd"));
  }

  /** The agent's CNI configuration (socket, the node's address, MTU). */
  private static Path agentConfig(ClusterNode n) {
    Path agentConfig = n.netns().dir().resolve("agent.json");
    try {
      Files.writeString(
          agentConfig,
          "{\"socket\":\""
              + n.cniSocket()
              + "\",\"nodeAddress4\":\""
              + n.internalIp()
              + "\",\"nodeAddress6\":\""
              + n.address6()
              + "\",\"mtu\":1500}\n");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return agentConfig;
  }

  /** {@code sartd node}, configured by kubeconfig and flags only. */
  static void startNode(ClusterNode n, Path kubeconfig, String processName) {
    List<String> argv = jvm();
    argv.addAll(
        List.of(
            "node",
            "--kubeconfig",
            kubeconfig.toString(),
            "--node-name",
            n.name(),
            "--cni-config",
            agentConfig(n).toString(),
            "--cni-socket",
            n.cniSocket().toString()));
    n.sartd().process = n.netns().spawn(processName, argv, Map.of("NODE_NAME", n.name()));
  }

  /** The three processes of a split node. */
  static void startSplit(ClusterNode n, Path kubeconfig, String suffix) {
    Path fib = n.netns().dir().resolve("fib.yaml");
    try {
      // what sartd node's default FIB does: both families' best paths into the main table
      Files.writeString(
          fib,
          """
          endpoint: 127.0.0.1:5001
          channels:
            - name: bgp-to-kernel
              subscribers:
                - protocol: bgp
                  endpoint: %s
              publishers:
                - protocol: kernel
                  tables: [254]
          """
              .formatted(SPEAKER_API));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> bgp = jvm();
    bgp.addAll(List.of("bgp", "--api", SPEAKER_API, "--exporter", EXPORTER));
    n.sartd().process = n.netns().spawn("sartd-bgp" + suffix, bgp, Map.of());
    List<String> fibArgv = jvm();
    fibArgv.addAll(List.of("fib", "-f", fib.toString()));
    n.sartd().fib = n.netns().spawn("sartd-fib" + suffix, fibArgv, Map.of());
    startAgent(n, kubeconfig, "sartd-agent" + suffix);
  }

  /** {@code sartd agent} of a split node. */
  static void startAgent(ClusterNode n, Path kubeconfig, String processName) {
    List<String> argv = jvm();
    argv.addAll(
        List.of(
            "agent",
            "--kubeconfig",
            kubeconfig.toString(),
            "--node-name",
            n.name(),
            "--speaker-endpoint",
            SPEAKER_API,
            "--peer-state-watcher",
            EXPORTER,
            "--metrics-address",
            "127.0.0.1:" + AGENT_HTTP_PORT,
            "--cni-config",
            agentConfig(n).toString(),
            "--cni-socket",
            n.cniSocket().toString()));
    n.sartd().agent = n.netns().spawn(processName, argv, Map.of("NODE_NAME", n.name()));
  }

  /** Every process of the node (one for {@code sartd node}, three for a split node). */
  static List<ManagedProcess> processes(ClusterNode n) {
    List<ManagedProcess> out = new ArrayList<>();
    for (ManagedProcess p :
        new ManagedProcess[] {n.sartd().process, n.sartd().fib, n.sartd().agent}) {
      if (p != null) {
        out.add(p);
      }
    }
    return out;
  }

  /**
   * Stops {@code p} with SIGTERM, as the kubelet stops a container (a rolling update of the
   * DaemonSet), and waits until it has exited; its grace period is the kubelet's default, 30 s.
   */
  static void terminate(ManagedProcess p) {
    ProcessHandle.of(p.pid()).ifPresent(ProcessHandle::destroy);
    await(p.name() + " exited").atMost(Duration.ofSeconds(30)).until(() -> !p.isAlive());
  }

  /** Kills {@code p} with SIGKILL (a crashed container) and waits until it is gone. */
  static void kill(ManagedProcess p) {
    ProcessHandle.of(p.pid()).ifPresent(ProcessHandle::destroyForcibly);
    await(p.name() + " gone").atMost(Duration.ofSeconds(30)).until(() -> !p.isAlive());
  }
}
