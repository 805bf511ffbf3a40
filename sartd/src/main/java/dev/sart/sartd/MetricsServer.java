package dev.sart.sartd;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.logging.Logger;

/**
 * The daemon's HTTP endpoint for Prometheus and the kubelet: {@code GET /metrics} (text exposition
 * format), {@code GET /healthz} (the process serves) and {@code GET /readyz} (200 while every
 * readiness check added with {@link #readiness} holds, else 503). Served by the JDK's {@code
 * com.sun.net.httpserver} on virtual threads. Components register their meters in {@link
 * #registry()} and may ask to be refreshed before each scrape (to follow peers that come and go).
 */
final class MetricsServer implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(MetricsServer.class.getName());
  private static final String TEXT_FORMAT = "text/plain; version=0.0.4; charset=utf-8";

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final List<Runnable> beforeScrape = new CopyOnWriteArrayList<>();
  private final List<java.util.function.BooleanSupplier> readiness = new CopyOnWriteArrayList<>();
  private final HttpServer http;
  private volatile HttpsServer https;
  private final JvmGcMetrics gc = new JvmGcMetrics();

  /** Binds {@code address} (port 0: any free port) and starts serving. */
  MetricsServer(InetSocketAddress address) throws IOException {
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    gc.bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    try {
      http = HttpServer.create(address, 16);
    } catch (IOException e) {
      throw new IOException("cannot serve metrics on " + address + ": " + e.getMessage(), e);
    }
    routes(http);
    http.start();
    LOG.info(
        () ->
            "event=metrics-listening address="
                + http.getAddress().getAddress().getHostAddress()
                + ":"
                + port());
  }

  /** The same paths on {@code s}: the HTTP and the HTTPS endpoint serve alike. */
  private void routes(HttpServer s) {
    s.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    s.createContext("/metrics", ex -> respond(ex, 200, TEXT_FORMAT, scrape()));
    s.createContext("/healthz", ex -> respond(ex, 200, "text/plain; charset=utf-8", "ok\n"));
    s.createContext(
        "/readyz",
        ex -> {
          boolean ready =
              readiness.stream().allMatch(java.util.function.BooleanSupplier::getAsBoolean);
          respond(
              ex, ready ? 200 : 503, "text/plain; charset=utf-8", ready ? "ok\n" : "not ready\n");
        });
    s.createContext(
        "/",
        ex ->
            respond(
                ex,
                404,
                "text/plain; charset=utf-8",
                "not found: try /metrics, /healthz or /readyz\n"));
  }

  /**
   * Serves the same paths over HTTPS on {@code address} too (sart's agent and controller served
   * their HTTP app on both ports).
   */
  void https(InetSocketAddress address, javax.net.ssl.SSLContext tls) throws IOException {
    HttpsServer s;
    try {
      s = HttpsServer.create(address, 16);
    } catch (IOException e) {
      throw new IOException("cannot serve HTTPS on " + address + ": " + e.getMessage(), e);
    }
    s.setHttpsConfigurator(new HttpsConfigurator(tls));
    routes(s);
    s.start();
    https = s;
    LOG.info(() -> "event=https-listening address=" + address.getHostString() + ":" + httpsPort());
  }

  /** The HTTPS port bound, or -1 without HTTPS. */
  int httpsPort() {
    return https == null ? -1 : https.getAddress().getPort();
  }

  PrometheusMeterRegistry registry() {
    return registry;
  }

  InetSocketAddress address() {
    return http.getAddress();
  }

  /** The port bound (useful when started with port 0). */
  int port() {
    return http.getAddress().getPort();
  }

  /** A condition /readyz requires. */
  void readiness(java.util.function.BooleanSupplier ready) {
    readiness.add(ready);
  }

  void beforeScrape(Runnable r) {
    beforeScrape.add(r);
  }

  String scrape() {
    beforeScrape.forEach(Runnable::run);
    return registry.scrape();
  }

  private static void respond(HttpExchange ex, int status, String contentType, String body)
      throws IOException {
    try (ex) {
      if (!"GET".equals(ex.getRequestMethod()) && !"HEAD".equals(ex.getRequestMethod())) {
        ex.sendResponseHeaders(405, -1);
        return;
      }
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", contentType);
      boolean head = "HEAD".equals(ex.getRequestMethod());
      ex.sendResponseHeaders(status, head ? -1 : bytes.length);
      if (!head) {
        try (OutputStream out = ex.getResponseBody()) {
          out.write(bytes);
        }
      }
    }
  }

  @Override
  public void close() {
    http.stop(0);
    if (https != null) {
      https.stop(0);
    }
    gc.close();
    registry.close();
  }
}
