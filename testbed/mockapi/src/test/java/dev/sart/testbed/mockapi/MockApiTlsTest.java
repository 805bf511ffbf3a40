package dev.sart.testbed.mockapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mock serves HTTPS only, with a certificate of its own that its clients and kubeconfigs trust
 * as their CA: a client that trusts another CA, or speaks plain HTTP, gets nothing.
 */
class MockApiTlsTest {
  private final KubernetesMockServer server = MockApi.start();
  private KubernetesMockServer other;

  @AfterEach
  void stop() {
    server.destroy();
    if (other != null) {
      other.destroy();
    }
  }

  private static KubernetesClient client(Config config) {
    // no retries: a handshake that fails fails once
    return new KubernetesClientBuilder()
        .withConfig(new ConfigBuilder(config).withRequestRetryBackoffLimit(0).build())
        .build();
  }

  @Test
  void itsOwnClientVerifiesItsCertificate() {
    try (var client = server.createClient()) {
      Config config = client.getConfiguration();
      assertEquals("https", URI.create(config.getMasterUrl()).getScheme());
      assertFalse(config.isTrustCerts(), "the client must not trust every certificate");
      assertEquals(MockApi.caCertData(server), config.getCaCertData());
      client.namespaces().list();
    }
  }

  @Test
  void aKubeconfigItWritesReachesItAtLoopbackByAddress(@TempDir Path dir) throws Exception {
    String url = "https://127.0.0.1:" + server.getPort() + "/";
    Path file = MockKubeconfig.write(dir.resolve("kubeconfig"), url, MockApi.caCertData(server));
    String text = Files.readString(file);
    assertFalse(text.contains("insecure-skip-tls-verify"), text);
    try (var client = client(Config.fromKubeconfig(text))) {
      assertEquals(url, client.getConfiguration().getMasterUrl());
      assertFalse(client.getConfiguration().isTrustCerts());
      client.namespaces().list();
    }
  }

  @Test
  void aClientThatTrustsAnotherCaIsRefused() {
    other = MockApi.start();
    var config =
        new ConfigBuilder(Config.empty())
            .withMasterUrl("https://127.0.0.1:" + server.getPort() + "/")
            .withCaCertData(MockApi.caCertData(other))
            .build();
    try (var client = client(config)) {
      var e = assertThrows(KubernetesClientException.class, () -> client.namespaces().list());
      assertTrue(causedBy(e, SSLHandshakeException.class), () -> "not a handshake failure: " + e);
    }
  }

  @Test
  void plainHttpIsNotServed() {
    var config =
        new ConfigBuilder(Config.empty())
            .withMasterUrl("http://127.0.0.1:" + server.getPort() + "/")
            .build();
    try (var client = client(config)) {
      assertThrows(KubernetesClientException.class, () -> client.namespaces().list());
    }
  }

  private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }
}
