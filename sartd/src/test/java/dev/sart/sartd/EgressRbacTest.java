package dev.sart.sartd;

import static dev.sart.crds.testing.KubeObjects.annotated;
import static dev.sart.crds.testing.KubeObjects.labelled;
import static dev.sart.crds.testing.KubeObjects.runningPod;
import static dev.sart.crds.testing.KubeObjects.service;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.agent.egress.EgressIds;
import dev.sart.agent.egress.GatewayAgent;
import dev.sart.agent.egress.GatewayNat;
import dev.sart.agent.egress.GatewayTunnel;
import dev.sart.crds.Egress;
import dev.sart.crds.EgressPort;
import dev.sart.crds.EgressSourceAddress;
import dev.sart.crds.EgressSpec;
import dev.sart.crds.EgressStatus;
import dev.sart.crds.Sart;
import dev.sart.crds.TunnelMode;
import dev.sart.crds.testing.RbacAudit;
import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.Netns;
import dev.sart.testbed.Node;
import dev.sart.testbed.Programs;
import dev.sart.testbed.Testbed;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The roles the controller binds for the egress pods (kube-controller's {@code
 * manifests/egress-rbac.yaml}; the chart's copy renders the same, deploy's HelmChartTest) grant
 * exactly what {@code sartd egress} does against the API server: the tunnel-mode label on its own
 * pod ({@link EgressCommand#label}) and {@link GatewayAgent}'s informers, run in a network
 * namespace of the test bed (a real VXLAN end, nft) until it applied the Egress's static address
 * and reverse port. Every request of its client (told apart by its User-Agent) must be allowed with
 * {@code sart-egress} bound by a RoleBinding in the Egress's namespace and {@code sart-egress-pods}
 * by a ClusterRoleBinding, as {@code EgressAccess} binds them; every granted verb must have been
 * used. As kube-agent's AgentRbacTest does for the node agent, with the same RbacAudit.
 */
@EnableKubernetesMockClient(crud = true)
class EgressRbacTest {
  static KubernetesClient client;
  static KubernetesMockServer server;

  @RegisterExtension final Testbed testbed = new Testbed();

  private static final String AGENT = "sartd-egress-rbac-test";
  private static final String NS = "internet-egress";
  private static final String POD = "nat-1";
  private static final String STATIC = "203.0.113.200";
  private static final Duration WAIT = Duration.ofSeconds(30);

  private static void objects() {
    client
        .resource(
            labelled(runningPod(NS, POD, null, "192.0.2.2"), Map.of(Sart.EGRESS_NAME_LABEL, "nat")))
        .create();
    // a client pod of another namespace that opted in
    client
        .resource(
            annotated(
                runningPod("default", "client", null, "192.0.2.10"),
                Map.of(Sart.EGRESS_ANNOTATION_PREFIX + NS, "nat")))
        .create();
    client
        .resource(
            service(NS, "web", null, 80).editSpec().withClusterIP("192.0.2.80").endSpec().build())
        .create();
    var egress =
        new Egress(
            NS,
            "nat",
            new EgressSpec(List.of("198.51.100.0/24"), 1)
                .withSourceAddress(
                    new EgressSourceAddress(
                        "egress-pool", null, List.of(new EgressPort("TCP", 8080, "web", 80)))));
    egress.setStatus(new EgressStatus(1, null, STATIC, POD, "node1", null));
    client.resource(egress).create();
  }

  @Test
  void theRolesAllowEveryRequestOfTheEgressGatewayAndNothingItDoesNotUse() throws Exception {
    objects();
    var t = testbed.topology();
    Node gw = t.node("gw");
    var link = t.link(t.node("node"), gw).addresses("192.0.2.1/30", "192.0.2.2/30");
    String uplink = link.bName();
    try (var agentClient =
            new KubernetesClientBuilder()
                .withConfig(
                    new ConfigBuilder(client.getConfiguration()).withUserAgent(AGENT).build())
                .build();
        var ns = Netns.named(gw.netns());
        var nl = Netlink.open(ns)) {
      var settings =
          new EgressCommand.Settings(NS, "nat", POD, TunnelMode.VXLAN, 4789, uplink, "requested");
      EgressCommand.label(agentClient, settings);
      var tunnel = new GatewayTunnel(nl, uplink, EgressIds.vni(NS, "nat"), 4789);
      ns.run(
          () -> {
            tunnel.setUp();
            return null;
          });
      var nat = new GatewayNat(gw.inNetns(List.of("nft")), Programs::processBuilder);
      try (var agent = new GatewayAgent(agentClient, NS, "nat", POD, uplink, tunnel, nat)) {
        agent.start();
        await("the static address and the reverse port in nft")
            .atMost(WAIT)
            .until(
                () -> {
                  var rules = gw.exec("nft", "list", "ruleset");
                  return rules.contains(STATIC) && rules.contains("192.0.2.80");
                });
      }
    }
    assertEquals(
        "vxlan",
        client
            .pods()
            .inNamespace(NS)
            .withName(POD)
            .get()
            .getMetadata()
            .getLabels()
            .get(Sart.EGRESS_TUNNEL_LABEL));

    var audit =
        new RbacAudit(Path.of("..", "kube-controller", "manifests", "egress-rbac.yaml"))
            .boundIn("sart-egress", NS);
    for (var request = server.takeRequest(1, TimeUnit.SECONDS);
        request != null;
        request = server.takeRequest(1, TimeUnit.SECONDS)) {
      if (AGENT.equals(request.getHeader("User-Agent"))) {
        audit.record(request.getMethod(), request.getPath());
      }
    }
    assertTrue(audit.seen() >= 8, "the gateway's requests were recorded: " + audit.seen());
    assertEquals(Set.of(), audit.denied(), "requests the roles do not allow");
    assertEquals(Set.of(), audit.unused(Set.of()), "granted but not used; used: " + audit.used());
  }
}
