package dev.sart.sartd;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.agent.cni.AgentConfig;
import dev.sart.controller.webhook.Certs;
import dev.sart.proto.v1.BgpExporterApiGrpc;
import dev.sart.proto.v1.ExportPeerStateRequest;
import dev.sart.proto.v1.Peer;
import dev.sart.testbed.mockapi.EnableMockApi;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code sartd agent} started with sart's command lines and sart's config file (sart.md §4.2, its
 * manifests' {@code args}), in the test's JVM against fabric8's mock API server: what each flag and
 * key does, not only that it parses. (The CNI side's TCP endpoint itself is kube-agent's {@code
 * SartNetconfTest}; here, what sart's CNI flags resolve to.)
 */
@EnableMockApi
class SartAgentFlagsTest {
  KubernetesClient client;

  @TempDir Path dir;

  private static AgentCommand parse(String... args) {
    AgentCommand a = new AgentCommand();
    new CommandLine(a).parseArgs(args);
    return a;
  }

  private static HttpResponse<String> get(HttpClient http, String url) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpClient trustingClient() throws Exception {
    SSLContext trustAll = SSLContext.getInstance("TLS");
    trustAll.init(
        null,
        new TrustManager[] {
          new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] c, String a) {}

            @Override
            public void checkServerTrusted(X509Certificate[] c, String a) {}

            @Override
            public X509Certificate[] getAcceptedIssuers() {
              return new X509Certificate[0];
            }
          }
        },
        null);
    return HttpClient.newBuilder().sslContext(trustAll).build();
  }

  private static double passes(HttpClient http, int port) throws Exception {
    String text = get(http, "http://127.0.0.1:" + port + "/metrics").body();
    Matcher m =
        Pattern.compile("(?m)^sart_agent_reconciliation_total\\{[^}]*\\} (\\S+)$").matcher(text);
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }

  /**
   * sart's lb overlay runs {@code sartd agent --mode=lb}; its speaker DaemonSet {@code sartd bgp
   * --exporter=127.0.0.1:5003}; its probes GET :8000 on the node's address; its cert volume holds
   * the TLS pair for :9443.
   */
  @Test
  void sartsLbCommandLineServesProbesOnEveryAddressHttpsAndThePeerStateWatcher() throws Exception {
    Certs.generate("localhost", dir, 1);
    AgentCommand cmd =
        parse(
            "--mode=lb",
            "-e",
            "127.0.0.5002",
            "--http-port",
            "0",
            "--https-port",
            "0",
            "--tls-cert",
            dir.resolve("tls.crt").toString(),
            "--tls-key",
            dir.resolve("tls.key").toString(),
            "--peer-state-watcher",
            "127.0.0.1:0",
            "--resync",
            "3600",
            "--node-name",
            "n1");
    HttpClient http = trustingClient();
    try (AgentCommand.Running r = cmd.start(client, "n1")) {
      // sart bound its HTTP app on 0.0.0.0 (the kubelet probes the node's address)
      assertTrue(r.httpAddress().getAddress().isAnyLocalAddress(), "" + r.httpAddress());
      assertEquals(200, get(http, "http://127.0.0.1:" + r.httpPort() + "/healthz").statusCode());
      assertEquals(200, get(http, "https://localhost:" + r.httpsPort() + "/healthz").statusCode());
      assertTrue(
          get(http, "https://localhost:" + r.httpsPort() + "/metrics")
              .body()
              .contains("jvm_memory_used_bytes"));
      assertFalse(r.cni(), "--mode=lb runs no CNI server");
      await("the agent's first pass")
          .atMost(Duration.ofSeconds(60))
          .until(() -> passes(http, r.httpPort()) >= 1);
      double before = passes(http, r.httpPort());
      // the speaker's exporter call (sartd bgp --exporter) makes the agent pass at once
      ManagedChannel ch =
          NettyChannelBuilder.forAddress("127.0.0.1", r.watcherPort()).usePlaintext().build();
      try {
        BgpExporterApiGrpc.newBlockingStub(ch)
            .withDeadlineAfter(20, TimeUnit.SECONDS)
            .exportPeerState(
                ExportPeerStateRequest.newBuilder()
                    .setAsn(65000)
                    .setAddr("192.0.2.1")
                    .setName("n1-65000-192.0.2.1")
                    .setState(Peer.State.ESTABLISHED)
                    .build());
      } finally {
        ch.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
      await("a pass after ExportPeerState (resync is an hour)")
          .atMost(Duration.ofSeconds(60))
          .until(() -> passes(http, r.httpPort()) > before);
    }
  }

  /** sart's agent Config with every key it has; a flag given wins over the file. */
  @Test
  void sartsAgentConfigFileSetsPortsTlsModeAndWatcher() throws Exception {
    Certs.generate("localhost", dir.resolve("cert"), 1);
    Path f =
        Files.writeString(
            dir.resolve("agent.yaml"),
            """
            http_port: 0
            https_port: 0
            endpoint: 0.0.0.0:5002
            tls:
              cert: %s
              key: %s
            requeue_interval: 1800
            peer_state_watcher: 127.0.0.1:0
            mode: Dual
            cni_endpoint: 127.0.0.1:6000
            """
                .formatted(dir.resolve("cert/tls.crt"), dir.resolve("cert/tls.key")));
    AgentCommand cmd = parse("-f", f.toString(), "--mode", "lb", "--node-name", "n1");
    SartDaemonOptions.Settings s = cmd.settings();
    assertEquals(KubeDaemonFile.Mode.LB, s.mode(), "the flag wins over the file's mode");
    assertEquals(1800L, s.requeueInterval());
    HttpClient http = trustingClient();
    try (AgentCommand.Running r = cmd.start(client, "n1")) {
      assertTrue(r.httpPort() > 0);
      assertEquals(200, get(http, "https://localhost:" + r.httpsPort() + "/readyz").statusCode());
      assertTrue(r.watcherPort() > 0);
      assertFalse(r.cni());
    }
    // without the flag the file's mode (sart's serde name "Dual") is used
    assertEquals(KubeDaemonFile.Mode.DUAL, parse("-f", f.toString()).settings().mode());
  }

  /** A mistake in sart's file names its line; a bad mode on the command line is a usage error. */
  @Test
  void mistakesNameTheLineOrTheFlag() throws Exception {
    Path f = Files.writeString(dir.resolve("bad.yaml"), "http_port: 8000\nmode: bogus\n");
    ConfigException e =
        assertThrows(ConfigException.class, () -> parse("-f", f.toString()).settings());
    assertEquals(2, e.line());
    assertTrue(e.what().startsWith("mode: 'bogus' is not a mode: lb, cni or dual"), e.what());
    UsageException u = assertThrows(UsageException.class, () -> parse("--mode", "all").settings());
    assertTrue(u.getMessage().startsWith("--mode: 'all' is not a mode"), u.getMessage());
  }

  /**
   * sart's cni overlay: {@code sartd agent --mode=cni --cni-endpoint=0.0.0.0:6000}: the plugin's
   * socket stays at /var/run/sart.sock, the TCP address serves sart's netconf endpoint and gRPC,
   * and the pods' gateway is the Node's InternalIP (sart read it there too).
   */
  @Test
  void sartsCniCommandLineResolvesToTheSocketTheTcpEndpointAndTheNodesAddress() throws Exception {
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName("n1")
                .endMetadata()
                .withNewStatus()
                .addNewAddress()
                .withType("Hostname")
                .withAddress("n1")
                .endAddress()
                .addNewAddress()
                .withType("InternalIP")
                .withAddress("192.0.2.7")
                .endAddress()
                .endStatus()
                .build())
        .create();
    AgentCommand cmd = parse("--mode=cni", "--cni-endpoint=0.0.0.0:6000", "--node-name", "n1");
    assertTrue(cmd.settings().mode().cni());
    AgentConfig c = cmd.cniConfig(client, "n1", null);
    assertEquals(AgentConfig.DEFAULT_SOCKET, c.socket());
    assertEquals("0.0.0.0:6000", c.grpcAddress());
    assertEquals(InetAddress.getByName("192.0.2.7"), c.nodeAddress4());
    assertEquals(
        Path.of("/run/sart/cni.sock"),
        parse("--cni-endpoint", "/run/sart/cni.sock").cniConfig(client, "n1", null).socket());

    client.nodes().withName("n1").delete();
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName("n2").endMetadata().build())
        .create();
    UsageException e =
        assertThrows(UsageException.class, () -> parse("--mode=cni").cniConfig(client, "n2", null));
    assertTrue(e.getMessage().contains("needs the node's address"), e.getMessage());
  }
}
