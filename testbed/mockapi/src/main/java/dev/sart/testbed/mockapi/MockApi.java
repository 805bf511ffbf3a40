package dev.sart.testbed.mockapi;

import dev.sart.crds.CrdManifests;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;

/**
 * fabric8's mock API server as every sart test starts it: CRUD mode (a real HTTP API with watches,
 * keeping what is created), HTTPS on loopback at a free port, and its watches written through
 * {@link MockWatchDispatcher}, so that a watch closed with an event on its way no longer freezes
 * the whole server for 30 s. Test classes use {@link EnableMockApi}; set-ups that need the server
 * as a value call {@link #start} or {@link #withSartCrds}.
 *
 * <p>Like a real API server it speaks HTTPS only: its certificate is made as it starts (the mock's
 * own self-signed one, RSA 2048, for {@code localhost} and {@code 127.0.0.1}, valid a year), and
 * its clients ({@code createClient()}) and kubeconfigs ({@link MockKubeconfig}) trust that
 * certificate as their certificate authority and nothing else: no client skips verification.
 */
public final class MockApi {
  private MockApi() {}

  /** Started and empty: no CRDs (the mock serves custom resources without them). */
  public static KubernetesMockServer start() {
    var server = new Server();
    server.init(InetAddress.getLoopbackAddress(), 0);
    return server;
  }

  /** Started, with sart's CRDs applied through the API as {@code kubectl apply} would. */
  public static KubernetesMockServer withSartCrds() {
    var server = start();
    try (var client = server.createClient()) {
      applySartCrds(client);
    }
    return server;
  }

  /** Creates sart's CRDs ({@code crds/manifests/}) through {@code client}. */
  public static void applySartCrds(KubernetesClient client) {
    for (var yaml : CrdManifests.yaml()) {
      client
          .apiextensions()
          .v1()
          .customResourceDefinitions()
          .resource(Serialization.unmarshal(yaml, CustomResourceDefinition.class))
          .create();
    }
  }

  /**
   * The certificate {@code server} serves, base64 of its PEM: a kubeconfig's {@code
   * certificate-authority-data}, fabric8's {@code caCertData}.
   */
  public static String caCertData(KubernetesMockServer server) {
    try {
      byte[] pem = Files.readAllBytes(Path.of(server.getSelfSignedCertificate().certificatePath()));
      return Base64.getEncoder().encodeToString(pem);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static final class Server extends KubernetesMockServer {
    Server() {
      super(
          new Context(Serialization.jsonMapper()),
          new MockWebServer(),
          new HashMap<>(),
          new MockWatchDispatcher(),
          true);
    }

    /** fabric8's client configuration with its {@code trustCerts} replaced by this server's CA. */
    @Override
    protected Config initConfig() {
      return new ConfigBuilder(super.initConfig())
          .withTrustCerts(false)
          .withCaCertData(caCertData(this))
          .build();
    }

    /**
     * The mock's own shutdown gives Vert.x 10 s to close its connections and throws past that (seen
     * in CI, after a test's assertions had passed): said, not failed on.
     */
    @Override
    public void destroy() {
      try {
        super.destroy();
      } catch (IllegalStateException e) {
        System.err.println("mock API server: " + e.getMessage() + " (" + e.getCause() + ")");
      }
      if (getSelfSignedCertificate() != null) {
        getSelfSignedCertificate().delete(); // its PEM files, else kept until the JVM exits
      }
    }
  }
}
