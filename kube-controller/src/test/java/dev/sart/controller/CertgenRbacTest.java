package dev.sart.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.controller.webhook.Certs;
import dev.sart.controller.webhook.WebhookCertificate;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The certgen Job's RBAC ({@code manifests/certgen.yaml}) against every request {@code sartd
 * certgen --apply} makes: a first run (Secret created, both configurations patched) and a run over
 * a Secret it must replace; each request, with the object's name, is allowed by a rule
 * (resourceNames included), and every granted verb was used.
 */
class CertgenRbacTest {
  private static final String AGENT = "sart-certgen-rbac-test";

  @TempDir Path work;

  private static List<HasMetadata> manifest(String file) throws Exception {
    var result = new ArrayList<HasMetadata>();
    for (var doc : Files.readString(Path.of("manifests", file)).split("(?m)^---$")) {
      if (!doc.lines().allMatch(l -> l.isBlank() || l.startsWith("#"))) {
        result.add(Serialization.unmarshal(doc));
      }
    }
    return result;
  }

  private static boolean allows(
      List<PolicyRule> rules, dev.sart.crds.testing.RbacAudit.Access a, String name) {
    return rules.stream()
        .anyMatch(
            r ->
                r.getApiGroups().contains(a.group())
                    && r.getResources().contains(a.resource())
                    && r.getVerbs().contains(a.verb())
                    && (r.getResourceNames() == null
                        || r.getResourceNames().isEmpty()
                        || r.getResourceNames().contains(name)));
  }

  @Test
  void theRolesAllowEveryRequestOfCertgenByNameAndNothingItDoesNotUse() throws Exception {
    var server = MockCluster.server();
    try (var admin = server.createClient();
        var certgen =
            new KubernetesClientBuilder()
                .withConfig(
                    new ConfigBuilder(admin.getConfiguration()).withUserAgent(AGENT).build())
                .build()) {
      for (var o : manifest("webhook.yaml")) {
        if (o.getKind().endsWith("WebhookConfiguration")) {
          admin.resource(o).create();
        }
      }
      var options =
          new WebhookCertificate.Options(
              "kube-system",
              Certs.SECRET_NAME,
              "sart-webhook-service.kube-system.svc",
              List.of("sart-validating"),
              List.of("sart-mutating"),
              work.resolve("one"),
              365,
              Duration.ofSeconds(5));
      WebhookCertificate.apply(certgen, options);
      // a Secret it cannot keep (no key): replaced with an update
      admin
          .secrets()
          .inNamespace("kube-system")
          .withName(Certs.SECRET_NAME)
          .edit(s -> new SecretBuilder(s).withData(Map.of("tls.crt", "")).build());
      WebhookCertificate.apply(
          certgen,
          new WebhookCertificate.Options(
              options.namespace(),
              options.secret(),
              options.host(),
              options.validating(),
              options.mutating(),
              work.resolve("two"),
              365,
              options.waitFor()));
    }

    var objects = manifest("certgen.yaml");
    var clusterRules =
        objects.stream()
            .filter(ClusterRole.class::isInstance)
            .map(ClusterRole.class::cast)
            .flatMap(r -> r.getRules().stream())
            .toList();
    var roles = objects.stream().filter(Role.class::isInstance).map(Role.class::cast).toList();
    var used = new TreeSet<String>();
    var denied = new TreeSet<String>();
    for (var request = server.takeRequest(1, TimeUnit.SECONDS);
        request != null;
        request = server.takeRequest(1, TimeUnit.SECONDS)) {
      if (!AGENT.equals(request.getHeader("User-Agent"))) {
        continue;
      }
      var path = request.getPath().replaceAll("\\?.*", "");
      var access = dev.sart.crds.testing.RbacAudit.access(request.getMethod(), request.getPath());
      // the object's name: the last path segment of a named request (create names it in the body)
      String name = access.verb().equals("create") ? "" : path.substring(path.lastIndexOf('/') + 1);
      used.add(access.grant());
      boolean allowed =
          allows(clusterRules, access, name)
              || roles.stream()
                  .anyMatch(
                      r ->
                          r.getMetadata().getNamespace().equals(access.namespace())
                              && allows(r.getRules(), access, name));
      if (!allowed) {
        denied.add(access.grant() + " " + name);
      }
    }
    server.destroy();
    assertEquals(Set.of(), denied, "requests the roles do not allow");

    var granted = new TreeSet<String>();
    for (var rule :
        java.util.stream.Stream.concat(
                clusterRules.stream(), roles.stream().flatMap(r -> r.getRules().stream()))
            .toList()) {
      for (var group : rule.getApiGroups()) {
        for (var resource : rule.getResources()) {
          rule.getVerbs().forEach(v -> granted.add(v + " " + group + "/" + resource));
        }
      }
    }
    assertTrue(used.containsAll(granted), "granted but not used: " + granted + " used " + used);
  }
}
