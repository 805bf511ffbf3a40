package dev.sart.sartd;

import dev.sart.controller.ControllerConfig;
import dev.sart.controller.HealthServer;
import dev.sart.controller.Mode;
import dev.sart.controller.SartController;
import dev.sart.controller.runtime.Metrics;
import dev.sart.controller.webhook.Admission;
import dev.sart.controller.webhook.Certs;
import dev.sart.controller.webhook.WebhookServer;
import dev.sart.crds.Sart;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Logger;
import javax.net.ssl.SSLContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code sartd controller}: the cluster-wide reconcilers, leader-elected, with health and metrics
 * over HTTP.
 */
@Command(
    name = "controller",
    mixinStandardHelpOptions = true,
    description =
        "Run the Kubernetes controller (load-balancer addresses, advertisements, ClusterBGP, pod blocks)")
final class ControllerCommand implements java.util.concurrent.Callable<Integer> {
  private static final Logger LOG = Logger.getLogger(ControllerCommand.class.getName());

  @Option(
      names = "--kubeconfig",
      description = "kubeconfig file (default: in-cluster, then $KUBECONFIG, then ~/.kube/config)")
  Path kubeconfig;

  @Option(
      names = "--lb-class",
      description = "spec.loadBalancerClass served besides none",
      defaultValue = Sart.LOAD_BALANCER_CLASS)
  String lbClass;

  @Option(
      names = "--leader-election",
      description = "take a Lease before reconciling",
      defaultValue = "true",
      negatable = true)
  boolean leaderElection;

  @Option(
      names = "--lease-namespace",
      description = "namespace of the Lease (default: $POD_NAMESPACE or kube-system)")
  String leaseNamespace;

  @Option(names = "--lease-name", defaultValue = "sart-controller")
  String leaseName;

  @Option(names = "--identity", description = "name in the Lease (default: $HOSTNAME)")
  String identity;

  @Option(
      names = "--http",
      description = "health and metrics listen address (default 0.0.0.0 on --http-port, 8080)")
  String http;

  @Option(
      names = "--https",
      description =
          "admission webhook listen address (default 0.0.0.0 on --https-port, 8443); empty: no"
              + " webhooks")
  String https;

  @Option(
      names = "--cert-dir",
      description =
          "tls.crt and tls.key (PKCS#8 PEM) for the webhooks, unless --tls-cert/--tls-key or the"
              + " file's tls name them",
      defaultValue = "/etc/sartd/cert")
  Path certDir;

  @Option(
      names = "--withdraw-from-cordoned-nodes",
      description =
          "the peers of a cordoned node (kubectl cordon, drain) withdraw every Service address, as"
              + " those of a node labelled node.kubernetes.io/exclude-from-external-load-balancers"
              + " always do")
  boolean withdrawFromCordoned;

  @Mixin SartDaemonOptions sart;

  @Mixin LogOptions log;

  /** sart's controller ports (its controller::config). */
  static final int HTTP_PORT = 8080;

  static final int HTTPS_PORT = 8443;

  /** What the flags and sart's file decide, before anything starts. */
  record Resolved(ControllerConfig config, SSLContext tls, String http, String https) {}

  Resolved resolve() throws Exception {
    SartDaemonOptions.Settings s = sart.settings(HTTP_PORT, HTTPS_PORT);
    Mode m = Mode.valueOf(s.mode().name());
    String http = this.http != null ? this.http : "0.0.0.0:" + s.httpPort();
    String https = this.https != null ? this.https : "0.0.0.0:" + s.httpsPort();
    var id =
        identity != null ? identity : System.getenv().getOrDefault("HOSTNAME", "sart-controller");
    var ns =
        leaseNamespace != null
            ? leaseNamespace
            : System.getenv().getOrDefault("POD_NAMESPACE", "kube-system");
    var config =
        new ControllerConfig(
            m,
            lbClass,
            leaderElection,
            ns,
            leaseName,
            id,
            Duration.ofSeconds(15),
            Duration.ofSeconds(10),
            Duration.ofSeconds(2),
            withdrawFromCordoned);
    SSLContext tls = null;
    if (!https.isEmpty() && s.tlsGiven()) {
      tls = s.tls(); // sart's --tls-cert/--tls-key or the file's tls: {cert, key}
    } else if (!https.isEmpty()) {
      if (!Files.exists(certDir.resolve("tls.crt")) || !Files.exists(certDir.resolve("tls.key"))) {
        throw new UsageException(
            "no webhook certificate in "
                + certDir
                + " (tls.crt, tls.key): make one with `sartd certgen`, pass --tls-cert and"
                + " --tls-key, or pass --https= to run without webhooks");
      }
      tls = Certs.serverContext(certDir);
    }
    return new Resolved(config, tls, http, https);
  }

  @Override
  public Integer call() throws Exception {
    HeapBound.install();
    log.install();
    Resolved r0 = resolve();
    String http = r0.http();
    String https = r0.https();
    ControllerConfig config = r0.config();
    SSLContext tls = r0.tls();
    Mode m = config.mode();
    String id = config.identity();
    io.fabric8.kubernetes.client.KubernetesClient client;
    try {
      client = AgentCommand.client(kubeconfig);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage() + " (--kubeconfig)");
      return 2;
    }
    Running r = start(client, config, tls, http, https);
    var stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  LOG.info("event=shutdown");
                  r.close();
                  client.close();
                  stopped.countDown();
                }));
    LOG.info("event=started mode=" + m + " identity=" + id + " http=" + http + " https=" + https);
    stopped.await();
    return 0;
  }

  /** The controller's parts, started; closing stops them. */
  record Running(SartController controller, HealthServer health, WebhookServer webhooks)
      implements AutoCloseable {
    @Override
    public void close() {
      controller.close();
      health.close();
      if (webhooks != null) {
        webhooks.close();
      }
    }
  }

  static Running start(
      io.fabric8.kubernetes.client.KubernetesClient client,
      ControllerConfig config,
      SSLContext tls,
      String http,
      String https)
      throws Exception {
    var controller = new SartController(client, config, new Metrics());
    var health = new HealthServer(address(http), controller);
    var webhooks =
        tls == null ? null : new WebhookServer(address(https), tls, new Admission(client));
    health.start();
    if (webhooks != null) {
      webhooks.start(); // every replica answers admission requests, leader or not
    }
    controller.start();
    return new Running(controller, health, webhooks);
  }

  static InetSocketAddress address(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("expected host:port, got " + hostPort);
    }
    var host = hostPort.substring(0, colon).replace("[", "").replace("]", "");
    return new InetSocketAddress(host, Integer.parseInt(hostPort.substring(colon + 1)));
  }
}
