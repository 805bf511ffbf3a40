package dev.sart.sartd;

import dev.sart.controller.webhook.Certs;
import dev.sart.controller.webhook.WebhookCertificate;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sartd certgen}: a self-signed certificate for the admission webhooks (sart's certgen), as
 * {@code tls.crt}, {@code tls.key} (PKCS#8) and {@code ca.crt} (the same certificate, for the
 * caBundle), and {@code secret.yaml}: the Secret {@code sart-webhook-server-cert} holding them,
 * which kube-controller/manifests/controller.yaml mounts.
 *
 * <p>With {@code --apply} (the certgen Job of kube-controller/manifests/certgen.yaml) it does the
 * same in the cluster: the Secret (kept while its certificate is good, {@link WebhookCertificate})
 * and the CA in the {@code caBundle} of the webhook configurations.
 */
@Command(
    name = "certgen",
    mixinStandardHelpOptions = true,
    description = "Make the webhook certificate and key")
final class CertgenCommand implements java.util.concurrent.Callable<Integer> {
  @Option(
      names = "--host",
      description = "DNS name of the webhook Service",
      defaultValue = "sart-webhook-service.kube-system.svc")
  String host;

  @Option(
      names = "--out-dir",
      description = "where to write tls.crt, tls.key, ca.crt",
      defaultValue = ".")
  Path outDir;

  @Option(names = "--days", description = "validity", defaultValue = "3650")
  int days;

  @Option(
      names = "--namespace",
      description = "namespace of the Secret in secret.yaml",
      defaultValue = "kube-system")
  String namespace;

  @Option(
      names = "--apply",
      description =
          "write the Secret and the webhook configurations' caBundle through the API server"
              + " (keeps a Secret whose certificate is still good)")
  boolean apply;

  @Option(
      names = "--kubeconfig",
      description = "with --apply: kubeconfig file (default: in-cluster, then $KUBECONFIG)")
  Path kubeconfig;

  @Option(
      names = "--secret",
      description = "with --apply: the Secret's name",
      defaultValue = Certs.SECRET_NAME)
  String secret;

  @Option(
      names = "--validating-webhook",
      split = ",",
      description = "with --apply: ValidatingWebhookConfigurations to give the CA",
      defaultValue = "sart-validating")
  List<String> validating;

  @Option(
      names = "--mutating-webhook",
      split = ",",
      description = "with --apply: MutatingWebhookConfigurations to give the CA",
      defaultValue = "sart-mutating")
  List<String> mutating;

  @Option(
      names = "--wait",
      description = "with --apply: seconds to wait for the configurations to exist",
      defaultValue = "120")
  int waitSeconds;

  @Override
  public Integer call() throws Exception {
    if (apply) {
      try (var client = AgentCommand.client(kubeconfig)) {
        var r =
            WebhookCertificate.apply(
                client,
                new WebhookCertificate.Options(
                    namespace,
                    secret,
                    host,
                    validating,
                    mutating,
                    outDir,
                    days,
                    Duration.ofSeconds(waitSeconds)));
        System.out.println(
            (r.created() ? "created" : "kept")
                + " Secret "
                + namespace
                + "/"
                + secret
                + "; caBundle set in "
                + (r.patched().isEmpty() ? "none (already set)" : String.join(", ", r.patched())));
      }
      return 0;
    }
    Certs.generate(host, outDir, days);
    Files.copy(
        outDir.resolve("tls.crt"),
        outDir.resolve("ca.crt"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    var secretFile = outDir.resolve("secret.yaml");
    Files.writeString(secretFile, Certs.secretManifest(outDir, secret, namespace));
    System.out.println(
        "wrote "
            + outDir.resolve("tls.crt")
            + ", "
            + outDir.resolve("tls.key")
            + ", "
            + outDir.resolve("ca.crt")
            + ", "
            + secretFile
            + " (Secret "
            + secret
            + ")");
    return 0;
  }
}
