package dev.sart.controller.webhook;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The admission webhooks served over HTTPS with the certificate in {@code certs} (what {@link
 * Certs#generate} wrote), and a client that trusts that certificate alone, as the API server trusts
 * the webhook configuration's caBundle.
 */
final class WebhookHttps {
  private WebhookHttps() {}

  /** The webhook server on 127.0.0.1, an ephemeral port, answering from {@code client}. */
  static WebhookServer start(Path certs, KubernetesClient client) throws Exception {
    var webhooks =
        new WebhookServer(
            new InetSocketAddress("127.0.0.1", 0),
            Certs.serverContext(certs),
            new Admission(client));
    webhooks.start();
    return webhooks;
  }

  /** An HTTP client whose only trusted certificate is {@code certs/tls.crt}'s first. */
  static HttpClient trusting(Path certs) throws Exception {
    var trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry(
        "ca", Certs.certificates(Files.readString(certs.resolve("tls.crt"))).getFirst());
    var factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(trust);
    var tls = SSLContext.getInstance("TLS");
    tls.init(null, factory.getTrustManagers(), null);
    return HttpClient.newBuilder().sslContext(tls).build();
  }
}
