package dev.sart.crds.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Checks the requests a component sent against the RBAC manifest it ships with, as an API server's
 * RBAC authorizer would: each request becomes (verb, API group, resource[/subresource], namespace);
 * it must be allowed by a ClusterRole or by a Role of its namespace; and every verb granted should
 * have been used. The controller's {@code RbacTest} and the agent's {@code AgentRbacTest} feed it
 * the mock API server's recorded requests.
 */
public final class RbacAudit {
  /** One request as RBAC sees it. */
  public record Access(String verb, String group, String resource, String namespace) {
    /** {@code patch /services/status}, {@code list sart.terassyi.net/addressblocks}. */
    public String grant() {
      return verb + " " + group + "/" + resource;
    }
  }

  private final java.util.Map<String, List<PolicyRule>> clusterRoles =
      new java.util.LinkedHashMap<>();
  private final List<Role> roles = new ArrayList<>();
  private final Set<String> used = new TreeSet<>();
  private final Set<String> denied = new TreeSet<>();
  private int seen;

  /** Reads the ClusterRoles and Roles of a multi-document YAML manifest. */
  public RbacAudit(Path manifest) throws IOException {
    for (var doc : Files.readString(manifest).split("(?m)^---$")) {
      if (doc.lines().allMatch(l -> l.isBlank() || l.startsWith("#"))) {
        continue;
      }
      HasMetadata object = Serialization.unmarshal(doc);
      if (object instanceof ClusterRole c) {
        clusterRoles.put(c.getMetadata().getName(), c.getRules());
      } else if (object instanceof Role r) {
        roles.add(r);
      }
    }
  }

  /**
   * Takes the ClusterRole {@code clusterRole} as bound by a RoleBinding in {@code namespace}: its
   * rules allow requests in that namespace only, as a Role there would.
   */
  public RbacAudit boundIn(String clusterRole, String namespace) {
    var rules = clusterRoles.remove(clusterRole);
    if (rules == null) {
      throw new IllegalArgumentException("no ClusterRole " + clusterRole + " in the manifest");
    }
    var role = new Role();
    role.setMetadata(
        new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
            .withName(clusterRole)
            .withNamespace(namespace)
            .build());
    role.setRules(rules);
    roles.add(role);
    return this;
  }

  /**
   * The RBAC attributes of a request: {@code GET
   * /api/v1/namespaces/ns/services/x/status?watch=true} is (watch, "", services/status, ns).
   */
  public static Access access(String method, String pathAndQuery) {
    int q = pathAndQuery.indexOf('?');
    String query = q < 0 ? "" : pathAndQuery.substring(q + 1);
    String path = q < 0 ? pathAndQuery : pathAndQuery.substring(0, q);
    List<String> parts = new ArrayList<>(List.of(path.substring(1).split("/")));
    String group;
    if (parts.getFirst().equals("api")) {
      group = "";
      parts = new ArrayList<>(parts.subList(2, parts.size()));
    } else {
      group = parts.get(1);
      parts = new ArrayList<>(parts.subList(3, parts.size()));
    }
    String namespace = null;
    if (parts.size() >= 3 && parts.getFirst().equals("namespaces")) {
      namespace = parts.get(1);
      parts = new ArrayList<>(parts.subList(2, parts.size()));
    }
    String resource = parts.getFirst() + (parts.size() > 2 ? "/" + parts.get(2) : "");
    boolean named = parts.size() > 1;
    String verb =
        switch (method) {
          case "GET" -> query.contains("watch=true") ? "watch" : named ? "get" : "list";
          case "POST" -> "create";
          case "PUT" -> "update";
          case "PATCH" -> "patch";
          case "DELETE" -> named ? "delete" : "deletecollection";
          default -> throw new IllegalArgumentException(method);
        };
    return new Access(verb, group, resource, namespace);
  }

  /** Records one request the component sent. */
  public void record(String method, String pathAndQuery) {
    seen++;
    Access a = access(method, pathAndQuery);
    used.add(a.grant());
    boolean allowed =
        clusterRoles.values().stream().anyMatch(rules -> allows(rules, a))
            || roles.stream()
                .anyMatch(
                    r ->
                        r.getMetadata().getNamespace().equals(a.namespace())
                            && allows(r.getRules(), a));
    if (!allowed) {
      denied.add(a.grant() + (a.namespace() == null ? "" : " in " + a.namespace()));
    }
  }

  /** How many requests were recorded. */
  public int seen() {
    return seen;
  }

  /** The recorded requests no role allows, as {@code verb group/resource [in namespace]}. */
  public Set<String> denied() {
    return denied;
  }

  /** The verbs granted (by any role) that no recorded request used, less {@code notExercised}. */
  public Set<String> unused(Set<String> notExercised) {
    var granted = new TreeSet<String>();
    var rules = new ArrayList<PolicyRule>();
    clusterRoles.values().forEach(rules::addAll);
    roles.forEach(r -> rules.addAll(r.getRules()));
    for (var rule : rules) {
      for (var group : rule.getApiGroups()) {
        for (var resource : rule.getResources()) {
          rule.getVerbs().forEach(v -> granted.add(v + " " + group + "/" + resource));
        }
      }
    }
    granted.removeAll(used);
    granted.removeAll(notExercised);
    return granted;
  }

  /** The grants the recorded requests used. */
  public Set<String> used() {
    return used;
  }

  private static boolean allows(List<PolicyRule> rules, Access a) {
    return rules.stream()
        .anyMatch(
            r ->
                r.getApiGroups().contains(a.group())
                    && r.getResources().contains(a.resource())
                    && r.getVerbs().contains(a.verb()));
  }
}
