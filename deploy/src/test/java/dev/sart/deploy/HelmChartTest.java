package dev.sart.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Helm chart {@code chart/sart}, linted and rendered by Helm itself inside this JVM (helm-java:
 * Helm's Go code through JNA, no helm binary): with the defaults it renders what the kustomize
 * overlay of the same mode renders, apart from the two differences deploy/README.md lists; the
 * values users change reach the manifests; every command line is accepted by its program.
 */
class HelmChartTest {
  private static final Path CHART = Path.of("chart", "sart").toAbsolutePath();
  private static final String NAMESPACE = "kube-system";

  @TempDir static Path work;

  static String renderYaml(String mode, String values) throws IOException {
    Path file = Files.createTempFile(work, "values", ".yaml");
    Files.writeString(file, "mode: " + mode + "\n" + values);
    return new Helm(CHART)
        .template()
        .withName("sart")
        .withNamespace(NAMESPACE)
        .withValuesFile(file)
        .call();
  }

  /**
   * What {@code helm install} applies: the chart's {@code crds/} (installed first, never templated)
   * and the rendered templates.
   */
  static List<JsonNode> render(String mode, String values) throws IOException {
    List<JsonNode> docs = new ArrayList<>();
    try (var crds = Files.list(CHART.resolve("crds"))) {
      for (Path crd : crds.sorted().toList()) {
        docs.addAll(Manifests.parse(Files.readString(crd)));
      }
    }
    docs.addAll(Manifests.parse(renderYaml(mode, values)));
    return docs;
  }

  /** The documents by kind, namespace and name. */
  private static Map<String, JsonNode> byKey(List<JsonNode> docs) {
    return docs.stream()
        .collect(
            Collectors.toMap(
                d ->
                    d.path("kind").asText()
                        + " "
                        + d.path("metadata").path("namespace").asText()
                        + "/"
                        + Manifests.name(d),
                d -> d,
                (a, b) -> {
                  throw new AssertionError("twice: " + a);
                },
                TreeMap::new));
  }

  @Test
  void theChartLintsStrictly() {
    LintResult r = new Helm(CHART).lint().strict().call();
    assertFalse(r.isFailed(), String.join("\n", r.getMessages()));
  }

  @ParameterizedTest
  @ValueSource(strings = {"lb", "cni", "dual"})
  void withTheDefaultsTheChartRendersWhatKustomizeRenders(String mode) throws IOException {
    // difference 1: kustomize's generated ConfigMaps carry a hash of their content in their name
    String kustomize =
        KustomizeTest.renderYaml(mode)
            .replaceAll("\\b(sart-cni-conf|sartd-agent-config)-[a-z0-9]{10}\\b", "$1");
    Map<String, JsonNode> expected = byKey(Manifests.parse(kustomize));
    List<JsonNode> helm = render(mode, "");
    for (JsonNode d : helm) {
      // difference 3: the chart's certgen Job carries the release's revision in its name
      if (d.path("kind").asText().equals("Job")
          && Manifests.name(d).matches("sart-certgen-[0-9]+")) {
        ((ObjectNode) d.path("metadata")).put("name", "sart-certgen");
      }
      // difference 2: in the chart, a checksum of the same content on the pod template
      JsonNode meta = d.path("spec").path("template").path("metadata");
      if (meta.path("annotations").has("checksum/cni")) {
        ((ObjectNode) meta.path("annotations")).remove("checksum/cni");
        if (meta.path("annotations").isEmpty()) {
          ((ObjectNode) meta).remove("annotations");
        }
      }
    }
    Map<String, JsonNode> actual = byKey(helm);
    assertEquals(expected.keySet(), actual.keySet(), mode + ": the same objects");
    for (String key : expected.keySet()) {
      assertEquals("", difference("", expected.get(key), actual.get(key)), mode + ": " + key);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"lb", "cni", "dual"})
  void everyContainerCommandLineIsAcceptedByItsProgram(String mode) throws IOException {
    for (String values :
        List.of("", "log: {format: plain, level: debug}\nnode: {metricsPort: 9100}\n")) {
      List<JsonNode> docs = render(mode, values);
      assertEquals(3, Manifests.checkCommandLines(docs, "chart " + mode + " " + values));
      Manifests.checkReferences(docs, "chart " + mode);
      Manifests.checkMode(docs, mode);
    }
  }

  @Test
  void theValuesUsersChangeReachTheManifests() throws IOException {
    List<JsonNode> docs =
        render(
            "cni",
            """
            image: {repository: registry.example/sart, tag: "0.1.0", pullPolicy: Always}
            node:
              nodeSelector: {sart.terassyi.net/bgp: "true"}
              tolerations: [{key: dedicated, operator: Exists}]
              resources: {requests: {cpu: 50m}}
              javaOptions: -Xmn8m -Xlog:gc
            controller: {replicas: 3, tolerations: [{key: infra, operator: Exists}], javaOptions: -Xmx256m,
              withdrawFromCordonedNodes: true}
            cni: {binDir: /usr/libexec/cni}
            """);
    // every sartd command line parses as sartd parses it, the controller's new flag included
    assertEquals(3, Manifests.checkCommandLines(docs, "chart cni with values"));
    JsonNode pod = Manifests.one(docs, "DaemonSet", "sartd-node").at("/spec/template/spec");
    for (JsonNode c : pod.findParents("image")) {
      assertEquals("registry.example/sart:0.1.0", c.path("image").asText());
      assertEquals("Always", c.path("imagePullPolicy").asText());
    }
    assertEquals("true", pod.at("/nodeSelector/sart.terassyi.net~1bgp").asText());
    assertEquals(
        "[{\"key\":\"dedicated\",\"operator\":\"Exists\"}]", pod.path("tolerations").toString());
    assertEquals("50m", pod.at("/containers/0/resources/requests/cpu").asText());
    assertEquals("-Xmn8m -Xlog:gc", Manifests.env(pod.at("/containers/0")).get("SARTD_JAVA_OPTS"));
    assertTrue(pod.path("volumes").toString().contains("\"path\":\"/usr/libexec/cni\""));
    JsonNode controller = Manifests.one(docs, "Deployment", "sart-controller");
    assertEquals(3, controller.at("/spec/replicas").asInt());
    assertEquals(
        "-Xmx256m",
        Manifests.env(controller.at("/spec/template/spec/containers/0")).get("SARTD_JAVA_OPTS"));
    assertEquals(
        List.of("node-role.kubernetes.io/control-plane", "node.kubernetes.io/not-ready", "infra"),
        controller.at("/spec/template/spec/tolerations").findValuesAsText("key"));
    assertTrue(
        controller
            .at("/spec/template/spec/containers/0/args")
            .toString()
            .contains("\"--withdraw-from-cordoned-nodes\""),
        controller.at("/spec/template/spec/containers/0/args")::toString);
  }

  @Test
  void poolsClusterBgpAndMonitorsAreOptionalObjects() throws IOException {
    assertTrue(
        render("lb", "").stream()
            .noneMatch(d -> d.path("apiVersion").asText().startsWith("sart.terassyi.net/")));
    List<JsonNode> docs =
        render(
            "lb",
            """
            bgpPeerTemplates: [{name: tor1, spec: {asn: 65100, addr: 192.0.2.1}}]
            clusterBGPs:
              - name: default
                spec:
                  asnSelector: {from: label}
                  routerIdSelector: {from: internalAddress}
                  speaker: {path: 127.0.0.1:5000, multipath: true}
                  peers: [{peerTemplateRef: tor1}]
            addressPools: [{name: lb, spec: {cidr: 198.51.100.0/24, type: service, allocType: bit}}]
            objectsAsHooks: false
            metrics: {serviceMonitor: {enabled: true}}
            webhook: {certManager: {enabled: true}}
            """);
    assertEquals(
        "label",
        Manifests.one(docs, "ClusterBGP", "default").at("/spec/asnSelector/from").asText());
    assertEquals("65100", Manifests.one(docs, "BGPPeerTemplate", "tor1").at("/spec/asn").asText());
    assertEquals(
        "198.51.100.0/24", Manifests.one(docs, "AddressPool", "lb").at("/spec/cidr").asText());
    Manifests.one(docs, "ServiceMonitor", "sart-controller");
    Manifests.one(docs, "PodMonitor", "sartd-node");
    assertEquals(
        "sart-webhook-server-cert",
        Manifests.one(docs, "Certificate", "sart-webhook-server-cert")
            .at("/spec/secretName")
            .asText());
    assertEquals(
        NAMESPACE + "/sart-webhook-server-cert",
        Manifests.one(docs, "ValidatingWebhookConfiguration", "sart-validating")
            .at("/metadata/annotations/cert-manager.io~1inject-ca-from")
            .asText());
  }

  /** The caBundle of every webhook of both configurations (null where the field is left out). */
  private static List<String> caBundles(List<JsonNode> docs) {
    List<String> all = new ArrayList<>();
    for (String kind : List.of("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration")) {
      for (JsonNode d : docs) {
        if (d.path("kind").asText().equals(kind)) {
          d.path("webhooks")
              .forEach(w -> all.add(w.path("clientConfig").path("caBundle").asText(null)));
        }
      }
    }
    assertEquals(6, all.size());
    return all;
  }

  private static boolean hasCertgen(List<JsonNode> docs) {
    return docs.stream()
        .anyMatch(
            d ->
                Manifests.name(d).startsWith("sart-certgen")
                    && List.of("Job", "ServiceAccount", "Role", "ClusterRole")
                        .contains(d.path("kind").asText()));
  }

  @Test
  void theWebhookCertificateComesFromTheCertgenJobCertManagerOrAValue() throws IOException {
    // default: the Job (named after the revision), and no caBundle for an upgrade to reset
    List<JsonNode> job = render("lb", "");
    assertEquals(
        List.of("sartd", "certgen", "--apply"),
        Manifests.argv(
                Manifests.one(job, "Job", "sart-certgen-1").at("/spec/template/spec/containers/0"))
            .subList(0, 3));
    assertTrue(caBundles(job).stream().allMatch(c -> c == null), caBundles(job).toString());
    // cert-manager: its Certificate and cainjector, no Job, no caBundle
    List<JsonNode> cm = render("lb", "webhook: {certManager: {enabled: true}}\n");
    assertTrue(!hasCertgen(cm), "no certgen Job or RBAC with cert-manager");
    Manifests.one(cm, "Certificate", "sart-webhook-server-cert");
    Manifests.one(cm, "Issuer", "sart-selfsigned");
    assertTrue(caBundles(cm).stream().allMatch(c -> c == null));
    assertEquals(
        NAMESPACE + "/sart-webhook-server-cert",
        Manifests.one(cm, "MutatingWebhookConfiguration", "sart-mutating")
            .at("/metadata/annotations/cert-manager.io~1inject-ca-from")
            .asText());
    // a CA given by value: in every webhook, no Job
    List<JsonNode> value = render("lb", "webhook: {caBundle: Q0EK}\n");
    assertTrue(!hasCertgen(value));
    assertEquals(List.of("Q0EK", "Q0EK", "Q0EK", "Q0EK", "Q0EK", "Q0EK"), caBundles(value));
  }

  @Test
  void theChartShipsItAsAnOptionalConfigMapForGrafanasSidecar() throws IOException {
    assertTrue(
        render("lb", "").stream()
            .noneMatch(c -> Manifests.name(c).equals("sart-grafana-dashboard")));
    List<JsonNode> docs =
        render("lb", "metrics: {grafanaDashboard: {enabled: true, namespace: monitoring}}\n");
    JsonNode cm = Manifests.one(docs, "ConfigMap", "sart-grafana-dashboard");
    assertEquals("1", cm.at("/metadata/labels/grafana_dashboard").asText());
    assertEquals("monitoring", cm.at("/metadata/namespace").asText());
    assertEquals(
        Files.readString(Dashboard.FILE).strip(), cm.at("/data/sart.json").asText().strip());
  }

  @Test
  void aModeOtherThanLbCniOrDualIsRefused() {
    RuntimeException e = assertThrows(RuntimeException.class, () -> render("bgp", ""));
    assertTrue(e.getMessage().contains("mode must be lb, cni or dual"), e.getMessage());
  }

  /**
   * The first place where two trees differ ("" if none); numbers compare by value (kustomize writes
   * the CRDs' 4.294967295E9 as 4294967295, both YAML for the same number).
   */
  static String difference(String at, JsonNode a, JsonNode b) {
    if (a.isNumber() && b.isNumber()) {
      return a.decimalValue().compareTo(b.decimalValue()) == 0
          ? ""
          : at + ": " + a + " against " + b;
    }
    if (a.getNodeType() != b.getNodeType() || a.size() != b.size()) {
      return at + ": " + a + " against " + b;
    }
    if (a.isObject()) {
      for (var it = a.fieldNames(); it.hasNext(); ) {
        String f = it.next();
        if (!b.has(f)) {
          return at + "/" + f + ": only in kustomize's";
        }
        String d = difference(at + "/" + f, a.get(f), b.get(f));
        if (!d.isEmpty()) {
          return d;
        }
      }
      return "";
    }
    if (a.isArray()) {
      for (int i = 0; i < a.size(); i++) {
        String d = difference(at + "/" + i, a.get(i), b.get(i));
        if (!d.isEmpty()) {
          return d;
        }
      }
      return "";
    }
    return a.equals(b) ? "" : at + ": " + a + " against " + b;
  }
}
