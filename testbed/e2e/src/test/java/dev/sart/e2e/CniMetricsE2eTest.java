package dev.sart.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.testbed.ManagedProcess;
import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Node;
import dev.sart.testbed.Programs;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's CNI meters as Prometheus scrapes them: {@code sartd agent --mode=cni} in a node's
 * namespace with the block of its configuration file, the sart-cni plugin's main run as a runtime
 * runs it (one good ADD, one refused for its version, a DEL), and {@code /metrics} on the node's
 * 127.0.0.1:8000 read after each step: the call latency histogram by verb, the call and error
 * counters, and the pool's usable and used addresses.
 */
@EnableKubernetesMockClient(crud = true)
class CniMetricsE2eTest {
  static KubernetesClient client;

  private static final String JAVA = ProcessHandle.current().info().command().orElse("java");

  @RegisterExtension final Testbed testbed = new Testbed();

  @Test
  void cniCallsAndPoolUsageAreScrapedFromTheAgent(@TempDir Path dir) throws Exception {
    Topology t = testbed.topology();
    Node node = t.node("node");
    Node pod = t.node("pod");
    try (NamespaceRelay relay =
        NamespaceRelay.outOf(
            node, URI.create(client.getConfiguration().getMasterUrl()).getPort())) {
      Path kubeconfig =
          Files.writeString(
              dir.resolve("kubeconfig"),
              String.join(
                  "\n",
                  "apiVersion: v1",
                  "kind: Config",
                  "clusters:",
                  "- name: mock",
                  "  cluster:",
                  "    server: https://127.0.0.1:" + relay.port(),
                  "    insecure-skip-tls-verify: true",
                  "contexts:",
                  "- name: mock",
                  "  context: {cluster: mock, user: tester}",
                  "current-context: mock",
                  "users:",
                  "- name: tester",
                  "  user: {token: test}",
                  ""));
      Path socket = dir.resolve("sart.sock");
      Path cni =
          Files.writeString(
              dir.resolve("cni.json"),
              """
              {"socket": "%s", "nodeAddress4": "192.0.2.1", "defaultPool": "pods",
               "blocks": [{"pool": "pods", "cidr": "198.51.100.0/28"}]}
              """
                  .formatted(socket));
      ManagedProcess agent =
          node.spawn(
              "sartd-agent",
              List.of(
                  JAVA,
                  "--enable-native-access=ALL-UNNAMED",
                  "-cp",
                  System.getProperty("java.class.path"),
                  "dev.sart.sartd.Sartd",
                  "agent",
                  "--mode=cni",
                  "--kubeconfig",
                  kubeconfig.toString(),
                  "--node-name",
                  "worker1",
                  "--cni-config",
                  cni.toString(),
                  "--peer-state-watcher",
                  "off"));
      try {
        await("the agent's socket and /metrics")
            .atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofMillis(500))
            .failFast("sartd agent exited", () -> !agent.isAlive())
            .until(
                () -> Files.exists(socket) && metrics(node).contains("sart_agent_pool_addresses"));
        String m = metrics(node);
        // a /28 without its network and broadcast addresses
        assertEquals(14.0, value(m, "sart_agent_pool_addresses{pool=\"pods\"}"), m);
        assertEquals(0.0, value(m, "sart_agent_pool_addresses_in_use{pool=\"pods\"}"), m);

        String good = conf(socket, "1.0.0");
        String out = plugin(env("ADD", pod), good, 0);
        String ip =
            new ObjectMapper().readTree(out).path("ips").findValuesAsText("address").getFirst();
        assertTrue(ip.startsWith("198.51.100."), out);
        plugin(env("ADD", pod), conf(socket, "0.1.0"), 1); // no such CNI version: error 1
        m = metrics(node);
        assertEquals(1.0, value(m, "sart_agent_pool_addresses_in_use{pool=\"pods\"}"), m);
        assertEquals(
            2.0, value(m, "sart_agent_cni_call_duration_seconds_count{method=\"add\"}"), m);
        assertEquals(
            2.0,
            value(m, "sart_agent_cni_call_duration_seconds_bucket{method=\"add\",le=\"+Inf\"}"),
            m);
        assertTrue(value(m, "sart_agent_cni_call_duration_seconds_sum{method=\"add\"}") > 0, m);
        assertEquals(2.0, value(m, "sart_agent_cni_call_total{method=\"add\"}"), m);
        assertEquals(
            1.0, value(m, "sart_agent_cni_call_errors_total{code=\"1\",method=\"add\"}"), m);

        plugin(env("DEL", pod), good, 0);
        m = metrics(node);
        assertEquals(0.0, value(m, "sart_agent_pool_addresses_in_use{pool=\"pods\"}"), m);
        assertEquals(
            1.0, value(m, "sart_agent_cni_call_duration_seconds_count{method=\"del\"}"), m);
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError("sartd agent log:\n" + agent.tail(60), e);
      } finally {
        agent.stop();
      }
    }
  }

  private static String conf(Path socket, String version) {
    return "{\"cniVersion\":\""
        + version
        + "\",\"name\":\"sart-network\",\"type\":\"sart-cni\",\"endpoint\":\""
        + socket
        + "\",\"timeout\":60}";
  }

  private static Map<String, String> env(String command, Node pod) {
    return Map.of(
        "CNI_COMMAND",
        command,
        "CNI_CONTAINERID",
        "c0ffee000001",
        "CNI_NETNS",
        "/var/run/netns/" + pod.netns(),
        "CNI_IFNAME",
        "eth0",
        "CNI_PATH",
        "/opt/cni/bin",
        "CNI_ARGS",
        "IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=pod-1");
  }

  /** The plugin's main as a runtime runs a plugin: the CNI_* environment, netconf on stdin. */
  private static String plugin(Map<String, String> env, String stdin, int exit) throws Exception {
    ProcessBuilder pb =
        Programs.processBuilder(
            JAVA,
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-cp",
            System.getProperty("java.class.path"),
            "dev.sart.cni.SartCni");
    pb.environment().clear();
    pb.environment().put("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
    pb.environment().putAll(env);
    pb.redirectError(ProcessBuilder.Redirect.INHERIT);
    Process p = pb.start();
    try (OutputStream in = p.getOutputStream()) {
      in.write(stdin.getBytes(StandardCharsets.UTF_8));
    }
    String out;
    try (InputStream o = p.getInputStream()) {
      out = new String(o.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the plugin did not finish");
    assertEquals(exit, p.exitValue(), "sart-cni " + env.get("CNI_COMMAND") + ": " + out);
    return out;
  }

  /** GET http://127.0.0.1:8000/metrics inside the node (the agent's default endpoint there). */
  private static String metrics(Node node) throws Exception {
    ExecutorService ex =
        Executors.newSingleThreadExecutor(NamespaceThreads.factory(node, "scrape"));
    try {
      return ex.submit(
              () -> {
                HttpURLConnection c =
                    (HttpURLConnection)
                        URI.create("http://127.0.0.1:8000/metrics").toURL().openConnection();
                try (InputStream in = c.getInputStream()) {
                  return new String(in.readAllBytes(), StandardCharsets.UTF_8);
                } catch (java.io.IOException e) {
                  return "";
                } finally {
                  c.disconnect();
                }
              })
          .get();
    } finally {
      ex.shutdownNow();
    }
  }

  /** The value of one series in a Prometheus exposition (NaN when absent). */
  private static double value(String exposition, String series) {
    return exposition
        .lines()
        .filter(l -> l.startsWith(series + " "))
        .mapToDouble(l -> Double.parseDouble(l.substring(series.length() + 1).strip()))
        .findFirst()
        .orElse(Double.NaN);
  }
}
