package dev.sart.sartd;

import dev.sart.controller.webhook.Certs;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sartd certgen}: a self-signed certificate for the admission webhooks (sart's certgen), as
 * {@code tls.crt}, {@code tls.key} (PKCS#8) and {@code ca.crt} (the same certificate, for the caBundle).
 */
@Command(name = "certgen", mixinStandardHelpOptions = true, description = "Make the webhook certificate and key")
final class CertgenCommand implements java.util.concurrent.Callable<Integer> {
  @Option(names = "--host", description = "DNS name of the webhook Service", defaultValue = "sart-webhook-service.kube-system.svc")
  String host;

  @Option(names = "--out-dir", description = "where to write tls.crt, tls.key, ca.crt", defaultValue = ".")
  Path outDir;

  @Option(names = "--days", description = "validity", defaultValue = "3650")
  int days;

  @Override
  public Integer call() throws Exception {
    Certs.generate(host, outDir, days);
    Files.copy(outDir.resolve("tls.crt"), outDir.resolve("ca.crt"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    System.out.println("wrote " + outDir.resolve("tls.crt") + ", " + outDir.resolve("tls.key") + ", " + outDir.resolve("ca.crt"));
    return 0;
  }
}
