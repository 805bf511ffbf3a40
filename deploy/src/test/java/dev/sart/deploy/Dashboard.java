package dev.sart.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.testbed.Node;
import dev.sart.testbed.Shell;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Grafana dashboard ({@code chart/sart/dashboards/sart.json}) and the metrics its queries name,
 * and the metric names a running component exports, scraped from {@code /metrics} as Prometheus
 * does.
 */
final class Dashboard {
  static final Path FILE = Path.of("chart", "sart", "dashboards", "sart.json");

  /**
   * The series the dashboard may query: sart's own and the JVM's and process's Micrometer meters.
   */
  private static final Pattern METRIC = Pattern.compile("\\b(?:sart|jvm|process)_[a-zA-Z0-9_]+\\b");

  /** Which component exports a metric of the dashboard: sartd node's or sartd controller's. */
  static final Predicate<String> NODE =
      m -> m.startsWith("sart_agent_") || m.startsWith("sart_bgp_") || m.startsWith("sart_fib_");

  static final Predicate<String> CONTROLLER =
      m -> m.startsWith("sart_controller_") || m.startsWith("sart_allocator_");

  /** The JVM's and the process's: sartd node exports them (sartd controller does not). */
  static final Predicate<String> JVM = m -> m.startsWith("jvm_") || m.startsWith("process_");

  private Dashboard() {}

  static JsonNode json() throws IOException {
    return new ObjectMapper().readTree(FILE.toFile());
  }

  /** Every query of every panel (rows' nested panels too). */
  static List<String> queries(JsonNode dashboard) {
    List<String> exprs = new ArrayList<>();
    for (JsonNode target : dashboard.findValues("targets")) {
      target.forEach(t -> exprs.add(t.path("expr").asText()));
    }
    return exprs;
  }

  /** The metric names the queries name. */
  static Set<String> metrics() throws IOException {
    Set<String> names = new TreeSet<>();
    for (String expr : queries(json())) {
      Matcher m = METRIC.matcher(expr);
      while (m.find()) {
        names.add(m.group());
      }
    }
    return names;
  }

  /**
   * The sample names of a Prometheus text exposition ({@code name{labels} value} and {@code name
   * value} lines; comments left out), fetched inside {@code node} with curl.
   */
  static Set<String> scrape(Node node, String url) {
    Shell.Result r = Shell.exec(node.inNetns(List.of("curl", "-sS", "--fail", url)));
    assertEquals(0, r.exitCode(), url + ": " + r.stderr());
    Set<String> names = new TreeSet<>();
    for (String line : r.stdout().split("\n")) {
      if (!line.isBlank() && !line.startsWith("#")) {
        names.add(line.split("[{ ]", 2)[0]);
      }
    }
    return names;
  }

  /** Every metric of the dashboard that {@code component} exports is among {@code exported}. */
  static void checkExported(Predicate<String> component, Set<String> exported, String who)
      throws IOException {
    Set<String> wanted = new TreeSet<>();
    for (String m : metrics()) {
      if (component.test(m)) {
        wanted.add(m);
      }
    }
    assertTrue(!wanted.isEmpty(), "the dashboard queries metrics of " + who);
    wanted.removeAll(exported);
    assertEquals(
        Set.of(), wanted, "queried by the dashboard, not exported by " + who + ": " + exported);
  }
}
