package dev.sart.controller.webhook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.controller.MockCluster;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.RuleWithOperations;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfig;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kube-controller/manifests: the webhook configurations name exactly the webhooks the server serves
 * ({@link Admission#HOOKS}: path, configuration kind, resource), each answers an AdmissionReview of
 * its resource over HTTPS at the manifest's path, and the Service, Deployment and Secret fit
 * together (ports, certificate directory, Secret name, service account).
 */
class WebhookManifestTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path MANIFESTS = Path.of("manifests");
  @TempDir static Path certs;
  private static KubernetesMockServer server;
  private static KubernetesClient client;
  private static WebhookServer webhooks;
  private static HttpClient https;

  static List<HasMetadata> load(String file) throws Exception {
    var result = new ArrayList<HasMetadata>();
    for (var doc : Files.readString(MANIFESTS.resolve(file)).split("(?m)^---$")) {
      if (!doc.lines().allMatch(l -> l.isBlank() || l.startsWith("#"))) {
        result.add(Serialization.unmarshal(doc));
      }
    }
    return result;
  }

  @SuppressWarnings("unchecked")
  static <T> T only(List<HasMetadata> objects, Class<T> type) {
    var matching = objects.stream().filter(type::isInstance).toList();
    assertEquals(1, matching.size(), "one " + type.getSimpleName());
    return (T) matching.getFirst();
  }

  @BeforeAll
  static void setUp() throws Exception {
    Certs.generate("localhost", certs, 30);
    server = MockCluster.server();
    client = server.createClient();
    webhooks = WebhookHttps.start(certs, client);
    https = WebhookHttps.trusting(certs);
  }

  @AfterAll
  static void tearDown() {
    webhooks.close();
    https.close();
    client.close();
    server.destroy();
  }

  /** What the manifests declare for one webhook. */
  private record Declared(
      String name,
      boolean mutating,
      WebhookClientConfig config,
      List<RuleWithOperations> rules,
      String failurePolicy,
      List<String> reviewVersions,
      String sideEffects) {}

  private static Map<String, Declared> declared() throws Exception {
    var objects = load("webhook.yaml");
    var result = new HashMap<String, Declared>();
    for (var hook : only(objects, ValidatingWebhookConfiguration.class).getWebhooks()) {
      assertEquals(
          null,
          result.put(
              hook.getName(),
              new Declared(
                  hook.getName(),
                  false,
                  hook.getClientConfig(),
                  hook.getRules(),
                  hook.getFailurePolicy(),
                  hook.getAdmissionReviewVersions(),
                  hook.getSideEffects())),
          "declared twice: " + hook.getName());
    }
    for (var hook : only(objects, MutatingWebhookConfiguration.class).getWebhooks()) {
      assertEquals(
          null,
          result.put(
              hook.getName(),
              new Declared(
                  hook.getName(),
                  true,
                  hook.getClientConfig(),
                  hook.getRules(),
                  hook.getFailurePolicy(),
                  hook.getAdmissionReviewVersions(),
                  hook.getSideEffects())),
          "declared twice: " + hook.getName());
    }
    return result;
  }

  @Test
  void theConfigurationsDeclareExactlyTheServedWebhooks() throws Exception {
    var declared = declared();
    assertEquals(
        Admission.HOOKS.stream().map(Admission.Hook::name).sorted().toList(),
        declared.keySet().stream().sorted().toList());
    var service = only(load("webhook.yaml"), Service.class);
    for (var hook : Admission.HOOKS) {
      var d = declared.get(hook.name());
      assertEquals(hook.mutating(), d.mutating(), hook.name() + " in the wrong configuration");
      assertEquals(hook.path(), d.config().getService().getPath(), hook.name());
      assertEquals(service.getMetadata().getName(), d.config().getService().getName(), hook.name());
      assertEquals(
          service.getMetadata().getNamespace(),
          d.config().getService().getNamespace(),
          hook.name());
      assertEquals(
          service.getSpec().getPorts().getFirst().getPort(),
          d.config().getService().getPort(),
          hook.name());
      assertEquals(List.of("v1"), d.reviewVersions(), "the server answers admission.k8s.io/v1");
      assertEquals("None", d.sideEffects());
      assertEquals(1, d.rules().size());
      var rule = d.rules().getFirst();
      assertEquals(List.of(hook.group()), rule.getApiGroups(), hook.name());
      assertEquals(List.of(hook.version()), rule.getApiVersions(), hook.name());
      assertEquals(List.of(hook.resource()), rule.getResources(), hook.name());
      assertTrue(rule.getOperations().containsAll(List.of("CREATE", "UPDATE")), hook.name());
    }
  }

  private static String object(String resource) {
    return switch (resource) {
      case "addresspools" ->
          """
          {"apiVersion":"sart.terassyi.net/v1alpha2","kind":"AddressPool","metadata":{"name":"p"},
           "spec":{"cidr":"10.0.100.0/24","type":"service","autoAssign":false}}""";
      case "bgppeers" ->
          """
          {"apiVersion":"sart.terassyi.net/v1alpha2","kind":"BGPPeer","metadata":{"name":"n-65000-9.9.9.9"},
           "spec":{"asn":65000,"addr":"9.9.9.9","nodeBGPRef":"n","speaker":{"path":"127.0.0.1:5000"}}}""";
      case "bgpadvertisements" ->
          """
          {"apiVersion":"sart.terassyi.net/v1alpha2","kind":"BGPAdvertisement","metadata":{"name":"a","namespace":"default"},
           "spec":{"cidr":"10.0.1.1/32","type":"service","protocol":"ipv4"}}""";
      case "addressblocks" ->
          """
          {"apiVersion":"sart.terassyi.net/v1alpha2","kind":"AddressBlock","metadata":{"name":"pod-pool-0"},
           "spec":{"cidr":"10.1.0.0/29","type":"pod","poolRef":"pod-pool","nodeRef":"n"}}""";
      case "services" ->
          """
          {"apiVersion":"v1","kind":"Service","metadata":{"name":"s","namespace":"default"},
           "spec":{"type":"LoadBalancer","ports":[{"port":80,"protocol":"TCP"}]}}""";
      default -> throw new IllegalArgumentException(resource);
    };
  }

  @Test
  void everyDeclaredWebhookAnswersAtItsPath() throws Exception {
    for (var d : declared().values()) {
      var rule = d.rules().getFirst();
      var resource = rule.getResources().getFirst();
      var review =
          """
          {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
            "uid":"%s","kind":{"group":"%s","version":"%s","kind":"x"},
            "resource":{"group":"%s","version":"%s","resource":"%s"},
            "operation":"CREATE","userInfo":{"username":"admin"},"object":%s,"oldObject":null,"dryRun":false}}
          """
              .formatted(
                  d.name(),
                  rule.getApiGroups().getFirst(),
                  rule.getApiVersions().getFirst(),
                  rule.getApiGroups().getFirst(),
                  rule.getApiVersions().getFirst(),
                  resource,
                  object(resource));
      var answer =
          https.send(
              HttpRequest.newBuilder(
                      URI.create(
                          "https://localhost:"
                              + webhooks.port()
                              + d.config().getService().getPath()))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(review))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(200, answer.statusCode(), d.name() + ": " + answer.body());
      JsonNode response = JSON.readTree(answer.body()).path("response");
      assertEquals(d.name(), response.path("uid").asText());
      assertTrue(response.path("allowed").asBoolean(), d.name() + ": " + response);
      if (!d.mutating()) {
        assertTrue(response.path("patch").isMissingNode(), d.name() + " is validating but patched");
      } else if (resource.equals("addressblocks") || resource.equals("bgppeers")) {
        // these mutations label the object with its node
        var patch =
            new String(
                Base64.getDecoder().decode(response.path("patch").asText()),
                java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(patch.contains("\"n\""), d.name() + ": " + patch);
      }
    }
  }

  @Test
  void serviceDeploymentAndSecretFitTogether() throws Exception {
    var service = only(load("webhook.yaml"), Service.class);
    var deployment = only(load("controller.yaml"), Deployment.class);
    var pod = deployment.getSpec().getTemplate();
    var container = pod.getSpec().getContainers().getFirst();
    var args = container.getArgs();
    String httpsAddress = args.get(args.indexOf("--https") + 1);
    int httpsPort = Integer.parseInt(httpsAddress.substring(httpsAddress.lastIndexOf(':') + 1));
    assertEquals(httpsPort, service.getSpec().getPorts().getFirst().getTargetPort().getIntVal());
    assertTrue(container.getPorts().stream().anyMatch(p -> p.getContainerPort() == httpsPort));
    assertTrue(
        pod.getMetadata()
            .getLabels()
            .entrySet()
            .containsAll(service.getSpec().getSelector().entrySet()),
        "the webhook Service selects the controller's pods");
    assertEquals(service.getMetadata().getNamespace(), deployment.getMetadata().getNamespace());

    String certDir = args.get(args.indexOf("--cert-dir") + 1);
    var mount =
        container.getVolumeMounts().stream()
            .filter(m -> m.getMountPath().equals(certDir))
            .findFirst()
            .orElseThrow();
    var volume =
        pod.getSpec().getVolumes().stream()
            .filter(v -> v.getName().equals(mount.getName()))
            .findFirst()
            .orElseThrow();
    assertEquals(Certs.SECRET_NAME, volume.getSecret().getSecretName());

    // certgen's secret.yaml is that Secret, and its files are a certificate the server loads
    Files.copy(
        certs.resolve("tls.crt"),
        certs.resolve("ca.crt"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    Secret secret =
        Serialization.unmarshal(
            Certs.secretManifest(
                certs, Certs.SECRET_NAME, deployment.getMetadata().getNamespace()));
    assertEquals(Certs.SECRET_NAME, secret.getMetadata().getName());
    assertEquals("kubernetes.io/tls", secret.getType());
    var mounted = Files.createDirectory(certs.resolve("mounted"));
    for (var entry : secret.getData().entrySet()) {
      Files.write(mounted.resolve(entry.getKey()), Base64.getDecoder().decode(entry.getValue()));
    }
    assertNotNull(Certs.serverContext(mounted));

    var rbac = load("rbac.yaml");
    assertEquals(
        only(rbac, io.fabric8.kubernetes.api.model.ServiceAccount.class).getMetadata().getName(),
        pod.getSpec().getServiceAccountName());
    assertFalse(args.contains("--no-leader-election"), "two replicas need leader election");
  }
}
