package dev.sart.e2e;

import static dev.sart.e2e.NodeHttp.metric;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.testbed.ManagedProcess;
import dev.sart.testbed.Node;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import dev.sart.testbed.mockapi.EnableMockApi;
import dev.sart.testbed.mockapi.MockKubeconfig;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
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
@EnableMockApi
class CniMetricsE2eTest {
  static KubernetesClient client;

  @RegisterExtension final Testbed testbed = new Testbed();

  @Test
  void cniCallsAndPoolUsageAreScrapedFromTheAgent(@TempDir Path dir) throws Exception {
    Topology t = testbed.topology();
    Node node = t.node("node");
    Node pod = t.node("pod");
    URI api = URI.create(client.getConfiguration().getMasterUrl());
    try (NamespaceRelay relay = NamespaceRelay.outOf(node, api.getPort())) {
      // the relay carries TLS through: the mock's certificate names 127.0.0.1
      Path kubeconfig =
          MockKubeconfig.write(
              dir.resolve("kubeconfig"),
              "https://127.0.0.1:" + relay.port(),
              client.getConfiguration().getCaCertData());
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
              JavaMains.sartd(
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
        assertEquals(14.0, metric(m, "sart_agent_pool_addresses{pool=\"pods\"}"), m);
        assertEquals(0.0, metric(m, "sart_agent_pool_addresses_in_use{pool=\"pods\"}"), m);

        String good = CniPlugin.netconf(socket, "1.0.0");
        String out = CniPlugin.run(env("ADD", pod), good, 0);
        String ip =
            new ObjectMapper().readTree(out).path("ips").findValuesAsText("address").getFirst();
        assertTrue(ip.startsWith("198.51.100."), out);
        CniPlugin.run(
            env("ADD", pod), CniPlugin.netconf(socket, "0.1.0"), 1); // no such CNI version: error 1
        m = metrics(node);
        assertEquals(1.0, metric(m, "sart_agent_pool_addresses_in_use{pool=\"pods\"}"), m);
        assertEquals(
            2.0, metric(m, "sart_agent_cni_call_duration_seconds_count{method=\"add\"}"), m);
        assertEquals(
            2.0,
            metric(m, "sart_agent_cni_call_duration_seconds_bucket{method=\"add\",le=\"+Inf\"}"),
            m);
        assertTrue(metric(m, "sart_agent_cni_call_duration_seconds_sum{method=\"add\"}") > 0, m);
        assertEquals(2.0, metric(m, "sart_agent_cni_call_total{method=\"add\"}"), m);
        assertEquals(
            1.0, metric(m, "sart_agent_cni_call_errors_total{code=\"1\",method=\"add\"}"), m);

        CniPlugin.run(env("DEL", pod), good, 0);
        m = metrics(node);
        assertEquals(0.0, metric(m, "sart_agent_pool_addresses_in_use{pool=\"pods\"}"), m);
        assertEquals(
            1.0, metric(m, "sart_agent_cni_call_duration_seconds_count{method=\"del\"}"), m);
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError("sartd agent log:\n" + agent.tail(60), e);
      } finally {
        agent.stop();
      }
    }
  }

  /** The plugin's environment for the test's one pod. */
  private static Map<String, String> env(String command, Node pod) {
    return CniPlugin.env(command, "c0ffee000001", pod, "pod-1");
  }

  private static String metrics(Node node) throws Exception {
    return NodeHttp.get(node, "/metrics").body();
  }
}
