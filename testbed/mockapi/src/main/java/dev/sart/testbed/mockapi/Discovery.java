package dev.sart.testbed.mockapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The API server's discovery documents, which fabric8's mock does not serve: {@code /api}, {@code
 * /api/v1}, {@code /apis} and {@code /apis/GROUP/VERSION} (the legacy, unaggregated form every
 * kubectl understands). Without them {@code kubectl get services} against the mock says "the server
 * doesn't have a resource type". The built-in kinds listed are those sart and its test bed use; a
 * custom resource's come from its CustomResourceDefinition as the mock stores it, so a CRD created
 * through the API is discoverable at once, as on a real server.
 */
final class Discovery {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> VERBS =
      List.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");

  /** A built-in resource: group, version, plural, kind, namespaced, short names. */
  private record Builtin(
      String group,
      String version,
      String plural,
      String kind,
      boolean namespaced,
      String... shortNames) {}

  private static final List<Builtin> BUILTINS =
      List.of(
          new Builtin("", "v1", "namespaces", "Namespace", false, "ns"),
          new Builtin("", "v1", "nodes", "Node", false, "no"),
          new Builtin("", "v1", "pods", "Pod", true, "po"),
          new Builtin("", "v1", "services", "Service", true, "svc"),
          new Builtin("", "v1", "endpoints", "Endpoints", true, "ep"),
          new Builtin("", "v1", "configmaps", "ConfigMap", true, "cm"),
          new Builtin("", "v1", "secrets", "Secret", true),
          new Builtin("", "v1", "serviceaccounts", "ServiceAccount", true, "sa"),
          new Builtin("", "v1", "events", "Event", true, "ev"),
          new Builtin("", "v1", "persistentvolumes", "PersistentVolume", false, "pv"),
          new Builtin("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", true, "pvc"),
          new Builtin("", "v1", "limitranges", "LimitRange", true, "limits"),
          new Builtin("", "v1", "resourcequotas", "ResourceQuota", true, "quota"),
          new Builtin("", "v1", "replicationcontrollers", "ReplicationController", true, "rc"),
          new Builtin("", "v1", "podtemplates", "PodTemplate", true),
          new Builtin("apps", "v1", "deployments", "Deployment", true, "deploy"),
          new Builtin("apps", "v1", "daemonsets", "DaemonSet", true, "ds"),
          new Builtin("apps", "v1", "replicasets", "ReplicaSet", true, "rs"),
          new Builtin("apps", "v1", "statefulsets", "StatefulSet", true, "sts"),
          new Builtin("apps", "v1", "controllerrevisions", "ControllerRevision", true),
          new Builtin("batch", "v1", "jobs", "Job", true),
          new Builtin("batch", "v1", "cronjobs", "CronJob", true, "cj"),
          new Builtin("discovery.k8s.io", "v1", "endpointslices", "EndpointSlice", true),
          new Builtin("coordination.k8s.io", "v1", "leases", "Lease", true),
          new Builtin(
              "networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy", true, "netpol"),
          new Builtin("networking.k8s.io", "v1", "ingresses", "Ingress", true, "ing"),
          new Builtin("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", true, "pdb"),
          new Builtin("rbac.authorization.k8s.io", "v1", "roles", "Role", true),
          new Builtin("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", true),
          new Builtin("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false),
          new Builtin(
              "rbac.authorization.k8s.io",
              "v1",
              "clusterrolebindings",
              "ClusterRoleBinding",
              false),
          new Builtin(
              "admissionregistration.k8s.io",
              "v1",
              "validatingwebhookconfigurations",
              "ValidatingWebhookConfiguration",
              false),
          new Builtin(
              "admissionregistration.k8s.io",
              "v1",
              "mutatingwebhookconfigurations",
              "MutatingWebhookConfiguration",
              false),
          new Builtin(
              "apiextensions.k8s.io",
              "v1",
              "customresourcedefinitions",
              "CustomResourceDefinition",
              false,
              "crd",
              "crds"));

  private final Supplier<String> crds;

  /**
   * @param crds the body of {@code GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions} as
   *     the mock answers it now
   */
  Discovery(Supplier<String> crds) {
    this.crds = crds;
  }

  /** The document for {@code path} (no query), or null when it is not a discovery path. */
  String document(String path) {
    String p =
        path.endsWith("/") && path.length() > 1 ? path.substring(0, path.length() - 1) : path;
    if (p.equals("/api")) {
      ObjectNode v = JSON.createObjectNode().put("kind", "APIVersions");
      v.putArray("versions").add("v1");
      v.putArray("serverAddressByClientCIDRs");
      return v.toString();
    }
    if (p.equals("/apis")) {
      return groups().toString();
    }
    String[] parts = p.split("/");
    if (p.equals("/api/v1")) {
      return resources("", "v1").toString();
    }
    if (parts.length == 4 && parts[1].equals("apis")) {
      ObjectNode list = resources(parts[2], parts[3]);
      return list.withArray("resources").isEmpty() ? null : list.toString();
    }
    return null;
  }

  /** Every group and version: the built-ins' and those of the CRDs' served versions. */
  private ObjectNode groups() {
    Map<String, List<String>> versions = new LinkedHashMap<>();
    for (Builtin b : BUILTINS) {
      if (!b.group().isEmpty()) {
        versions.computeIfAbsent(b.group(), g -> new ArrayList<>());
        if (!versions.get(b.group()).contains(b.version())) {
          versions.get(b.group()).add(b.version());
        }
      }
    }
    for (JsonNode crd : crdItems()) {
      String group = crd.path("spec").path("group").asText();
      for (JsonNode v : crd.path("spec").path("versions")) {
        if (v.path("served").asBoolean(true)) {
          List<String> vs = versions.computeIfAbsent(group, g -> new ArrayList<>());
          if (!vs.contains(v.path("name").asText())) {
            vs.add(v.path("name").asText());
          }
        }
      }
    }
    ObjectNode list = JSON.createObjectNode().put("kind", "APIGroupList").put("apiVersion", "v1");
    ArrayNode groups = list.putArray("groups");
    versions.forEach(
        (group, vs) -> {
          ObjectNode g = groups.addObject().put("name", group);
          ArrayNode arr = g.putArray("versions");
          for (String v : vs) {
            arr.addObject().put("groupVersion", group + "/" + v).put("version", v);
          }
          g.putObject("preferredVersion")
              .put("groupVersion", group + "/" + vs.getFirst())
              .put("version", vs.getFirst());
        });
    return list;
  }

  /** The APIResourceList of one group version (empty resources: not served). */
  private ObjectNode resources(String group, String version) {
    ObjectNode list =
        JSON.createObjectNode()
            .put("kind", "APIResourceList")
            .put("apiVersion", "v1")
            .put("groupVersion", group.isEmpty() ? version : group + "/" + version);
    ArrayNode rs = list.putArray("resources");
    for (Builtin b : BUILTINS) {
      if (b.group().equals(group) && b.version().equals(version)) {
        resource(rs, b.plural(), b.kind(), b.namespaced(), List.of(b.shortNames()));
        if (List.of("pods", "services", "nodes", "deployments", "daemonsets")
            .contains(b.plural())) {
          status(rs, b.plural(), b.kind(), b.namespaced());
        }
      }
    }
    for (JsonNode crd : crdItems()) {
      JsonNode spec = crd.path("spec");
      if (!spec.path("group").asText().equals(group)) {
        continue;
      }
      for (JsonNode v : spec.path("versions")) {
        if (!v.path("name").asText().equals(version) || !v.path("served").asBoolean(true)) {
          continue;
        }
        JsonNode names = spec.path("names");
        List<String> shortNames = new ArrayList<>();
        names.path("shortNames").forEach(s -> shortNames.add(s.asText()));
        boolean namespaced = spec.path("scope").asText().equals("Namespaced");
        ObjectNode r =
            resource(
                rs,
                names.path("plural").asText(),
                names.path("kind").asText(),
                namespaced,
                shortNames);
        r.put("singularName", names.path("singular").asText());
        if (names.has("categories")) {
          r.set("categories", names.get("categories"));
        }
        if (v.path("subresources").has("status")) {
          status(rs, names.path("plural").asText(), names.path("kind").asText(), namespaced);
        }
      }
    }
    return list;
  }

  private static ObjectNode resource(
      ArrayNode rs, String plural, String kind, boolean namespaced, List<String> shortNames) {
    ObjectNode r =
        rs.addObject()
            .put("name", plural)
            .put("singularName", kind.toLowerCase(java.util.Locale.ROOT))
            .put("namespaced", namespaced)
            .put("kind", kind);
    ArrayNode verbs = r.putArray("verbs");
    VERBS.forEach(verbs::add);
    if (!shortNames.isEmpty()) {
      ArrayNode s = r.putArray("shortNames");
      shortNames.forEach(s::add);
    }
    return r;
  }

  private static void status(ArrayNode rs, String plural, String kind, boolean namespaced) {
    ObjectNode r =
        rs.addObject()
            .put("name", plural + "/status")
            .put("singularName", "")
            .put("namespaced", namespaced)
            .put("kind", kind);
    ArrayNode verbs = r.putArray("verbs");
    List.of("get", "patch", "update").forEach(verbs::add);
  }

  private List<JsonNode> crdItems() {
    String body = crds.get();
    if (body == null || body.isBlank()) {
      return List.of();
    }
    try {
      List<JsonNode> items = new ArrayList<>();
      JSON.readTree(body).path("items").forEach(items::add);
      return items;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
