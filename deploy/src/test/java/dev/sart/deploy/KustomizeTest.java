package dev.sart.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.sart.sartd.Sartd;
import dev.sart.testbed.Shell;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * Every overlay renders with the machine's {@code kubectl kustomize}, holds what its mode needs,
 * and every container command line in it is one its program accepts: {@code sartd}'s through
 * sartd's own picocli parser (a flag sartd does not know fails here), the CNI installer's against
 * the options {@code dev.sart.cni.Installer} takes.
 */
class KustomizeTest {
  private static final Path DEPLOY = Path.of("").toAbsolutePath();
  private static final YAMLMapper YAML = new YAMLMapper();

  /** What the kubelet substitutes for {@code $(VAR)} of a fieldRef, for the parser's sake. */
  private static final Map<String, String> FIELD_VALUES =
      Map.of(
          "spec.nodeName",
          "node-1",
          "status.hostIP",
          "192.0.2.10",
          "metadata.namespace",
          "kube-system");

  /**
   * {@code sart-cni cni-installer}'s options (sart-cni/src/main/java/dev/sart/cni/Installer.java).
   */
  private static final Set<String> INSTALLER_OPTIONS =
      Set.of("--bin-dir", "--conf-dir", "--src-bin-dir", "--src-conf-dir", "--binaries");

  private static final Pattern VAR = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");

  static List<JsonNode> render(String overlay) throws IOException {
    String yaml = Shell.run("kubectl", "kustomize", DEPLOY.resolve(overlay).toString());
    List<JsonNode> docs = new ArrayList<>();
    try (var it = YAML.readValues(YAML.createParser(yaml), JsonNode.class)) {
      while (it.hasNext()) {
        docs.add(it.next());
      }
    }
    return docs;
  }

  static JsonNode one(List<JsonNode> docs, String kind, String name) {
    return docs.stream()
        .filter(d -> d.path("kind").asText().equals(kind))
        .filter(d -> d.path("metadata").path("name").asText().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + kind + " " + name));
  }

  @ParameterizedTest
  @ValueSource(strings = {"lb", "cni", "dual"})
  void everyContainerCommandLineIsAcceptedByItsProgram(String overlay) throws IOException {
    int sartd = 0;
    for (JsonNode doc : render(overlay)) {
      JsonNode pod = doc.path("spec").path("template").path("spec");
      for (String list : List.of("initContainers", "containers")) {
        for (JsonNode c : pod.path(list)) {
          List<String> argv = argv(c);
          String where = overlay + ": " + doc.path("kind").asText() + " " + c.path("name").asText();
          switch (argv.getFirst()) {
            case "sartd" -> {
              sartd++;
              parseSartd(argv.subList(1, argv.size()), where);
            }
            case "/opt/sart/cni/sart-cni" -> checkInstaller(argv, where);
            case "/bin/sh" ->
                assertEquals("agent-config", c.path("name").asText(), where + " runs a shell");
            default -> fail(where + " runs " + argv.getFirst() + ", which this test does not know");
          }
        }
      }
    }
    assertEquals(2, sartd, overlay + ": sartd controller and sartd node");
  }

  @org.junit.jupiter.api.Test
  void aFlagSartdDoesNotKnowFails() {
    assertThrows(
        AssertionError.class, () -> parseSartd(List.of("node", "--mode", "lb"), "sartd node"));
    assertThrows(
        AssertionError.class,
        () -> parseSartd(List.of("controller", "--resync", "abc"), "sartd controller"));
  }

  /** The container's command and args, with the kubelet's $(VAR) substitution from its env. */
  static List<String> argv(JsonNode container) {
    Map<String, String> env = new java.util.HashMap<>();
    for (JsonNode e : container.path("env")) {
      String field = e.path("valueFrom").path("fieldRef").path("fieldPath").asText(null);
      env.put(
          e.path("name").asText(),
          field != null ? FIELD_VALUES.get(field) : e.path("value").asText(""));
    }
    List<String> argv = new ArrayList<>();
    for (String key : List.of("command", "args")) {
      for (JsonNode a : container.path(key)) {
        Matcher m = VAR.matcher(a.asText());
        argv.add(
            m.replaceAll(r -> Matcher.quoteReplacement(env.getOrDefault(r.group(1), r.group()))));
      }
    }
    assertTrue(!argv.isEmpty(), container.path("name").asText() + " names its command");
    return argv;
  }

  static void parseSartd(List<String> args, String where) {
    try {
      CommandLine.ParseResult r =
          new CommandLine(new Sartd()).parseArgs(args.toArray(String[]::new));
      assertTrue(r.hasSubcommand(), where + ": no sub-command in " + args);
      assertTrue(
          !r.subcommand().isUsageHelpRequested() && !r.subcommand().isVersionHelpRequested(),
          where + ": asks for help");
    } catch (CommandLine.ParameterException e) {
      throw new AssertionError(where + ": sartd refuses " + args + ": " + e.getMessage(), e);
    }
  }

  static void checkInstaller(List<String> argv, String where) {
    assertEquals("cni-installer", argv.get(1), where);
    for (int i = 2; i < argv.size(); i += 2) {
      assertTrue(INSTALLER_OPTIONS.contains(argv.get(i)), where + ": unknown " + argv.get(i));
      assertTrue(i + 1 < argv.size(), where + ": " + argv.get(i) + " needs a value");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"lb", "cni", "dual"})
  void eachModeDeploysWhatItNeeds(String overlay) throws IOException {
    List<JsonNode> docs = render(overlay);
    assertEquals(
        8,
        docs.stream()
            .filter(d -> d.path("kind").asText().equals("CustomResourceDefinition"))
            .count());
    one(docs, "ValidatingWebhookConfiguration", "sart-validating");
    one(docs, "MutatingWebhookConfiguration", "sart-mutating");
    one(docs, "ClusterRole", "sart-controller");
    one(docs, "ClusterRole", "sartd-node");
    one(docs, "PodDisruptionBudget", "sart-controller");

    JsonNode controller = one(docs, "Deployment", "sart-controller");
    assertEquals(2, controller.path("spec").path("replicas").asInt());
    List<String> cargs =
        argv(controller.path("spec").path("template").path("spec").path("containers").get(0));
    assertEquals(overlay, cargs.get(cargs.indexOf("--mode") + 1));
    assertTrue(!cargs.contains("--leader-election=false"), "leader election stays on");

    JsonNode pod = one(docs, "DaemonSet", "sartd-node").path("spec").path("template").path("spec");
    assertTrue(pod.path("hostNetwork").asBoolean());
    assertEquals("system-node-critical", pod.path("priorityClassName").asText());
    JsonNode node = pod.path("containers").get(0);
    assertEquals("node", argv(node).get(1));
    assertEquals("/healthz", node.path("livenessProbe").path("httpGet").path("path").asText());
    assertEquals("/readyz", node.path("readinessProbe").path("httpGet").path("path").asText());
    assertTrue(!node.path("securityContext").path("privileged").asBoolean(), "not privileged");
    boolean installer =
        pod.path("initContainers").findValuesAsText("name").contains("cni-installer");
    assertEquals(!overlay.equals("lb"), installer, "the CNI installer runs in cni and dual only");
    assertEquals(!overlay.equals("lb"), argv(node).contains("--cni-config"));
  }
}
