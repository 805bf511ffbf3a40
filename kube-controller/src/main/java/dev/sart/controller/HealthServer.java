package dev.sart.controller;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

/**
 * Plain HTTP for the kubelet and Prometheus: {@code /healthz}, {@code /readyz}, {@code /metrics},
 * {@code /}.
 */
public final class HealthServer implements AutoCloseable {
  private final HttpServer server;

  public HealthServer(InetSocketAddress address, SartController controller) throws IOException {
    server = HttpServer.create(address, 0);
    server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    server.createContext("/healthz", e -> reply(e, 200, "text/plain", "ok\n"));
    server.createContext(
        "/readyz",
        e -> {
          boolean ready = controller.ready();
          reply(e, ready ? 200 : 503, "text/plain", ready ? "ok\n" : "not ready\n");
        });
    server.createContext(
        "/metrics",
        e ->
            reply(
                e, 200, "text/plain; version=0.0.4; charset=utf-8", controller.metrics().scrape()));
    server.createContext(
        "/",
        e -> {
          if (!"/".equals(e.getRequestURI().getPath())) {
            reply(e, 404, "text/plain", "not found\n");
            return;
          }
          reply(
              e,
              200,
              "application/json",
              "{\"leading\":" + controller.leading() + ",\"ready\":" + controller.ready() + "}\n");
        });
  }

  public void start() {
    server.start();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  static void reply(HttpExchange exchange, int code, String type, String body) throws IOException {
    var bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(code, bytes.length);
    try (var out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
