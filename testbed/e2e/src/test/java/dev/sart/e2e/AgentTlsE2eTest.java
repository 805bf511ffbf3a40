package dev.sart.e2e;

import static org.awaitility.Awaitility.await;

import dev.sart.testbed.mockapi.EnableMockApi;
import dev.sart.testbed.mockapi.MockApi;
import dev.sart.testbed.mockapi.MockKubeconfig;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sartd agent} verifies the API server as a real cluster needs: the mock serves HTTPS with a
 * certificate made as it starts, and an agent whose kubeconfig names another CA ({@code
 * certificate-authority-data} of a second mock) says the certificate is not trusted and never gets
 * a request through, where the same agent given the server's own CA does.
 */
@EnableMockApi
class AgentTlsE2eTest {
  static KubernetesClient client;
  static KubernetesMockServer server;

  @Test
  void anAgentThatDoesNotTrustTheServersCaNeverReachesIt(@TempDir Path dir) throws Exception {
    var stranger = MockApi.start();
    String otherCa = MockApi.caCertData(stranger);
    stranger.destroy();
    Path wrong =
        MockKubeconfig.write(
            dir.resolve("wrong-ca"), client.getConfiguration().getMasterUrl(), otherCa);
    int before = server.getRequestCount();
    HostAgent agent = agent(wrong, dir.resolve("wrong-ca.log"));
    try {
      await("the agent says the server's certificate is not trusted")
          .atMost(Duration.ofSeconds(120))
          .until(() -> agent.log().contains("PKIX path"));
      await("no request of the agent's reached the server")
          .during(Duration.ofSeconds(5))
          .atMost(Duration.ofSeconds(10))
          .until(() -> server.getRequestCount() == before);
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError("agent log:\n" + agent.log(), e);
    } finally {
      agent.close();
    }

    // the control: the same agent trusting the server's own CA gets through
    Path right = MockKubeconfig.write(dir.resolve("kubeconfig"), client.getConfiguration());
    HostAgent trusting = agent(right, dir.resolve("agent.log"));
    try {
      await("the agent with the server's CA reaches it")
          .atMost(Duration.ofSeconds(120))
          .until(() -> server.getRequestCount() > before);
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError("agent log:\n" + trusting.log(), e);
    } finally {
      trusting.close();
    }
  }

  /** {@code sartd agent} for a node of no speaker (nothing listens on port 1). */
  private static HostAgent agent(Path kubeconfig, Path log) throws IOException {
    return HostAgent.start(kubeconfig, "worker1", "127.0.0.1:1", log);
  }
}
