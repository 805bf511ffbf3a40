package dev.sart.testbed.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.testbed.Shell;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * kubectl against the cluster's API server as the demo starts it (fabric8's mock, a process of its
 * own): what the demo tells a user to type works — the built-in kinds by name and short name,
 * sart's kinds from their CRDs, {@code api-resources}. Against a real API server through {@code
 * SART_E2E_KUBECONFIG} the same commands are kubectl's ordinary use.
 */
class KubectlTest {
  private static Path dir;
  private static ApiServer api;

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("sart-kubectl");
    api = ApiServer.fromEnvironment(dir);
    api.applyCrds(Launch.crdManifests());
    api.client()
        .services()
        .inNamespace("default")
        .resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withName("kubectl-test-web")
                .endMetadata()
                .withNewSpec()
                .withType("LoadBalancer")
                .addNewPort()
                .withPort(80)
                .endPort()
                .endSpec()
                .build())
        .createOr(io.fabric8.kubernetes.client.dsl.NonDeletingOperation::update);
    api.client()
        .genericKubernetesResources("sart.terassyi.net/v1alpha2", "AddressPool")
        .resource(
            new GenericKubernetesResourceBuilder()
                .withApiVersion("sart.terassyi.net/v1alpha2")
                .withKind("AddressPool")
                .withNewMetadata()
                .withName("kubectl-test-pool")
                .endMetadata()
                .withAdditionalProperties(
                    Map.of(
                        "spec",
                        Map.of("cidr", "203.0.113.0/28", "type", "service", "allocType", "bit")))
                .build())
        .createOr(io.fabric8.kubernetes.client.dsl.NonDeletingOperation::update);
  }

  @AfterAll
  static void stop() throws java.io.IOException {
    if (api != null) {
      api.client().services().inNamespace("default").withName("kubectl-test-web").delete();
      api.client()
          .genericKubernetesResources("sart.terassyi.net/v1alpha2", "AddressPool")
          .withName("kubectl-test-pool")
          .delete();
      api.client()
          .genericKubernetesResources("sart.terassyi.net/v1alpha2", "AddressPool")
          .withName("kubectl-apply-pool")
          .delete();
      api.close();
    }
    if (dir != null) {
      try (var files = Files.walk(dir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
  }

  private static String kubectl(String... args) {
    List<String> argv =
        new java.util.ArrayList<>(List.of("kubectl", "--kubeconfig", api.kubeconfig().toString()));
    argv.addAll(List.of(args));
    return Shell.run(argv);
  }

  @Test
  void theDemosCommandListsServicesByShortName() {
    // the mock answers with lists, not server-side tables: kubectl prints NAME and AGE (a real
    // server adds TYPE, CLUSTER-IP, ...; "service/" before the name when pods are listed too)
    String out = kubectl("get", "svc,pods", "-o", "wide");
    assertTrue(out.lines().anyMatch(l -> l.split("\\s+")[0].endsWith("kubectl-test-web")), out);
    assertTrue(out.startsWith("NAME "), out);
    assertEquals(
        "service/kubectl-test-web",
        kubectl("get", "services", "-n", "default", "-o", "name")
            .lines()
            .filter(l -> l.contains("kubectl-test"))
            .findFirst()
            .orElse(""));
  }

  @Test
  void applyCreatesASartObject() throws Exception {
    Path yaml = dir.resolve("pool.yaml");
    Files.writeString(
        yaml,
        """
        apiVersion: sart.terassyi.net/v1alpha2
        kind: AddressPool
        metadata: {name: kubectl-apply-pool}
        spec: {cidr: 198.51.100.0/28, type: service, allocType: bit}
        """);
    // no OpenAPI documents on the mock: the client-side schema check is off
    String out = kubectl("apply", "--validate=false", "-f", yaml.toString());
    assertTrue(out.contains("addresspool.sart.terassyi.net/kubectl-apply-pool"), out);
    assertEquals(
        "198.51.100.0/28",
        kubectl("get", "addresspool", "kubectl-apply-pool", "-o", "jsonpath={.spec.cidr}"));
  }

  @Test
  void sartsKindsAreFoundFromTheirCrds() {
    String pools = kubectl("get", "addresspools", "-o", "name");
    assertTrue(
        pools.lines().anyMatch(l -> l.equals("addresspool.sart.terassyi.net/kubectl-test-pool")),
        pools);
    String resources = kubectl("api-resources", "--api-group", "sart.terassyi.net", "-o", "name");
    for (String plural :
        List.of(
            "addressblocks",
            "addresspools",
            "blockrequests",
            "bgpadvertisements",
            "bgppeers",
            "bgppeertemplates",
            "clusterbgps",
            "egresses",
            "nodebgps")) {
      assertTrue(resources.contains(plural + ".sart.terassyi.net"), resources);
    }
  }
}
