package dev.sart.controller;

import static dev.sart.crds.testing.KubeObjects.endpoint;
import static dev.sart.crds.testing.KubeObjects.lbService;
import static dev.sart.crds.testing.KubeObjects.slice;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.controller.runtime.Metrics;
import dev.sart.crds.AddressBlock;
import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressPoolSpec;
import dev.sart.crds.AddressType;
import dev.sart.crds.AsnSelector;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.BGPPeerTemplate;
import dev.sart.crds.BGPPeerTemplateSpec;
import dev.sart.crds.BlockRequest;
import dev.sart.crds.BlockRequestSpec;
import dev.sart.crds.ClusterBGP;
import dev.sart.crds.ClusterBGPSpec;
import dev.sart.crds.Egress;
import dev.sart.crds.EgressSourceAddress;
import dev.sart.crds.EgressSpec;
import dev.sart.crds.NodeBGP;
import dev.sart.crds.PeerConfig;
import dev.sart.crds.RouterIdSelector;
import dev.sart.crds.Sart;
import dev.sart.crds.SpeakerConfig;
import dev.sart.crds.testing.RbacAudit;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * kube-controller/manifests/rbac.yaml grants exactly what the controller does: a controller (dual
 * mode, leader election) runs through every reconciler's work against the mock API server, every
 * request it sends is recorded (told apart from the test's own by its User-Agent) and turned into
 * the RBAC attributes an API server would check (verb, group, resource/subresource, namespace);
 * each must be allowed by the ClusterRole or the leader-election Role, and each granted verb must
 * have been used, except the few listed in {@link #NOT_EXERCISED} with the reason.
 */
class RbacTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String AGENT = "sart-controller-rbac-test";

  /**
   * Granted but possibly not sent in this run: a fall-back when the cache lags, or needed by an
   * admission plugin.
   */
  private static final Set<String> NOT_EXERCISED =
      Set.of(
          "get /nodes", // a BlockRequest's node not yet in the cache
          "update sart.terassyi.net/addresspools/finalizers", // OwnerReferencesPermissionEnforcement (blockOwnerDeletion)
          // checked by the API server on a binding's create: boundRolesMayBeBound
          "bind rbac.authorization.k8s.io/clusterroles");

  private KubernetesMockServer server;
  private KubernetesClient client;
  private KubernetesClient controllerClient;
  private SartController controller;

  /** The roles the controller's bindings named. */
  private final Set<String> boundRoles = new TreeSet<>();

  @BeforeEach
  void setUp() {
    server = MockCluster.server();
    client = server.createClient();
    controllerClient =
        new KubernetesClientBuilder()
            .withConfig(new ConfigBuilder(client.getConfiguration()).withUserAgent(AGENT).build())
            .build();
  }

  @AfterEach
  void tearDown() {
    if (controller != null) {
      controller.close();
    }
    controllerClient.close();
    client.close();
    server.destroy();
  }

  /**
   * Every reconciler's creates, status writes, finalizer edits and deletes, as users and agents
   * cause them.
   */
  private void exercise() {
    MockCluster.node(
        client, "node1", "169.254.1.2", Map.of("bgp", "a", Sart.ASN_NODE_LABEL, "65000"));
    MockCluster.node(
        client, "node2", "169.254.2.2", Map.of("bgp", "a", Sart.ASN_NODE_LABEL, "65000"));
    client
        .resource(
            new BGPPeerTemplate(
                "router0", new BGPPeerTemplateSpec(65000L, "9.9.9.9", null, null, null, null)))
        .create();
    client
        .resource(
            new ClusterBGP(
                "cluster-a",
                new ClusterBGPSpec(
                    Map.of("bgp", "a"),
                    new AsnSelector(AsnSelector.From.LABEL, null),
                    new RouterIdSelector(RouterIdSelector.From.INTERNAL_ADDRESS, null),
                    new SpeakerConfig("127.0.0.1:5000", null, null),
                    List.of(new PeerConfig("router0", null, Map.of())))))
        .create();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(
            () ->
                client.resources(BGPPeer.class).list().getItems().size() == 2
                    && client.resources(ClusterBGP.class).withName("cluster-a").get().getStatus()
                        != null);
    // the template changes: generated peers and the NodeBGPs' peer lists are edited
    client
        .resources(BGPPeerTemplate.class)
        .withName("router0")
        .edit(
            t -> {
              t.setSpec(new BGPPeerTemplateSpec(65000L, "9.9.9.9", null, 90L, 30L, null));
              return t;
            });
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(
            () ->
                client.resources(BGPPeer.class).list().getItems().stream()
                    .allMatch(p -> Long.valueOf(90).equals(p.getSpec().holdTime())));

    // Services: address, Event, pool finalizer and status, service pool block, advertisement
    client
        .resource(
            new AddressPool(
                "lb", new AddressPoolSpec("10.0.1.0/24", AddressType.SERVICE, null, true)))
        .create();
    client.resource(lbService("test", "svc", Map.of()).build()).create();
    client
        .resource(
            slice("test", "svc", "svc-1", List.of(endpoint("10.100.0.1", "node1", true, false))))
        .create();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(
            () -> {
              var advert =
                  client
                      .resources(BGPAdvertisement.class)
                      .inNamespace("test")
                      .withName("svc-10-0-1-1")
                      .get();
              return advert.getStatus() != null
                  && advert.getStatus().peers().size() == 2
                  && client.resources(AddressPool.class).withName("lb").get().getStatus() != null;
            });

    // the pool gets path attributes: the advertisement's spec.attrs is patched
    client
        .resources(AddressPool.class)
        .withName("lb")
        .edit(
            p -> {
              p.setSpec(p.getSpec().withAttrs(List.of("65000:100"), null, null));
              return p;
            });
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(
            () ->
                List.of("community=65000:100")
                    .equals(
                        client
                            .resources(BGPAdvertisement.class)
                            .inNamespace("test")
                            .withName("svc-10-0-1-1")
                            .get()
                            .getSpec()
                            .attrs()));

    // pod pool: a node's request gets a block
    client
        .resource(
            new AddressPool("pods", new AddressPoolSpec("10.1.0.0/24", AddressType.POD, 29, false)))
        .create();
    client.resource(new BlockRequest("pods-node2", new BlockRequestSpec("pods", "node2"))).create();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(
            () ->
                client
                            .resources(BlockRequest.class)
                            .withName("pods-node2")
                            .get()
                            .getStatus()
                            .block()
                        != null
                    && client.resources(AddressBlock.class).withName("pods-0").get().getStatus()
                        != null);

    // the Service goes away: advertisement withdrawn, deleted, its finalizer released once the
    // agents are done
    client.services().inNamespace("test").withName("svc").delete();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(
            () ->
                client
                    .resources(BGPAdvertisement.class)
                    .inNamespace("test")
                    .withName("svc-10-0-1-1")
                    .get()
                    .getStatus()
                    .peers()
                    .values()
                    .stream()
                    .allMatch(s -> s.name().equals("Withdraw")));
    client
        .resources(BGPAdvertisement.class)
        .inNamespace("test")
        .withName("svc-10-0-1-1")
        .subresource("status")
        .patch(
            io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                io.fabric8.kubernetes.client.dsl.base.PatchType.JSON),
            "[{\"op\":\"replace\",\"path\":\"/status/peers\",\"value\":{}}]");
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(
            () ->
                client
                        .resources(BGPAdvertisement.class)
                        .inNamespace("test")
                        .withName("svc-10-0-1-1")
                        .get()
                    == null);

    // node2 leaves the ClusterBGP (NodeBGP and peer deleted), then is deleted itself (its pod block
    // collected)
    client
        .nodes()
        .withName("node2")
        .edit(
            n -> {
              n.getMetadata().getLabels().put("bgp", "b");
              return n;
            });
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(() -> client.resources(NodeBGP.class).withName("node2").get() == null);
    client
        .resources(AddressBlock.class)
        .withName("pods-0")
        .edit(
            b -> {
              b.getMetadata().setFinalizers(List.of(Sart.ADDRESS_BLOCK_AGENT_FINALIZER));
              return b;
            });
    client.nodes().withName("node2").delete();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(() -> client.resources(AddressBlock.class).withName("pods-0").get() == null);

    // an Egress: Deployment and Service made; then a static address: both edited, the gateway pod
    // labelled, the address announced
    client
        .resource(
            new AddressPool("egress", AddressPoolSpec.egress("10.2.0.0/29", List.of("egress-ns"))))
        .create();
    client
        .pods()
        .resource(
            new io.fabric8.kubernetes.api.model.PodBuilder()
                .withNewMetadata()
                .withNamespace("egress-ns")
                .withName("nat-1")
                .withLabels(Map.of(Sart.EGRESS_NAME_LABEL, "nat"))
                .endMetadata()
                .withNewSpec()
                .withNodeName("node1")
                .endSpec()
                .withNewStatus()
                .withPodIP("10.100.0.9")
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .endCondition()
                .endStatus()
                .build())
        .create();
    client
        .resource(new Egress("egress-ns", "nat", new EgressSpec(List.of("0.0.0.0/0"), 1)))
        .create();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(
            () ->
                client
                        .resources(Egress.class)
                        .inNamespace("egress-ns")
                        .withName("nat")
                        .get()
                        .getStatus()
                    != null);
    client
        .resources(Egress.class)
        .inNamespace("egress-ns")
        .withName("nat")
        .edit(
            e -> {
              e.setSpec(
                  new EgressSpec(List.of("0.0.0.0/0"), 2)
                      .withSourceAddress(new EgressSourceAddress("egress")));
              return e;
            });
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(
            () ->
                "nat-1"
                        .equals(
                            client
                                .resources(Egress.class)
                                .inNamespace("egress-ns")
                                .withName("nat")
                                .get()
                                .getStatus()
                                .gateway())
                    && client
                            .resources(BGPAdvertisement.class)
                            .inNamespace("egress-ns")
                            .withName("egress-nat-10-2-0-1")
                            .get()
                            .getStatus()
                        != null
                    && client
                            .apps()
                            .deployments()
                            .inNamespace("egress-ns")
                            .withName("nat")
                            .get()
                            .getSpec()
                            .getReplicas()
                        == 2);
    // the egress pods' ServiceAccount and bindings, made for the namespace and removed with its
    // last
    // Egress
    await()
        .atMost(WAIT)
        .until(
            () ->
                client.rbac().roleBindings().inNamespace("egress-ns").withName("sart-egress").get()
                        != null
                    && client.rbac().clusterRoleBindings().withName("sart-egress-egress-ns").get()
                        != null);
    boundRoles.add(
        client
            .rbac()
            .roleBindings()
            .inNamespace("egress-ns")
            .withName("sart-egress")
            .get()
            .getRoleRef()
            .getName());
    boundRoles.add(
        client
            .rbac()
            .clusterRoleBindings()
            .withName("sart-egress-egress-ns")
            .get()
            .getRoleRef()
            .getName());
    client.resources(Egress.class).inNamespace("egress-ns").withName("nat").delete();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(
            () ->
                client.serviceAccounts().inNamespace("egress-ns").withName("sart-egress").get()
                        == null
                    && client.rbac().clusterRoleBindings().withName("sart-egress-egress-ns").get()
                        == null);
    client.resources(AddressPool.class).withName("egress").delete();

    // pools deleted: finalizers released once nothing uses them
    client.resources(AddressPool.class).withName("pods").delete();
    client.resources(AddressPool.class).withName("lb").delete();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(() -> client.resources(AddressPool.class).list().getItems().isEmpty());
  }

  @Test
  void theRolesAllowEveryRequestOfTheControllerAndNothingItDoesNotUse() throws Exception {
    var config =
        ControllerConfig.defaults("rbac-test")
            .withLease(Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(1));
    controller = new SartController(controllerClient, config, new Metrics());
    controller.start();
    await().atMost(WAIT).until(controller::leading);
    exercise();
    controller.close();
    controller = null;

    var audit = new RbacAudit(Path.of("manifests", "rbac.yaml"));
    for (var request = server.takeRequest(1, TimeUnit.SECONDS);
        request != null;
        request = server.takeRequest(1, TimeUnit.SECONDS)) {
      if (AGENT.equals(request.getHeader("User-Agent"))) {
        audit.record(request.getMethod(), request.getPath());
      }
    }
    assertTrue(audit.seen() > 50, "the controller's requests were recorded: " + audit.seen());
    assertEquals(Set.of(), audit.denied(), "requests the roles do not allow");
    assertEquals(Set.of(), audit.unused(NOT_EXERCISED), "granted but not used");
    assertEquals(Set.of("sart-egress", "sart-egress-pods"), boundRoles);
    boundRolesMayBeBound();
  }

  /**
   * A real API server refuses a RoleBinding or ClusterRoleBinding to a role granting what its
   * creator does not hold (sart-egress's pods patch) unless the creator has {@code bind} on that
   * role (Kubernetes' "privilege escalation prevention"); the mock server does not check it, so the
   * rule is checked here: bind on exactly the roles the controller's bindings named, by name, and
   * those roles are the ones egress-rbac.yaml ships.
   */
  private void boundRolesMayBeBound() throws Exception {
    var bindable = new TreeSet<String>();
    for (var doc : Files.readString(Path.of("manifests", "rbac.yaml")).split("(?m)^---$")) {
      if (Serialization.unmarshal(doc) instanceof ClusterRole role) {
        for (var rule : role.getRules()) {
          if (rule.getVerbs().contains("bind")) {
            assertEquals(List.of("rbac.authorization.k8s.io"), rule.getApiGroups());
            assertEquals(List.of("clusterroles"), rule.getResources());
            assertTrue(
                rule.getResourceNames() != null && !rule.getResourceNames().isEmpty(),
                "bind is limited by resourceNames");
            bindable.addAll(rule.getResourceNames());
          }
        }
      }
    }
    assertEquals(boundRoles, bindable, "bind granted on exactly the roles bound");
    var shipped = new TreeSet<String>();
    for (var doc : Files.readString(Path.of("manifests", "egress-rbac.yaml")).split("(?m)^---$")) {
      if (Serialization.unmarshal(doc) instanceof ClusterRole role) {
        shipped.add(role.getMetadata().getName());
      }
    }
    assertEquals(boundRoles, shipped, "the bound roles are the shipped ones");
  }
}
