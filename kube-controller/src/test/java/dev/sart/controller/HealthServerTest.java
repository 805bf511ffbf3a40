package dev.sart.controller;

import static dev.sart.controller.MockCluster.pool;
import static dev.sart.crds.testing.KubeObjects.lbService;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.controller.runtime.Metrics;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The endpoints a kubelet and Prometheus use, with the metric names sart and MetalLB users expect.
 */
class HealthServerTest {
  @Test
  void healthReadinessAndMetrics() throws Exception {
    var server = MockCluster.server();
    try (var client = server.createClient();
        var controller =
            new SartController(client, ControllerConfig.defaults("me"), new Metrics());
        var http = new HealthServer(new InetSocketAddress("127.0.0.1", 0), controller);
        var web = HttpClient.newHttpClient()) {
      pool(client, "default-lb-pool", "10.0.1.0/24", true);
      http.start();
      controller.start();
      var base = "http://127.0.0.1:" + http.port();
      assertEquals(200, get(web, base + "/healthz").statusCode());
      await().ignoreExceptions().atMost(Duration.ofSeconds(30)).until(controller::leading);
      assertEquals(200, get(web, base + "/readyz").statusCode());
      client.resource(lbService("test", "s", Map.of()).build()).create();
      await()
          .ignoreExceptions()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                var body = get(web, base + "/metrics").body();
                assertTrue(
                    body.contains(
                        "sart_allocator_addresses_in_use_total{pool=\"default-lb-pool\",family=\"ipv4\"} 1.0"),
                    body);
              });
      var metrics = get(web, base + "/metrics").body();
      assertTrue(
          metrics.contains(
              "sart_allocator_addresses_total{pool=\"default-lb-pool\",family=\"ipv4\"} 254.0"),
          metrics);
      assertTrue(
          metrics.contains("sart_controller_reconciliation_total{resource=\"service\"}"), metrics);
      assertTrue(
          metrics.contains(
              "sart_controller_reconcile_duration_seconds_bucket{resource=\"service\""),
          metrics);
      assertTrue(
          metrics.contains(
              "sart_controller_max_blocks{pool=\"default-lb-pool\",type=\"service\"} 1.0"),
          metrics);
      await()
          .ignoreExceptions()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertTrue(
                      get(web, base + "/metrics")
                          .body()
                          .contains("sart_controller_bgp_advertisements{type=\"service\"} 1.0")));
      assertEquals("{\"leading\":true,\"ready\":true}\n", get(web, base + "/").body());
    } finally {
      server.destroy();
    }
  }

  private static HttpResponse<String> get(HttpClient web, String url) throws Exception {
    return web.send(
        HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
