package dev.sart.controller.webhook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.controller.MockCluster;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfig;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sartd certgen --apply}'s work against the mock API server with the webhook configurations
 * of {@code manifests/webhook.yaml} applied: the Secret, every webhook's caBundle, and the runs
 * after the first (an upgrade) keeping a good certificate and replacing a bad one.
 */
class WebhookCertificateTest {
  private static final String NS = "kube-system";
  private static final String HOST = "sart-webhook-service.kube-system.svc";

  @TempDir Path work;
  private KubernetesMockServer server;
  private KubernetesClient client;

  @BeforeEach
  void setUp() {
    server = MockCluster.server();
    client = server.createClient();
  }

  @AfterEach
  void tearDown() {
    client.close();
    server.destroy();
  }

  private void applyWebhookConfigurations() throws Exception {
    for (HasMetadata o : WebhookManifestTest.load("webhook.yaml")) {
      if (o.getKind().endsWith("WebhookConfiguration")) {
        client.resource(o).create();
      }
    }
  }

  private WebhookCertificate.Result run(String dir) throws Exception {
    return WebhookCertificate.apply(
        client,
        new WebhookCertificate.Options(
            NS,
            Certs.SECRET_NAME,
            HOST,
            List.of("sart-validating"),
            List.of("sart-mutating"),
            work.resolve(dir),
            365,
            Duration.ofSeconds(5)));
  }

  private List<String> caBundles() {
    List<String> all = new ArrayList<>();
    Stream.concat(
            client
                .admissionRegistration()
                .v1()
                .validatingWebhookConfigurations()
                .withName("sart-validating")
                .get()
                .getWebhooks()
                .stream()
                .map(w -> w.getClientConfig()),
            client
                .admissionRegistration()
                .v1()
                .mutatingWebhookConfigurations()
                .withName("sart-mutating")
                .get()
                .getWebhooks()
                .stream()
                .map(w -> w.getClientConfig()))
        .map(WebhookClientConfig::getCaBundle)
        .forEach(all::add);
    return all;
  }

  private Secret secret() {
    return client.secrets().inNamespace(NS).withName(Certs.SECRET_NAME).get();
  }

  /** The Secret's files, as the kubelet mounts them at the controller's --cert-dir. */
  private Path mounted(Secret s, String dir) throws Exception {
    Path d = Files.createDirectories(work.resolve(dir));
    for (Map.Entry<String, String> e : s.getData().entrySet()) {
      Files.write(d.resolve(e.getKey()), Base64.getDecoder().decode(e.getValue()));
    }
    return d;
  }

  @Test
  void theFirstRunMakesTheSecretAndGivesEveryWebhookItsCa() throws Exception {
    applyWebhookConfigurations();
    assertTrue(caBundles().stream().allMatch(c -> c == null), "webhook.yaml leaves caBundle out");

    var r = run("one");
    assertTrue(r.created());
    assertEquals(List.of("sart-validating", "sart-mutating"), r.patched());
    Secret s = secret();
    assertEquals("kubernetes.io/tls", s.getType());
    assertEquals(s.getData().get("ca.crt"), r.caBundle());
    List<String> bundles = caBundles();
    assertEquals(6, bundles.size(), "3 validating and 3 mutating webhooks");
    assertTrue(bundles.stream().allMatch(r.caBundle()::equals), bundles.toString());
    // the Secret is a certificate the webhook server loads, for the Service's name
    assertNotNull(Certs.serverContext(mounted(s, "mounted")));
    var cert =
        (java.security.cert.X509Certificate)
            Certs.certificates(
                    new String(Base64.getDecoder().decode(r.caBundle()), StandardCharsets.US_ASCII))
                .getFirst();
    assertTrue(cert.getSubjectAlternativeNames().stream().anyMatch(n -> HOST.equals(n.get(1))));
  }

  @Test
  void aSecondRunKeepsAGoodCertificateAndWritesNothing() throws Exception {
    applyWebhookConfigurations();
    var first = run("one");
    String version = secret().getMetadata().getResourceVersion();
    var second = run("two");
    assertFalse(second.created());
    assertEquals(first.caBundle(), second.caBundle());
    assertEquals(List.of(), second.patched(), "every webhook already holds the CA");
    assertEquals(version, secret().getMetadata().getResourceVersion(), "the Secret is untouched");
  }

  @Test
  void aSecretForAnotherHostIsReplacedAndTheCaBundlesFollow() throws Exception {
    applyWebhookConfigurations();
    Certs.generate("other.example", work.resolve("other"), 365);
    Path other = work.resolve("other");
    client
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName(Certs.SECRET_NAME)
                .withNamespace(NS)
                .endMetadata()
                .withType("kubernetes.io/tls")
                .withData(
                    Map.of(
                        "tls.crt",
                        Base64.getEncoder()
                            .encodeToString(Files.readAllBytes(other.resolve("tls.crt"))),
                        "tls.key",
                        Base64.getEncoder()
                            .encodeToString(Files.readAllBytes(other.resolve("tls.key")))))
                .build())
        .create();
    var r = run("one");
    assertTrue(r.created(), "a certificate for another name cannot serve the webhooks");
    assertNotEquals(
        Base64.getEncoder().encodeToString(Files.readAllBytes(other.resolve("tls.crt"))),
        secret().getData().get("tls.crt"));
    assertTrue(caBundles().stream().allMatch(r.caBundle()::equals));
  }

  @Test
  void aSecretThatHoldsNoCertificateIsReplaced() throws Exception {
    applyWebhookConfigurations();
    String junk =
        Base64.getEncoder().encodeToString("not a PEM".getBytes(StandardCharsets.US_ASCII));
    client
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName(Certs.SECRET_NAME)
                .withNamespace(NS)
                .endMetadata()
                .withType("kubernetes.io/tls")
                .withData(Map.of("tls.crt", junk, "tls.key", junk))
                .build())
        .create();
    var r = run("one");
    assertTrue(r.created());
    assertNotNull(Certs.serverContext(mounted(secret(), "mounted")));
  }

  @Test
  void anExpiringCertificateIsReplaced() throws Exception {
    applyWebhookConfigurations();
    // valid for 10 days: less than the 30 a kept certificate needs
    WebhookCertificate.apply(
        client,
        new WebhookCertificate.Options(
            NS,
            Certs.SECRET_NAME,
            HOST,
            List.of("sart-validating"),
            List.of("sart-mutating"),
            work.resolve("short"),
            10,
            Duration.ofSeconds(5)));
    String shortLived = secret().getData().get("tls.crt");
    var r = run("long");
    assertTrue(r.created());
    assertNotEquals(shortLived, secret().getData().get("tls.crt"));
  }

  @Test
  void aMissingConfigurationFailsAfterTheWaitNamingIt() {
    var e = assertThrows(java.io.IOException.class, () -> run("one"));
    assertTrue(
        e.getMessage().contains("ValidatingWebhookConfiguration sart-validating"), e.getMessage());
  }
}
