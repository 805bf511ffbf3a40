package dev.sart.controller.webhook;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.logging.Logger;

/**
 * What {@code sartd certgen --apply} does in a cluster (the certgen Job's work): the webhook
 * server's certificate in its Secret, and that certificate (self-signed: its own CA) in the {@code
 * caBundle} of every webhook of the named configurations.
 *
 * <p>Idempotent, so the Job may run again at every install and upgrade: a Secret whose certificate
 * is for the host, matches its key and is valid for at least {@link #MIN_REMAINING} more is kept (a
 * new one would leave the running replicas serving the old one until they restart); otherwise a new
 * one replaces it. A configuration whose webhooks already hold the CA is not written. The requests
 * are few and named, so that the Job's RBAC can name its objects: get/create/update of the Secret,
 * get/patch of each configuration.
 */
public final class WebhookCertificate {
  private static final Logger LOG = Logger.getLogger(WebhookCertificate.class.getName());

  /** A kept certificate must stay valid at least this long. */
  public static final Duration MIN_REMAINING = Duration.ofDays(30);

  /**
   * Where and what.
   *
   * @param namespace the Secret's namespace (the controller's)
   * @param secret the Secret's name ({@link Certs#SECRET_NAME})
   * @param host the webhook Service's DNS name, the certificate's subject and only SAN
   * @param validating names of ValidatingWebhookConfigurations
   * @param mutating names of MutatingWebhookConfigurations
   * @param workDir where a new certificate's files are written
   * @param days a new certificate's validity
   * @param waitFor how long to wait for a configuration to exist (the Job may run before they are
   *     applied)
   */
  public record Options(
      String namespace,
      String secret,
      String host,
      List<String> validating,
      List<String> mutating,
      Path workDir,
      int days,
      Duration waitFor) {}

  /**
   * What was done.
   *
   * @param created whether a new certificate was made (false: the Secret's was kept)
   * @param caBundle the CA as the {@code caBundle} field holds it (base64 of the PEM)
   * @param patched the configurations written (those already holding the CA are not)
   */
  public record Result(boolean created, String caBundle, List<String> patched) {}

  private WebhookCertificate() {}

  public static Result apply(KubernetesClient client, Options o)
      throws IOException, GeneralSecurityException, InterruptedException {
    var secrets = client.secrets().inNamespace(o.namespace());
    Secret existing = secrets.withName(o.secret()).get();
    String ca = existing == null ? null : usableCa(existing, o.host());
    boolean created = ca == null;
    if (created) {
      Certs.generate(o.host(), o.workDir(), o.days());
      byte[] crt = Files.readAllBytes(o.workDir().resolve("tls.crt"));
      byte[] key = Files.readAllBytes(o.workDir().resolve("tls.key"));
      Map<String, String> data = new LinkedHashMap<>();
      data.put("ca.crt", base64(crt));
      data.put("tls.crt", base64(crt));
      data.put("tls.key", base64(key));
      Secret secret =
          new SecretBuilder()
              .withNewMetadata()
              .withName(o.secret())
              .withNamespace(o.namespace())
              .addToLabels("app.kubernetes.io/name", "sart-certgen")
              .endMetadata()
              .withType("kubernetes.io/tls")
              .withData(data)
              .build();
      if (existing == null) {
        secrets.resource(secret).create();
      } else {
        // replaced as read: a concurrent writer makes this a 409 and the Job runs again
        secret.getMetadata().setResourceVersion(existing.getMetadata().getResourceVersion());
        secrets.resource(secret).update();
      }
      ca = base64(crt);
      LOG.info(
          "event=certificate-created secret="
              + o.namespace()
              + "/"
              + o.secret()
              + " host="
              + o.host()
              + (existing == null ? "" : " replaced=true"));
    } else {
      LOG.info("event=certificate-kept secret=" + o.namespace() + "/" + o.secret());
    }
    List<String> patched = new ArrayList<>();
    for (String name : o.validating()) {
      var r = client.admissionRegistration().v1().validatingWebhookConfigurations().withName(name);
      var config = await(o.waitFor(), () -> r.get(), "ValidatingWebhookConfiguration " + name);
      String patch =
          caBundlePatch(
              config.getWebhooks(), ValidatingWebhook::getName, w -> w.getClientConfig(), ca);
      if (patch != null) {
        r.patch(PatchContext.of(PatchType.JSON), patch);
        patched.add(name);
      }
    }
    for (String name : o.mutating()) {
      var r = client.admissionRegistration().v1().mutatingWebhookConfigurations().withName(name);
      var config = await(o.waitFor(), () -> r.get(), "MutatingWebhookConfiguration " + name);
      String patch =
          caBundlePatch(
              config.getWebhooks(), MutatingWebhook::getName, w -> w.getClientConfig(), ca);
      if (patch != null) {
        r.patch(PatchContext.of(PatchType.JSON), patch);
        patched.add(name);
      }
    }
    for (String name : patched) {
      LOG.info("event=ca-bundle-set configuration=" + name);
    }
    return new Result(created, ca, patched);
  }

  /**
   * An RFC 6902 patch setting {@code clientConfig.caBundle} of every webhook, each guarded by a
   * {@code test} of the webhook's name (RFC 6902 §4.6) so that a list changed since it was read
   * fails the patch instead of writing into the wrong entry; null when every webhook holds it.
   */
  static <W> String caBundlePatch(
      List<W> webhooks,
      Function<W, String> name,
      Function<W, io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfig>
          clientConfig,
      String ca) {
    StringBuilder ops = new StringBuilder();
    boolean needed = false;
    for (int i = 0; i < webhooks.size(); i++) {
      W w = webhooks.get(i);
      var cc = clientConfig.apply(w);
      needed |= cc == null || !ca.equals(cc.getCaBundle());
      if (!ops.isEmpty()) {
        ops.append(',');
      }
      ops.append("{\"op\":\"test\",\"path\":\"/webhooks/")
          .append(i)
          .append("/name\",\"value\":\"")
          .append(name.apply(w))
          .append("\"},{\"op\":\"add\",\"path\":\"/webhooks/")
          .append(i)
          .append("/clientConfig/caBundle\",\"value\":\"")
          .append(ca)
          .append("\"}");
    }
    return needed ? "[" + ops + "]" : null;
  }

  /**
   * The Secret's CA (base64) when its certificate can stay: for {@code host}, the key's, valid for
   * {@link #MIN_REMAINING} more; else null.
   */
  static String usableCa(Secret s, String host) {
    Map<String, String> data = s.getData();
    if (data == null || data.get("tls.crt") == null || data.get("tls.key") == null) {
      return null;
    }
    try {
      String crtPem =
          new String(Base64.getDecoder().decode(data.get("tls.crt")), StandardCharsets.US_ASCII);
      String keyPem =
          new String(Base64.getDecoder().decode(data.get("tls.key")), StandardCharsets.US_ASCII);
      var cert = (X509Certificate) Certs.certificates(crtPem).getFirst();
      cert.checkValidity(Date.from(Instant.now().plus(MIN_REMAINING)));
      boolean named =
          cert.getSubjectAlternativeNames() != null
              && cert.getSubjectAlternativeNames().stream()
                  .anyMatch(n -> n.get(0).equals(2) && host.equals(n.get(1)));
      if (!named || !matches(Certs.privateKey(keyPem), cert.getPublicKey())) {
        return null;
      }
      String ca = data.get("ca.crt");
      return ca != null ? ca : data.get("tls.crt");
    } catch (GeneralSecurityException | RuntimeException e) {
      // not base64, not PEM, no certificate in it: made anew
      return null;
    }
  }

  private static boolean matches(PrivateKey key, PublicKey pub) throws GeneralSecurityException {
    String algorithm = key.getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256withRSA";
    byte[] probe = "sart certgen".getBytes(StandardCharsets.US_ASCII);
    Signature sign = Signature.getInstance(algorithm);
    sign.initSign(key);
    sign.update(probe);
    byte[] signature = sign.sign();
    Signature verify = Signature.getInstance(algorithm);
    verify.initVerify(pub);
    verify.update(probe);
    return verify.verify(signature);
  }

  private static <T> T await(Duration wait, java.util.function.Supplier<T> get, String what)
      throws InterruptedException, IOException {
    long deadline = System.nanoTime() + wait.toNanos();
    while (true) {
      T t = get.get();
      if (t != null) {
        return t;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException(what + " does not exist (waited " + wait.toSeconds() + " s)");
      }
      Thread.sleep(1000);
    }
  }

  private static String base64(byte[] b) {
    return Base64.getEncoder().encodeToString(b);
  }
}
