package dev.sart.sartd;

import dev.sart.controller.webhook.Certs;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sartd certgen}: a self-signed certificate for the admission webhooks (sart's certgen), as
 * {@code tls.crt}, {@code tls.key} (PKCS#8) and {@code ca.crt} (the same certificate, for the
 * caBundle), and {@code secret.yaml}: the Secret {@code sart-webhook-server-cert} holding them,
 * which kube-controller/manifests/controller.yaml mounts.
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

  @Override
  public Integer call() throws Exception {
    Certs.generate(host, outDir, days);
    Files.copy(
        outDir.resolve("tls.crt"),
        outDir.resolve("ca.crt"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    var secret = outDir.resolve("secret.yaml");
    Files.writeString(secret, Certs.secretManifest(outDir, Certs.SECRET_NAME, namespace));
    System.out.println(
        "wrote "
            + outDir.resolve("tls.crt")
            + ", "
            + outDir.resolve("tls.key")
            + ", "
            + outDir.resolve("ca.crt")
            + ", "
            + secret
            + " (Secret "
            + Certs.SECRET_NAME
            + ")");
    return 0;
  }
}
