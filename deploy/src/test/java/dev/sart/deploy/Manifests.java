package dev.sart.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.sart.sartd.Sartd;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Rendered manifests (kustomize's or Helm's) as JSON trees, and the check that every container
 * command line in them is one its program accepts: {@code sartd}'s through sartd's own picocli
 * parser (parsed, not run: a flag sartd does not know fails), the CNI installer's against the
 * options {@code dev.sart.cni.Installer} takes, the one shell by name.
 */
final class Manifests {
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

  private Manifests() {}

  /** The documents of a multi-document YAML stream, empty ones left out. */
  static List<JsonNode> parse(String yaml) throws IOException {
    List<JsonNode> docs = new ArrayList<>();
    try (var it = YAML.readValues(YAML.createParser(yaml), JsonNode.class)) {
      while (it.hasNext()) {
        JsonNode d = it.next();
        if (d != null && d.isObject() && !d.isEmpty()) {
          docs.add(d);
        }
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

  /**
   * Checks every container (and init container) of every pod template; returns how many run sartd.
   */
  static int checkCommandLines(List<JsonNode> docs, String source) {
    int sartd = 0;
    for (JsonNode doc : docs) {
      JsonNode pod = doc.path("spec").path("template").path("spec");
      for (String list : List.of("initContainers", "containers")) {
        for (JsonNode c : pod.path(list)) {
          List<String> argv = argv(c);
          String where = source + ": " + doc.path("kind").asText() + " " + c.path("name").asText();
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
    return sartd;
  }

  /** The container's env as the kubelet gives it (fieldRefs from the test's own values). */
  static Map<String, String> env(JsonNode container) {
    Map<String, String> env = new HashMap<>();
    for (JsonNode e : container.path("env")) {
      String field = e.path("valueFrom").path("fieldRef").path("fieldPath").asText(null);
      env.put(
          e.path("name").asText(),
          field != null ? FIELD_VALUES.get(field) : e.path("value").asText(""));
    }
    return env;
  }

  /** The container's command and args, with the kubelet's $(VAR) substitution from its env. */
  static List<String> argv(JsonNode container) {
    Map<String, String> env = env(container);
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
      CommandLine.ParseResult sub = r.subcommand();
      assertTrue(
          !sub.isUsageHelpRequested() && !sub.isVersionHelpRequested(), where + ": asks for help");
      // sartd checks these two values only when it runs (LogOptions.install): check them here
      if (sub.hasMatchedOption("--format")) {
        String format = sub.matchedOptionValue("--format", "");
        assertTrue(Set.of("plain", "json").contains(format), where + ": --format " + format);
      }
      if (sub.hasMatchedOption("--level")) {
        String level = sub.matchedOptionValue("--level", "");
        assertTrue(
            Set.of("error", "warn", "info", "debug", "trace").contains(level),
            where + ": --level " + level);
      }
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

  /**
   * Every ServiceAccount and ConfigMap a pod template names is in the rendered manifests, in the
   * pod's namespace (a reference to a missing one leaves the pod Pending forever).
   */
  static void checkReferences(List<JsonNode> docs, String source) {
    for (JsonNode doc : docs) {
      JsonNode pod = doc.path("spec").path("template").path("spec");
      if (pod.isMissingNode()) {
        continue;
      }
      String ns = doc.path("metadata").path("namespace").asText();
      String where = source + ": " + doc.path("kind").asText() + " " + name(doc);
      List<String[]> refs = new ArrayList<>();
      refs.add(new String[] {"ServiceAccount", pod.path("serviceAccountName").asText()});
      for (JsonNode v : pod.path("volumes")) {
        if (v.has("configMap")) {
          refs.add(new String[] {"ConfigMap", v.path("configMap").path("name").asText()});
        }
      }
      for (JsonNode ref : pod.findValues("configMapKeyRef")) {
        refs.add(new String[] {"ConfigMap", ref.path("name").asText()});
      }
      for (String[] ref : refs) {
        assertTrue(
            docs.stream()
                .anyMatch(
                    d ->
                        d.path("kind").asText().equals(ref[0])
                            && name(d).equals(ref[1])
                            && d.path("metadata").path("namespace").asText().equals(ns)),
            where + " names the " + ref[0] + " " + ref[1] + ", which is not in namespace " + ns);
      }
    }
  }

  static String name(JsonNode doc) {
    return doc.path("metadata").path("name").asText();
  }

  /** What each mode needs: the same for the kustomize overlays and the chart. */
  static void checkMode(List<JsonNode> docs, String mode) {
    assertEquals(
        9,
        docs.stream()
            .filter(d -> d.path("kind").asText().equals("CustomResourceDefinition"))
            .count(),
        "the CRDs");
    one(docs, "ValidatingWebhookConfiguration", "sart-validating");
    one(docs, "MutatingWebhookConfiguration", "sart-mutating");
    one(docs, "ClusterRole", "sart-controller");
    one(docs, "ClusterRole", "sart-egress");
    one(docs, "ClusterRole", "sart-egress-pods");
    one(docs, "ClusterRole", "sartd-node");
    one(docs, "PodDisruptionBudget", "sart-controller");

    JsonNode controller = one(docs, "Deployment", "sart-controller");
    assertEquals(2, controller.path("spec").path("replicas").asInt());
    List<String> cargs =
        argv(controller.path("spec").path("template").path("spec").path("containers").get(0));
    assertEquals(mode, cargs.get(cargs.indexOf("--mode") + 1));
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
    assertEquals(!mode.equals("lb"), installer, "the CNI installer runs in cni and dual only");
    assertEquals(!mode.equals("lb"), argv(node).contains("--cni-config"));

    // the webhook certificate's Job (its name carries the release's revision in the chart); in
    // cni and dual it cannot wait for pod networking: the controller waits for its Secret
    JsonNode certgen =
        docs.stream()
            .filter(d -> d.path("kind").asText().equals("Job"))
            .filter(d -> name(d).startsWith("sart-certgen"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no certgen Job"));
    JsonNode job = certgen.path("spec").path("template").path("spec");
    assertEquals(
        List.of("sartd", "certgen", "--apply"), argv(job.path("containers").get(0)).subList(0, 3));
    assertEquals(
        !mode.equals("lb"), job.path("hostNetwork").asBoolean(), "certgen on the host network");
    one(docs, "ClusterRole", "sart-certgen");

    // every container asks for CPU and memory and is bounded in memory
    for (JsonNode doc : docs) {
      JsonNode spec = doc.path("spec").path("template").path("spec");
      for (String list : List.of("initContainers", "containers")) {
        for (JsonNode c : spec.path(list)) {
          String where = mode + ": " + doc.path("kind").asText() + " " + c.path("name").asText();
          JsonNode r = c.path("resources");
          assertTrue(r.at("/requests/cpu").isTextual(), where + " requests CPU");
          assertTrue(r.at("/requests/memory").isTextual(), where + " requests memory");
          assertTrue(r.at("/limits/memory").isTextual(), where + " limits memory");
        }
      }
    }
  }
}
