package dev.sart.e2e;

import static dev.sart.e2e.PodNodes.N1;
import static dev.sart.e2e.PodNodes.N2;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.agent.bgp.BgpAgent;
import dev.sart.testbed.Node;
import dev.sart.testbed.Programs;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import dev.sart.testbed.mockapi.EnableMockApi;
import dev.sart.testbed.mockapi.MockKubeconfig;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code sart explain pod} down to the kernels: two nodes (as in {@link CrossNodePodTest}: each a
 * namespace with its own {@code sartd bgp} and {@code sartd fib} processes, the agent in the test
 * JVM against fabric8's mock API server, peering directly over eBGP), a pod on node1 made by the
 * sart-cni plugin. The CLI runs as its own process in the test's namespace and reaches each node's
 * speaker and FIB through relays ({@code --speaker}, {@code --fib}): the pod's host route on node1
 * and node1's block on node2 are read from the kernels through the FIBs' {@code LookupRoute}. Each
 * route removed on purpose is named as the broken link.
 */
@EnableMockApi
class ExplainPodE2eTest {
  static KubernetesClient client;

  @RegisterExtension final Testbed testbed = new Testbed();

  private final List<AutoCloseable> closing = new ArrayList<>();
  private final List<String> endpoints = new ArrayList<>();
  private Path kubeconfig;

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : closing.reversed()) {
      c.close();
    }
    if (kubeconfig != null) {
      Files.deleteIfExists(kubeconfig);
    }
    PodNodes.deleteAll(client);
  }

  /** The node's sartd bgp and fib, the agent (CNI and BGP sides), relays to the two APIs. */
  private void startNode(PodNodes.Member self, Node node) throws Exception {
    NamespaceRelay speaker = PodNodes.startNode(client, self, node, closing);
    NamespaceRelay fib = NamespaceRelay.into(node, 5001);
    closing.add(fib);
    endpoints.addAll(
        List.of(
            "--speaker",
            self.name() + "=127.0.0.1:" + speaker.port(),
            "--fib",
            self.name() + "=127.0.0.1:" + fib.port()));
    closing.add(
        new BgpAgent(client, self.name(), Duration.ofSeconds(30), "127.0.0.1:" + speaker.port())
            .start());
  }

  @Test
  void thePodsRoutesAreReadFromBothKernelsAndAMissingOneIsTheBrokenLink() throws Exception {
    Topology t = testbed.topology();
    Node n1 = t.node("node1");
    Node n2 = t.node("node2");
    Node podA = t.node("poda");
    t.link(n1, n2).addresses(N1.address() + "/30", N2.address() + "/30");
    PodNodes.createClusterObjects(client);
    startNode(N1, n1);
    startNode(N2, n2);
    kubeconfig =
        MockKubeconfig.write(
            Files.createTempFile("explain", ".kubeconfig"), client.getConfiguration());
    String a = PodNodes.addPod(client, N1, n1, podA, "a1b2c3d4e5f6", "pod-a");
    await("node2 learned node1's block")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> n2.exec("ip", "-4", "route", "show", N1.block()).contains("proto bgp"));

    Run ok = explain("pod", "default/pod-a");
    assertEquals(0, ok.code(), ok.out() + ok.err());
    assertTrue(ok.out().contains("kernel node1 (the pod's): " + a + "/32 dev sart"), ok.out());
    assertTrue(ok.out().contains("(table 120, proto 50), link up"), ok.out());
    assertTrue(
        ok.out().contains("kernel node2: " + N1.block() + " via " + N1.address() + " dev "),
        ok.out());
    assertTrue(ok.out().contains("(table 254, proto 186)"), ok.out());
    assertTrue(ok.out().endsWith("every link holds\n"), ok.out());
    sample("explain-pod-ok.txt", ok.out());

    // node2's kernel loses the block (as when the FIB could not install it): node2 is named
    n2.exec("ip", "route", "del", N1.block(), "proto", "186");
    JsonNode node2Broken = explain("-o", "json", "pod", "default/pod-a").json();
    assertEquals("kernel", node2Broken.path("firstBroken").path("kind").asText());
    assertEquals("node2", node2Broken.path("firstBroken").path("name").asText());
    assertTrue(
        node2Broken
            .path("firstBroken")
            .path("summary")
            .asText()
            .equals("no route to " + a + ": pods there cannot reach it"),
        node2Broken::toString);

    // the pod's host route goes on node1: the pod's own node comes first
    n1.exec("ip", "route", "del", a + "/32", "table", "120");
    Run broken = explain("pod", "default/pod-a");
    assertEquals(3, broken.code(), broken.out() + broken.err());
    assertTrue(
        broken.out().contains("first broken link: kernel node1 (the pod's): no route to " + a),
        broken.out());
    assertTrue(broken.out().contains("what to do: the agent on node1 makes " + a), broken.out());
    sample("explain-pod-no-host-route.txt", broken.out());
  }

  record Run(int code, String out, String err) {
    JsonNode json() throws Exception {
      return new ObjectMapper().readTree(out);
    }
  }

  /** {@code sart explain ...} as its own process, as a user runs it. */
  private Run explain(String... args) throws Exception {
    List<String> argv =
        new ArrayList<>(
            JavaMains.tool("dev.sart.cli.Sart", "explain", "--kubeconfig", kubeconfig.toString()));
    argv.addAll(endpoints);
    argv.addAll(List.of(args));
    Process p = Programs.processBuilder(argv.toArray(String[]::new)).start();
    p.getOutputStream().close();
    var err = new java.util.concurrent.CompletableFuture<String>();
    Thread.ofVirtual()
        .start(
            () -> {
              try (InputStream e = p.getErrorStream()) {
                err.complete(new String(e.readAllBytes(), StandardCharsets.UTF_8));
              } catch (java.io.IOException x) {
                err.complete(x.toString());
              }
            });
    String out;
    try (InputStream o = p.getInputStream()) {
      out = new String(o.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "sart explain did not finish");
    return new Run(p.exitValue(), out, err.get(30, TimeUnit.SECONDS));
  }

  /** Keeps a real output for the CLI's README (target/explain/). */
  private static void sample(String file, String text) throws Exception {
    Path dir = Path.of("target", "explain");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(file), text);
  }
}
