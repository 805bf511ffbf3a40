package dev.sart.sartd;

import com.sun.net.httpserver.HttpServer;
import dev.sart.fib.daemon.FibConfig;
import dev.sart.fib.daemon.FibDaemon;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.logging.Logger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code sartd fib}: the FIB daemon. Channels move routes from subscribers (a speaker's best paths,
 * kernel tables) to publishers (kernel tables, a speaker); {@code FibManagerApi} at the endpoint;
 * Prometheus metrics at {@code --metrics}.
 */
@Command(
    name = "fib",
    mixinStandardHelpOptions = true,
    description = "Run the FIB daemon (channels between BGP and kernel tables)")
final class FibCommand implements Callable<Integer> {
  private static final Logger LOG = Logger.getLogger(FibCommand.class.getName());

  @Option(
      names = {"-f", "--file"},
      required = true,
      description = "YAML config: endpoint, route_protocol, channels")
  Path file;

  @Option(
      names = {"-e", "--endpoint"},
      description = "FibManagerApi listen address (overrides the file; default 127.0.0.1:5001)")
  String endpoint;

  @Option(
      names = "--metrics",
      description = "serve /metrics (Prometheus) and /healthz on this host:port")
  String metrics;

  @Mixin LogOptions log;

  @Override
  public Integer call() throws Exception {
    HeapBound.install();
    log.install();
    ConfigFile<FibConfig.File> config = ConfigFile.readLenient(file, FibConfig.File.class);
    FibConfig cfg = config.check(FibConfig::of);
    config.ignored().forEach(w -> LOG.warning("event=config-key-ignored msg=\"" + w + "\""));
    if (endpoint != null) {
      try {
        FibConfig.hostPort("--endpoint", endpoint);
      } catch (IllegalArgumentException e) {
        throw new UsageException(e.getMessage());
      }
      cfg = new FibConfig(endpoint, cfg.routeProtocol(), cfg.channels());
    }
    return run(cfg);
  }

  /** Runs the daemon with {@code cfg} until the JVM stops (also {@code sartd node}'s FIB). */
  Integer run(FibConfig cfg) throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    FibDaemon daemon = FibDaemon.start(cfg, registry, null, FibDaemon.Options.DEFAULT);
    HttpServer http = metrics == null ? null : serveMetrics(metrics, registry, daemon);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  LOG.info("event=stopping");
                  if (http != null) {
                    http.stop(0);
                  }
                  // the routes stay in the kernel: the next start reconciles them
                  daemon.close();
                  stopped.countDown();
                }));
    stopped.await();
    return 0;
  }

  private static HttpServer serveMetrics(
      String hostPort, PrometheusMeterRegistry registry, FibDaemon daemon) throws IOException {
    HttpServer http = HttpServer.create(BgpCommand.socketAddress(hostPort), 0);
    http.createContext(
        "/metrics",
        ex -> reply(ex, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
    http.createContext("/healthz", ex -> reply(ex, 200, "text/plain", "ok\n"));
    http.createContext(
        "/readyz",
        ex ->
            reply(
                ex,
                daemon.ready() ? 200 : 503,
                "text/plain",
                daemon.ready() ? "ok\n" : "channels not reconciled yet\n"));
    http.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    http.start();
    LOG.info(() -> "event=metrics-listening address=" + hostPort);
    return http;
  }

  private static void reply(
      com.sun.net.httpserver.HttpExchange ex, int code, String type, String body)
      throws IOException {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    ex.sendResponseHeaders(code, b.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(b);
    }
  }
}
