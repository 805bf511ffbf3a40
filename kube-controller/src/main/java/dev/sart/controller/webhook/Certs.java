package dev.sart.controller.webhook;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * The webhook's TLS material: PEM files as a kubernetes.io/tls Secret holds them ({@code tls.crt},
 * {@code tls.key} as PKCS#8 "PRIVATE KEY", RSA or EC), and {@link #generate} for {@code certgen}.
 */
public final class Certs {
  private Certs() {}

  /** An SSLContext serving {@code dir/tls.crt} with {@code dir/tls.key}. */
  public static SSLContext serverContext(Path dir) throws IOException, GeneralSecurityException {
    var chain = certificates(Files.readString(dir.resolve("tls.crt")));
    var key = privateKey(Files.readString(dir.resolve("tls.key")));
    var store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setKeyEntry("tls", key, new char[0], chain.toArray(Certificate[]::new));
    var keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(store, new char[0]);
    var context = SSLContext.getInstance("TLS");
    context.init(keys.getKeyManagers(), null, null);
    return context;
  }

  public static List<Certificate> certificates(String pem) throws GeneralSecurityException {
    var factory = CertificateFactory.getInstance("X.509");
    return new ArrayList<>(
        factory.generateCertificates(
            new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII))));
  }

  public static PrivateKey privateKey(String pem) throws GeneralSecurityException {
    if (!pem.contains("-----BEGIN PRIVATE KEY-----")) {
      throw new GeneralSecurityException(
          "tls.key must be a PKCS#8 PEM (BEGIN PRIVATE KEY); convert with: openssl pkcs8 -topk8 -nocrypt");
    }
    var base64 =
        pem.substring(
                pem.indexOf("-----BEGIN PRIVATE KEY-----") + 27,
                pem.indexOf("-----END PRIVATE KEY-----"))
            .replaceAll("\\s", "");
    var spec = new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64));
    for (var algorithm : List.of("RSA", "EC")) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
      } catch (GeneralSecurityException e) {
        // try the next
      }
    }
    throw new GeneralSecurityException("tls.key is neither an RSA nor an EC key");
  }

  /**
   * Writes a self-signed certificate for {@code host} (also the CA to put into the webhook
   * configuration's caBundle) as {@code tls.crt} and its key as {@code tls.key} into {@code dir}.
   * Uses the JDK's keytool (java.base has no public certificate-building API).
   */
  public static void generate(String host, Path dir, int days)
      throws IOException, GeneralSecurityException, InterruptedException {
    Files.createDirectories(dir);
    var store = Files.createTempFile(dir, "certgen", ".p12");
    Files.delete(store);
    var password = "changeit";
    var keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
    var process =
        new ProcessBuilder(
                keytool,
                "-genkeypair",
                "-alias",
                "tls",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-sigalg",
                "SHA256withECDSA",
                "-dname",
                "CN=" + host,
                "-ext",
                "SAN=dns:" + host,
                "-ext",
                "BC:c=ca:true",
                "-validity",
                Integer.toString(days),
                "-keystore",
                store.toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                password,
                "-keypass",
                password)
            .redirectErrorStream(true)
            .start();
    var output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IOException("keytool failed: " + output);
    }
    try {
      var keyStore = KeyStore.getInstance("PKCS12");
      try (var in = Files.newInputStream(store)) {
        keyStore.load(in, password.toCharArray());
      }
      var key = (PrivateKey) keyStore.getKey("tls", password.toCharArray());
      var cert = keyStore.getCertificate("tls");
      Files.writeString(dir.resolve("tls.crt"), pem("CERTIFICATE", cert.getEncoded()));
      Files.writeString(dir.resolve("tls.key"), pem("PRIVATE KEY", key.getEncoded()));
    } finally {
      Files.deleteIfExists(store);
    }
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }

  /** The Secret the webhook certificate lives in (sart's name), mounted at {@code --cert-dir}. */
  public static final String SECRET_NAME = "sart-webhook-server-cert";

  /**
   * A {@code kubernetes.io/tls} Secret manifest holding {@code tls.crt}, {@code tls.key} and {@code
   * ca.crt} of {@code dir} (what {@code sartd certgen} writes as {@code secret.yaml}).
   */
  public static String secretManifest(Path dir, String name, String namespace) throws IOException {
    var text =
        new StringBuilder(
            """
        apiVersion: v1
        kind: Secret
        type: kubernetes.io/tls
        metadata:
          name: %s
          namespace: %s
        data:
        """
                .formatted(name, namespace));
    for (var file : List.of("ca.crt", "tls.crt", "tls.key")) {
      var path = dir.resolve(file);
      if (java.nio.file.Files.exists(path)) {
        text.append("  ")
            .append(file)
            .append(": ")
            .append(
                java.util.Base64.getEncoder()
                    .encodeToString(java.nio.file.Files.readAllBytes(path)))
            .append('\n');
      }
    }
    return text.toString();
  }
}
