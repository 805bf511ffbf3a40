package dev.sart.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard as a file: a dashboard Grafana imports (ids, grid positions, the Prometheus
 * datasource variable on every query), every metric it queries owned by a component whose running
 * process the image tests scrape (ImageNodeTest: sartd node; CertgenJobTest: sartd controller), and
 * the chart's optional ConfigMap holding it for Grafana's sidecar.
 */
class DashboardTest {
  @Test
  void everyPanelIsPlacedAndQueriesTheDatasourceVariable() throws IOException {
    JsonNode d = Dashboard.json();
    assertEquals("sart", d.path("uid").asText());
    assertEquals("datasource", d.at("/templating/list/0/name").asText());
    Set<Integer> ids = new HashSet<>();
    int queries = 0;
    for (JsonNode p : d.path("panels")) {
      assertTrue(ids.add(p.path("id").asInt()), "unique panel id " + p.path("id"));
      assertTrue(p.path("gridPos").has("w") && p.path("gridPos").has("y"), p.toString());
      for (JsonNode t : p.path("targets")) {
        queries++;
        assertEquals("${datasource}", t.at("/datasource/uid").asText(), p.path("title").asText());
        assertTrue(!t.path("expr").asText().isBlank(), p.path("title").asText());
      }
    }
    assertTrue(queries >= 20, "queries: " + queries);
  }

  @Test
  void everyMetricItQueriesIsOneARunningComponentIsCheckedFor() throws IOException {
    Set<String> metrics = Dashboard.metrics();
    assertTrue(metrics.size() >= 20, metrics.toString());
    for (String m : metrics) {
      assertTrue(
          Dashboard.NODE.or(Dashboard.CONTROLLER).or(Dashboard.JVM).test(m),
          m + " belongs to no component the image tests scrape");
    }
  }
}
