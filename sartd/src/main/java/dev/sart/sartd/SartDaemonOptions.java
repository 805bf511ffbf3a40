package dev.sart.sartd;

import dev.sart.controller.webhook.Certs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.logging.Logger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import picocli.CommandLine.Option;

/**
 * The flags sart's {@code sartd agent} and {@code sartd controller} share (sart.md §4.2), with the
 * config file they can come from ({@link KubeDaemonFile}). A flag given wins over the file, the
 * file over sart's default. {@link #settings} resolves them once, before anything starts.
 */
final class SartDaemonOptions {
  private static final Logger LOG = Logger.getLogger(SartDaemonOptions.class.getName());

  /** sart's default certificate and key (its {@code sartd_cert::constants}). */
  static final Path DEFAULT_TLS_CERT = Path.of("/etc/sartd/cert/tls.crt");

  static final Path DEFAULT_TLS_KEY = Path.of("/etc/sartd/cert/tls.key");

  @Option(
      names = {"-e", "--endpoint"},
      description = "accepted for sart compatibility: sart's agent and controller never used it")
  String endpoint;

  @Option(
      names = {"-f", "--file"},
      description =
          "sart's YAML config: http_port, https_port, endpoint, tls.cert, tls.key,"
              + " requeue_interval, mode (agent: also peer_state_watcher, cni_endpoint)")
  Path file;

  @Option(names = "--tls-cert", description = "PEM certificate for HTTPS")
  Path tlsCert;

  @Option(names = "--tls-key", description = "PEM private key (PKCS#8) for HTTPS")
  Path tlsKey;

  @Option(names = "--http-port", description = "HTTP port of /healthz, /readyz, /metrics")
  Integer httpPort;

  @Option(names = "--https-port", description = "HTTPS port (same paths, and the webhooks)")
  Integer httpsPort;

  @Option(names = "--mode", description = "lb, cni or dual (default dual, as sart)")
  String mode;

  /** What the flags and the file decide together. */
  record Settings(
      KubeDaemonFile.Mode mode,
      int httpPort,
      int httpsPort,
      Path tlsCert,
      Path tlsKey,
      boolean tlsGiven,
      Long requeueInterval,
      KubeDaemonFile file) {

    /**
     * The HTTPS context, or null when no certificate was asked for and sart's default one is not
     * there (sart stopped then; here HTTPS is left out, with a log line). A certificate asked for
     * (flag or file) that cannot be read is a usage error.
     */
    SSLContext tls() {
      if (!tlsGiven && (!Files.exists(tlsCert) || !Files.exists(tlsKey))) {
        LOG.info(
            () ->
                "event=https-off reason=\"no certificate at "
                    + tlsCert
                    + " and "
                    + tlsKey
                    + " (--tls-cert, --tls-key)\"");
        return null;
      }
      try {
        var chain = Certs.certificates(Files.readString(tlsCert));
        var key = Certs.privateKey(Files.readString(tlsKey));
        var store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry("tls", key, new char[0], chain.toArray(Certificate[]::new));
        var keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, new char[0]);
        var context = SSLContext.getInstance("TLS");
        context.init(keys.getKeyManagers(), null, null);
        return context;
      } catch (java.io.IOException | java.security.GeneralSecurityException | RuntimeException e) {
        throw new UsageException(
            "cannot use the TLS certificate "
                + tlsCert
                + " with key "
                + tlsKey
                + ": "
                + e.getMessage()
                + " (--tls-cert, --tls-key)");
      }
    }
  }

  /** Reads the file (if any) and merges it with the flags; a mistake is file:line or a flag. */
  Settings settings(int defaultHttpPort, int defaultHttpsPort) {
    KubeDaemonFile f = null;
    if (file != null) {
      ConfigFile<KubeDaemonFile> c = ConfigFile.readLenient(file, KubeDaemonFile.class);
      c.ignored().forEach(w -> LOG.warning("event=config-key-ignored msg=\"" + w + "\""));
      f = c.check(KubeDaemonFile::check);
    }
    KubeDaemonFile.Mode m;
    try {
      m =
          mode != null
              ? KubeDaemonFile.mode(mode)
              : f != null && f.mode() != null
                  ? KubeDaemonFile.mode(f.mode())
                  : KubeDaemonFile.Mode.DUAL;
    } catch (IllegalArgumentException e) {
      throw new UsageException("--mode: " + e.getMessage());
    }
    int http = pick(httpPort, f == null ? null : f.httpPort(), defaultHttpPort, "--http-port");
    int https = pick(httpsPort, f == null ? null : f.httpsPort(), defaultHttpsPort, "--https-port");
    KubeDaemonFile.Tls ft = f == null ? null : f.tls();
    Path cert =
        tlsCert != null
            ? tlsCert
            : ft != null && ft.cert() != null ? Path.of(ft.cert()) : DEFAULT_TLS_CERT;
    Path key =
        tlsKey != null
            ? tlsKey
            : ft != null && ft.key() != null ? Path.of(ft.key()) : DEFAULT_TLS_KEY;
    boolean given = tlsCert != null || tlsKey != null || ft != null;
    if (endpoint != null || f != null && f.endpoint() != null) {
      LOG.fine("event=endpoint-ignored reason=\"sart's agent and controller never used it\"");
    }
    return new Settings(
        m, http, https, cert, key, given, f == null ? null : f.requeueInterval(), f);
  }

  private static int pick(Integer flag, Integer fromFile, int dflt, String name) {
    int p = flag != null ? flag : fromFile != null ? fromFile : dflt;
    if (p < 0 || p > 65535) {
      throw new UsageException(name + ": " + p + " is not a port (0..65535)");
    }
    return p;
  }
}
