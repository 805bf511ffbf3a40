package dev.sart.crds.testing;

import static dev.sart.crds.testing.RbacAudit.access;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sart.crds.testing.RbacAudit.Access;
import java.nio.file.Files;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RbacAuditTest {
  @Test
  void requestPathsMapToRbacAttributes() {
    assertEquals(
        new Access("watch", "", "services", null),
        access("GET", "/api/v1/services?allowWatchBookmarks=true&watch=true"));
    assertEquals(
        new Access("patch", "", "services/status", "test"),
        access("PATCH", "/api/v1/namespaces/test/services/s/status"));
    assertEquals(
        new Access("list", "sart.terassyi.net", "addressblocks", null),
        access("GET", "/apis/sart.terassyi.net/v1alpha2/addressblocks"));
    assertEquals(
        new Access("get", "coordination.k8s.io", "leases", "kube-system"),
        access(
            "GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/sart-controller"));
    assertEquals(
        new Access("create", "", "events", "test"),
        access("POST", "/api/v1/namespaces/test/events"));
    assertEquals(
        new Access("delete", "sart.terassyi.net", "bgpadvertisements", "test"),
        access("DELETE", "/apis/sart.terassyi.net/v1alpha2/namespaces/test/bgpadvertisements/a"));
  }

  /** The audit of a manifest of these YAML documents. */
  private static RbacAudit audit(String yaml) throws Exception {
    var manifest = Files.createTempFile("rbac", ".yaml");
    try {
      Files.writeString(manifest, yaml);
      return new RbacAudit(manifest);
    } finally {
      Files.delete(manifest);
    }
  }

  @Test
  void aRequestNoRoleAllowsIsDeniedAndAGrantNobodyUsedIsUnused() throws Exception {
    var audit =
        audit(
"""
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: c}
rules:
- apiGroups: [""]
  resources: [services, services/status]
  verbs: [list, watch, patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: r, namespace: kube-system}
rules:
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: [get]
""");
    audit.record("GET", "/api/v1/services?watch=true");
    audit.record("PATCH", "/api/v1/namespaces/test/services/s/status");
    audit.record("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/l");
    audit.record("GET", "/apis/coordination.k8s.io/v1/namespaces/default/leases/l");
    audit.record("DELETE", "/api/v1/namespaces/test/services/s");
    assertEquals(5, audit.seen());
    assertEquals(
        Set.of("delete /services in test", "get coordination.k8s.io/leases in default"),
        audit.denied());
    assertEquals(
        Set.of("list /services", "patch /services", "watch /services/status"),
        audit.unused(Set.of("list /services/status")));
  }

  @Test
  void aClusterRoleBoundInANamespaceAllowsRequestsThereOnly() throws Exception {
    var audit =
        audit(
"""
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: c}
rules:
- apiGroups: [""]
  resources: [services]
  verbs: [list]
""")
            .boundIn("c", "egress");
    audit.record("GET", "/api/v1/namespaces/egress/services");
    audit.record("GET", "/api/v1/namespaces/other/services");
    audit.record("GET", "/api/v1/services");
    assertEquals(Set.of("list /services in other", "list /services"), audit.denied());
    assertEquals(Set.of(), audit.unused(Set.of()));
  }
}
