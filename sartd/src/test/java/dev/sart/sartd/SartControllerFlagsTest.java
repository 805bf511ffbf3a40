package dev.sart.sartd;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.controller.Mode;
import dev.sart.controller.webhook.Certs;
import dev.sart.crds.AddressBlock;
import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressPoolSpec;
import dev.sart.crds.AddressType;
import dev.sart.crds.BlockRequest;
import dev.sart.crds.BlockRequestSpec;
import dev.sart.crds.testing.KubeObjects;
import dev.sart.testbed.mockapi.EnableMockApi;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code sartd controller} with sart's command lines (its manifests: {@code controller}, the cni
 * overlay's {@code --mode=cni}, the dual overlay's {@code --mode=dual}) and sart's config file, in
 * the test's JVM against fabric8's mock API server: ports, certificate and the mode's reconcilers.
 * sart's e2e "switch the mode" step (cni to dual) keeps the pods' blocks and starts serving
 * Services.
 */
@EnableMockApi
class SartControllerFlagsTest {
  KubernetesClient client;

  @TempDir Path dir;

  private static ControllerCommand parse(String... args) {
    ControllerCommand c = new ControllerCommand();
    new CommandLine(c).parseArgs(args);
    return c;
  }

  private ControllerCommand.Running start(String... args) throws Exception {
    ControllerCommand.Resolved r = parse(args).resolve();
    return ControllerCommand.start(client, r.config(), r.tls(), r.http(), r.https());
  }

  private Service service() {
    return client.services().inNamespace("default").withName("app").get();
  }

  private static boolean hasAddress(Service s) {
    return s != null
        && s.getStatus() != null
        && s.getStatus().getLoadBalancer() != null
        && s.getStatus().getLoadBalancer().getIngress() != null
        && !s.getStatus().getLoadBalancer().getIngress().isEmpty();
  }

  @Test
  void sartsModesDecideTheReconcilersAndSwitchingCniToDualKeepsTheBlocks() throws Exception {
    Certs.generate("sart-webhook-service.kube-system.svc", dir, 1);
    client
        .nodes()
        .resource(
            new io.fabric8.kubernetes.api.model.NodeBuilder()
                .withNewMetadata()
                .withName("node1")
                .endMetadata()
                .build())
        .create();
    client
        .resource(
            new AddressPool(
                "default-lb-pool",
                new AddressPoolSpec("203.0.113.0/28", AddressType.SERVICE, null, true)))
        .create();
    client
        .resource(
            new AddressPool(
                "default-pod-pool",
                new AddressPoolSpec("198.51.100.0/24", AddressType.POD, 29, true)))
        .create();
    client
        .services()
        .inNamespace("default")
        .resource(KubeObjects.lbService("default", "app", null).build())
        .create();
    String[] common = {
      "-e",
      "127.0.0.5003",
      "--http-port",
      "0",
      "--https-port",
      "0",
      "--tls-cert",
      dir.resolve("tls.crt").toString(),
      "--tls-key",
      dir.resolve("tls.key").toString(),
      "--no-leader-election"
    };
    String blockName;
    String blockUid;
    // the cni overlay: pod blocks, no Service addresses
    try (ControllerCommand.Running r = start(concat(common, "--mode=cni"))) {
      HttpResponse<String> health =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + r.health().port() + "/healthz"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertEquals(200, health.statusCode());
      assertNotNull(r.webhooks(), "--tls-cert/--tls-key serve the webhooks");
      assertTrue(r.webhooks().port() > 0);
      client
          .resource(
              new BlockRequest(
                  "default-pod-pool-node1", new BlockRequestSpec("default-pod-pool", "node1")))
          .create();
      await("the BlockRequest answered with an AddressBlock")
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .until(
              () ->
                  client.resources(AddressBlock.class).list().getItems().stream()
                      .anyMatch(b -> "node1".equals(b.getSpec().nodeRef())));
      // the Service existed before the controller started: had it run the Service reconciler,
      // the address would be there by now (its informers had their first list before the block)
      assertTrue(!hasAddress(service()), "--mode=cni gave a Service an address");
      AddressBlock b =
          client.resources(AddressBlock.class).list().getItems().stream()
              .filter(x -> "node1".equals(x.getSpec().nodeRef()))
              .findFirst()
              .orElseThrow();
      blockName = b.getMetadata().getName();
      blockUid = b.getMetadata().getUid();
    }
    // sart's "switch the mode": the same cluster, the controller now --mode=dual
    try (ControllerCommand.Running r = start(concat(common, "--mode=dual"))) {
      await("the Service's address under --mode=dual")
          .atMost(Duration.ofSeconds(60))
          .until(() -> hasAddress(service()));
      assertEquals(
          blockUid,
          client.resources(AddressBlock.class).withName(blockName).get().getMetadata().getUid(),
          "the pods' block is kept");
    }
  }

  /** sart's controller Config, every key: ports, TLS and mode from the file. */
  @Test
  void sartsControllerConfigFileSetsPortsTlsAndMode() throws Exception {
    Certs.generate("sart-webhook-service.kube-system.svc", dir.resolve("cert"), 1);
    Path f =
        Files.writeString(
            dir.resolve("controller.yaml"),
            """
            http_port: 18080
            https_port: 18443
            endpoint: 0.0.0.0:5002
            tls:
              cert: %s
              key: %s
            requeue_interval: 1800
            mode: CNI
            """
                .formatted(dir.resolve("cert/tls.crt"), dir.resolve("cert/tls.key")));
    ControllerCommand.Resolved r = parse("-f", f.toString()).resolve();
    assertEquals(Mode.CNI, r.config().mode());
    assertEquals("0.0.0.0:18080", r.http());
    assertEquals("0.0.0.0:18443", r.https());
    assertNotNull(r.tls());
    ControllerCommand.Resolved flags = parse("-f", f.toString(), "--http-port", "9090").resolve();
    assertEquals("0.0.0.0:9090", flags.http(), "the flag wins over the file");
    assertEquals(false, r.config().withdrawFromCordoned(), "cordoned nodes announce by default");
    assertEquals(
        true,
        parse("-f", f.toString(), "--withdraw-from-cordoned-nodes")
            .resolve()
            .config()
            .withdrawFromCordoned());
  }

  private static String[] concat(String[] a, String... b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
