package dev.sart.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.agent.bgp.BgpAgent;
import dev.sart.agent.cni.AgentConfig;
import dev.sart.agent.cni.CniAgent;
import dev.sart.agent.kube.BlockSource;
import dev.sart.agent.kube.KubeIpam;
import dev.sart.agent.kube.PoolSelector;
import dev.sart.crds.AddressBlock;
import dev.sart.crds.AddressBlockSpec;
import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressPoolSpec;
import dev.sart.crds.AddressType;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.BGPPeerSpec;
import dev.sart.crds.NodeBGP;
import dev.sart.crds.NodeBGPSpec;
import dev.sart.crds.Sart;
import dev.sart.crds.SpeakerConfig;
import dev.sart.testbed.Node;
import dev.sart.testbed.Programs;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
@EnableKubernetesMockClient(crud = true)
class ExplainPodE2eTest {
  static KubernetesClient client;

  private static final String JAVA = ProcessHandle.current().info().command().orElse("java");
  private static final String POOL = "default-pod-pool";

  private record Member(String name, String address, long asn, String block) {}

  private static final Member N1 = new Member("node1", "192.0.2.1", 65001, "198.51.100.0/28");
  private static final Member N2 = new Member("node2", "192.0.2.2", 65002, "198.51.100.16/28");

  private static final String FIB_CONFIG =
      """
      endpoint: 127.0.0.1:5001
      channels:
        - name: bgp-to-kernel
          subscribers:
            - protocol: bgp
              endpoint: 127.0.0.1:5000
          publishers:
            - protocol: kernel
              tables: [254]
      """;

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
    client.resources(BGPAdvertisement.class).inAnyNamespace().delete();
    for (var p : client.resources(BGPPeer.class).list().getItems()) {
      client.resource(p).edit(c -> clearFinalizers(c));
    }
    client.resources(BGPPeer.class).delete();
    for (var n : client.resources(NodeBGP.class).list().getItems()) {
      client.resource(n).edit(c -> clearFinalizers(c));
    }
    client.resources(NodeBGP.class).delete();
    client.resources(AddressBlock.class).delete();
    client.resources(AddressPool.class).delete();
    client.pods().inAnyNamespace().delete();
  }

  private static <T extends io.fabric8.kubernetes.api.model.HasMetadata> T clearFinalizers(T o) {
    o.getMetadata().getFinalizers().clear(); // the agent's
    return o;
  }

  private static String peerName(Member self, Member other) {
    return self.name() + "-" + other.asn() + "-" + other.address();
  }

  /** What the controller makes for a node: NodeBGP, a BGPPeer to the other node, its block. */
  private static void cluster(Member self, Member other, int index) {
    client
        .resource(
            new NodeBGP(
                self.name(),
                new NodeBGPSpec(
                    self.asn(),
                    self.address(),
                    new SpeakerConfig("127.0.0.1:5000", 5L, false),
                    null)))
        .create();
    BGPPeer peer =
        new BGPPeer(
            peerName(self, other),
            new BGPPeerSpec(
                other.asn(),
                other.address(),
                9L,
                3L,
                null,
                self.name(),
                null,
                new SpeakerConfig("127.0.0.1:5000", null, null),
                null));
    peer.getMetadata().setLabels(Map.of(Sart.BGP_PEER_NODE_LABEL, self.name()));
    peer.getMetadata().setAnnotations(Map.of("bgppeer.sart.terassyi.net/connect-retry-time", "1"));
    client.resource(peer).create();
    AddressBlock b =
        new AddressBlock(
            POOL + "-" + index,
            new AddressBlockSpec(self.block(), AddressType.POD, POOL, self.name(), null));
    b.getMetadata()
        .setLabels(
            Map.of(Sart.ADDRESS_BLOCK_NODE_LABEL, self.name(), Sart.ADDRESS_POOL_LABEL, POOL));
    client.resource(b).create();
  }

  /** The node's sartd bgp and fib, the agent (CNI and BGP sides), relays to the two APIs. */
  private void startNode(Member self, Node node) throws Exception {
    SartdNode.start(node);
    FibNode.start(node, FIB_CONFIG, "sartd-fib");
    NamespaceRelay speaker = NamespaceRelay.into(node, 5000);
    closing.add(speaker);
    NamespaceRelay fib = NamespaceRelay.into(node, 5001);
    closing.add(fib);
    endpoints.addAll(
        List.of(
            "--speaker",
            self.name() + "=127.0.0.1:" + speaker.port(),
            "--fib",
            self.name() + "=127.0.0.1:" + fib.port()));
    AgentConfig config =
        AgentConfig.of(
            node.dir().resolve("sart.sock"),
            Path.of("/var/run/netns", node.netns()),
            self.address(),
            null,
            List.of(),
            null);
    closing.add(
        CniAgent.start(
            config,
            new KubeIpam(
                new BlockSource(client, self.name(), Duration.ofSeconds(10)),
                new PoolSelector(client))));
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
    client
        .resource(
            new AddressPool(
                POOL, new AddressPoolSpec("198.51.100.0/24", AddressType.POD, 28, true)))
        .create();
    cluster(N1, N2, 0);
    cluster(N2, N1, 1);
    startNode(N1, n1);
    startNode(N2, n2);
    kubeconfig = kubeconfig();
    String a = add(N1, n1, podA, "a1b2c3d4e5f6", "pod-a");
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

  private Path kubeconfig() throws Exception {
    Path f = Files.createTempFile("explain", ".kubeconfig");
    Files.writeString(
        f,
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: mock
          cluster:
            server: %s
            insecure-skip-tls-verify: true
        contexts:
        - name: mock
          context:
            cluster: mock
            user: tester
        current-context: mock
        users:
        - name: tester
          user:
            token: test
        """
            .formatted(client.getMasterUrl().toString()));
    return f;
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
            List.of(
                JAVA,
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.sart.cli.Sart",
                "explain",
                "--kubeconfig",
                kubeconfig.toString()));
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

  /** ADD through the plugin as a runtime runs it; the kubelet's part: nodeName and podIPs. */
  private static String add(Member m, Node node, Node pod, String containerId, String podName)
      throws Exception {
    var created =
        client
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withNamespace("default")
                    .withName(podName)
                    .endMetadata()
                    .withNewSpec()
                    .withNodeName(m.name())
                    .addNewContainer()
                    .withName("app")
                    .withImage("app")
                    .endContainer()
                    .endSpec()
                    .build())
            .create();
    String conf =
        "{\"cniVersion\":\"1.0.0\",\"name\":\"sart-network\",\"type\":\"sart-cni\",\"endpoint\":\""
            + node.dir().resolve("sart.sock")
            + "\",\"timeout\":60}";
    Map<String, String> env =
        Map.of(
            "CNI_COMMAND",
            "ADD",
            "CNI_CONTAINERID",
            containerId,
            "CNI_NETNS",
            "/var/run/netns/" + pod.netns(),
            "CNI_IFNAME",
            "eth0",
            "CNI_PATH",
            "/opt/cni/bin",
            "CNI_ARGS",
            "IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME="
                + podName
                + ";K8S_POD_INFRA_CONTAINER_ID="
                + containerId);
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
      in.write(conf.getBytes(StandardCharsets.UTF_8));
    }
    String out;
    try (InputStream o = p.getInputStream()) {
      out = new String(o.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the plugin did not finish");
    assertEquals(0, p.exitValue(), "sart-cni ADD: " + out);
    String ip =
        new ObjectMapper()
            .readTree(out)
            .path("ips")
            .findValuesAsText("address")
            .getFirst()
            .split("/")[0];
    created.setStatus(new PodStatusBuilder().withPodIP(ip).addNewPodIP(ip).build());
    client.resource(created).updateStatus();
    return ip;
  }

  /** Keeps a real output for the CLI's README (target/explain/). */
  private static void sample(String file, String text) throws Exception {
    Path dir = Path.of("target", "explain");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(file), text);
  }
}
