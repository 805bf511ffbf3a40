package dev.sart.crds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The CEL rules of every CRD under {@code crds/manifests/} (which {@link CrdYamlTest} keeps equal
 * to the generated ones) as a real API server judges them when the CRD is applied: each rule sits
 * under bounded lists and maps, reads only bounded values, and its estimated cost ({@link CelCost})
 * fits the budget; and a rule whose message names a field points at it.
 */
class CelRulesTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  /** kind → openAPIV3Schema of every checked-in CRD. */
  private static Map<String, JsonNode> schemas() throws IOException {
    var out = new LinkedHashMap<String, JsonNode>();
    try (var files = Files.list(CrdYaml.CHECKED_IN)) {
      for (var file :
          files
              .filter(f -> f.getFileName().toString().endsWith(".sart.terassyi.net-v1.yml"))
              .sorted()
              .toList()) {
        out.put(file.getFileName().toString(), schemaOf(file));
      }
    }
    assertEquals(9, out.size(), "nine CRDs");
    return out;
  }

  private static JsonNode schemaOf(Path file) throws IOException {
    return YAML.readTree(file.toFile())
        .path("spec")
        .path("versions")
        .get(0)
        .path("schema")
        .path("openAPIV3Schema");
  }

  @Test
  void everyRuleSitsUnderBoundedListsAndMaps() throws IOException {
    var bad = new ArrayList<String>();
    int rules = 0;
    for (var crd : schemas().entrySet()) {
      for (var rule : CelCost.rules(crd.getValue())) {
        rules++;
        if (!rule.unboundedAbove().isEmpty()) {
          bad.add(crd.getKey() + " " + rule.path() + " under " + rule.unboundedAbove());
        }
      }
    }
    assertTrue(rules >= 30, "the rules were found: " + rules);
    assertTrue(
        bad.isEmpty(),
        "rules under a list without maxItems or a map without maxProperties: " + bad);
  }

  @Test
  void everyValueARuleReadsIsBounded() throws IOException {
    var bad = new ArrayList<String>();
    for (var crd : schemas().entrySet()) {
      for (var rule : CelCost.rules(crd.getValue())) {
        var reads = CelCost.estimate(rule).unboundedReads();
        if (!reads.isEmpty()) {
          bad.add(crd.getKey() + " " + rule.path() + " '" + rule.expression() + "' reads " + reads);
        }
      }
    }
    assertTrue(bad.isEmpty(), "rules reading a string, list or map without a bound: " + bad);
  }

  /**
   * Within the API server's limits, and with a margin: each rule at most {@link
   * CelCost#PER_CALL_LIMIT} in total (a tenth of the per-rule limit), the CRD's rules together at
   * most a tenth of theirs.
   */
  @Test
  void everyRuleFitsTheCostBudget() throws IOException {
    var bad = new ArrayList<String>();
    for (var crd : schemas().entrySet()) {
      long sum = 0;
      for (var rule : CelCost.rules(crd.getValue())) {
        var estimate = CelCost.estimate(rule);
        sum += estimate.total();
        if (estimate.total() > CelCost.PER_CALL_LIMIT) {
          bad.add(
              crd.getKey()
                  + " "
                  + rule.path()
                  + " '"
                  + rule.expression()
                  + "': "
                  + estimate.perCall()
                  + " x "
                  + rule.cardinality()
                  + " = "
                  + estimate.total());
        }
      }
      if (sum > CelCost.STATIC_ESTIMATED_CRD_COST_LIMIT / 10) {
        bad.add(crd.getKey() + " all rules together: " + sum);
      }
    }
    assertTrue(bad.isEmpty(), "over budget: " + bad);
  }

  /**
   * The estimator against the schema a Kubernetes 1.32 API server refused (issue 19): the same
   * rule, the same number ("2.3x"), and the guard finds the unbounded list.
   */
  @Test
  void theClusterBgpSchemaTheApiServerRefusedIsOverBudget() throws IOException {
    var old = schemaOf(Path.of("src/test/resources/fixtures/clusterbgps-before-issue-19.yml"));
    var isIp =
        CelCost.rules(old).stream()
            .filter(r -> r.path().equals(".spec.peers[*].peerConfig"))
            .filter(r -> r.expression().contains("isIP"))
            .findFirst()
            .orElseThrow();
    assertEquals(List.of(".spec.peers"), isIp.unboundedAbove());
    var estimate = CelCost.estimate(isIp);
    assertEquals(22, estimate.perCall());
    assertEquals(1_048_576, isIp.cardinality());
    assertTrue(estimate.total() > CelCost.STATIC_ESTIMATED_COST_LIMIT);
    assertEquals("2.3x", estimate.factor(), "the API server's own words");
  }

  private static final Pattern WORD = Pattern.compile("[A-Za-z]+");

  /**
   * kubectl reports a rule's error at the field the rule sits on, or at its fieldPath: a rule on an
   * object whose message names one of the object's fields must carry a fieldPath, and the path must
   * exist.
   */
  @Test
  void aRuleThatNamesAFieldPointsAtIt() throws IOException {
    var bad = new ArrayList<String>();
    int onFields = 0;
    for (var crd : schemas().entrySet()) {
      for (var rule : CelCost.rules(crd.getValue())) {
        var schema = rule.schema();
        var message = rule.validation().path("message").asText();
        var fieldPath = rule.validation().path("fieldPath").asText("");
        if (!schema.path("type").asText().equals("object")) {
          onFields++;
          assertTrue(fieldPath.isEmpty(), rule.path() + ": a rule on a field needs no fieldPath");
          continue;
        }
        var named = new ArrayList<String>();
        var m = WORD.matcher(message);
        while (m.find()) {
          if (hasField(schema, m.group())) {
            named.add(m.group());
          }
        }
        if (fieldPath.isEmpty()) {
          if (!named.isEmpty()) {
            bad.add(crd.getKey() + " " + rule.path() + ": '" + message + "' names " + named);
          }
        } else if (resolve(schema, fieldPath) == null) {
          bad.add(
              crd.getKey() + " " + rule.path() + ": fieldPath " + fieldPath + " does not exist");
        }
      }
    }
    assertTrue(onFields >= 15, "single-field rules sit on their field: " + onFields);
    assertTrue(bad.isEmpty(), "rules that do not point at the field they name: " + bad);
  }

  private static boolean hasField(JsonNode schema, String name) {
    if (schema.path("properties").has(name)) {
      return true;
    }
    // a root rule names the fields of spec
    return schema.path("properties").path("spec").path("properties").has(name);
  }

  private static JsonNode resolve(JsonNode schema, String fieldPath) {
    JsonNode at = schema;
    for (Iterator<String> it = List.of(fieldPath.substring(1).split("\\.")).iterator();
        it.hasNext(); ) {
      at = at.path("properties").get(it.next());
      if (at == null) {
        return null;
      }
    }
    return at;
  }
}
