package dev.sart.controller.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.Executors;
import java.util.logging.Logger;
import javax.net.ssl.SSLContext;

/**
 * HTTPS endpoint of the admission webhooks ({@code admission.k8s.io/v1} AdmissionReview in, the
 * same kind out). The certificate and key come from the Secret mounted at the cert directory
 * ({@link Certs}).
 */
public final class WebhookServer implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(WebhookServer.class.getName());
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpsServer server;
  private final Admission admission;

  public WebhookServer(InetSocketAddress address, SSLContext tls, Admission admission)
      throws IOException {
    this.admission = admission;
    server = HttpsServer.create(address, 0);
    server.setHttpsConfigurator(new HttpsConfigurator(tls));
    server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    for (var path : Admission.PATHS) {
      server.createContext(path, this::handle);
    }
  }

  public void start() {
    server.start();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!"POST".equals(exchange.getRequestMethod())) {
        send(exchange, 405, "{\"error\":\"POST an AdmissionReview\"}");
        return;
      }
      JsonNode review;
      try {
        review = JSON.readTree(exchange.getRequestBody());
      } catch (IOException e) {
        send(exchange, 400, "{\"error\":\"not JSON\"}");
        return;
      }
      var request = review.path("request");
      if (!request.has("uid")) {
        send(exchange, 400, "{\"error\":\"an AdmissionReview with request.uid is expected\"}");
        return;
      }
      Verdict verdict;
      try {
        verdict =
            admission.review(
                exchange.getRequestURI().getPath(),
                request.path("operation").asText(),
                request.get("object"),
                request.get("oldObject"));
      } catch (RuntimeException e) {
        verdict = Verdict.deny("cannot review: " + e.getMessage());
      }
      LOG.fine(
          () ->
              "admission path="
                  + exchange.getRequestURI().getPath()
                  + " uid="
                  + request.path("uid").asText());
      ObjectNode out = JSON.createObjectNode();
      out.put("apiVersion", review.path("apiVersion").asText("admission.k8s.io/v1"));
      out.put("kind", "AdmissionReview");
      var response = out.putObject("response");
      response.put("uid", request.path("uid").asText());
      response.put("allowed", verdict.allowed());
      if (verdict.message() != null) {
        response.putObject("status").put("code", 403).put("message", verdict.message());
      }
      if (!verdict.patch().isEmpty()) {
        var patch = "[" + String.join(",", verdict.patch()) + "]";
        response.put("patchType", "JSONPatch");
        response.put(
            "patch", Base64.getEncoder().encodeToString(patch.getBytes(StandardCharsets.UTF_8)));
      }
      send(exchange, 200, out.toString());
    }
  }

  private static void send(HttpExchange exchange, int code, String body) throws IOException {
    var bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(code, bytes.length);
    exchange.getResponseBody().write(bytes);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
