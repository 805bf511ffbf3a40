package dev.sart.controller.egress;

import static dev.sart.controller.MockCluster.peer;
import static dev.sart.controller.egress.EgressBed.NS;
import static dev.sart.controller.egress.EgressBed.WAIT;
import static dev.sart.crds.testing.KubeObjects.labelled;
import static dev.sart.crds.testing.KubeObjects.readyPod;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressPoolSpec;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.Egress;
import dev.sart.crds.EgressPort;
import dev.sart.crds.EgressSourceAddress;
import dev.sart.crds.EgressSpec;
import dev.sart.crds.EgressStatus;
import dev.sart.crds.LockedEdit;
import dev.sart.crds.Sart;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The egress reconciler against fabric8's mock API server in CRUD mode. */
class EgressReconcilerTest {
  private EgressBed bed;
  private KubernetesClient client;

  @BeforeEach
  void setUp() throws Exception {
    bed = new EgressBed();
    client = bed.client;
    peer(client, "node1", "192.0.2.1");
    peer(client, "node1", "192.0.2.65");
    peer(client, "node2", "192.0.2.1");
    client
        .resource(
            new AddressPool("egress-pool", AddressPoolSpec.egress("203.0.113.0/29", List.of(NS))))
        .create();
    bed.start();
  }

  @AfterEach
  void tearDown() {
    bed.close();
  }

  private Egress egress(String namespace, String name, EgressSpec spec) {
    return client.resource(new Egress(namespace, name, spec)).create();
  }

  private Egress get(String namespace, String name) {
    return client.resources(Egress.class).inNamespace(namespace).withName(name).get();
  }

  /**
   * An Egress to 198.51.100.0/24 that claims its source address from egress-pool: {@code address}
   * if not null, else any.
   */
  private void claiming(String namespace, String name, int replicas, String address) {
    egress(
        namespace,
        name,
        new EgressSpec(List.of("198.51.100.0/24"), replicas)
            .withSourceAddress(new EgressSourceAddress("egress-pool", address, null)));
  }

  /** The Egress's status once it has one that {@code until} accepts. */
  private EgressStatus awaitStatus(String namespace, String name, Predicate<EgressStatus> until) {
    await()
        .atMost(WAIT)
        .until(
            () -> {
              var e = get(namespace, name);
              return e.getStatus() != null && until.test(e.getStatus());
            });
    return get(namespace, name).getStatus();
  }

  /** The gateway label of the egress pod {@code pod}: "true" on the one holding the address. */
  private String gatewayLabel(String pod) {
    return client
        .pods()
        .inNamespace(NS)
        .withName(pod)
        .get()
        .getMetadata()
        .getLabels()
        .get(Sart.EGRESS_GATEWAY_LABEL);
  }

  /** An egress pod as the Deployment's ReplicaSet and the kubelet would make it. */
  private Pod pod(String name, String node, String ip, boolean ready) {
    return client
        .resource(
            labelled(readyPod(NS, name, node, ip, ready), Map.of(Sart.EGRESS_NAME_LABEL, "nat")))
        .create();
  }

  private Map<String, AdvertiseStatus> peersOf(String name) {
    var a = client.resources(BGPAdvertisement.class).inNamespace(NS).withName(name).get();
    return a == null || a.getStatus() == null || a.getStatus().peers() == null
        ? null
        : a.getStatus().peers();
  }

  private boolean accessExists(String namespace) {
    return client.serviceAccounts().inNamespace(namespace).withName("sart-egress").get() != null
        && client.rbac().roleBindings().inNamespace(namespace).withName("sart-egress").get() != null
        && client.rbac().clusterRoleBindings().withName("sart-egress-" + namespace).get() != null;
  }

  private boolean accessGone(String namespace) {
    return client.serviceAccounts().inNamespace(namespace).withName("sart-egress").get() == null
        && client.rbac().roleBindings().inNamespace(namespace).withName("sart-egress").get() == null
        && client.rbac().clusterRoleBindings().withName("sart-egress-" + namespace).get() == null;
  }

  private String serviceAccountOf(String namespace, String name) {
    var d = client.apps().deployments().inNamespace(namespace).withName(name).get();
    return d == null ? null : d.getSpec().getTemplate().getSpec().getServiceAccountName();
  }

  @Test
  void theEgressPodsRunAsAServiceAccountBoundToTheEgressRolesUntilTheLastEgressGoes() {
    egress(NS, "nat", new EgressSpec(List.of("0.0.0.0/0"), 1));
    egress(NS, "nat2", new EgressSpec(List.of("192.0.2.0/24"), 1));
    await().atMost(WAIT).until(() -> "sart-egress".equals(serviceAccountOf(NS, "nat")));
    await().atMost(WAIT).until(() -> accessExists(NS));
    var rb = client.rbac().roleBindings().inNamespace(NS).withName("sart-egress").get();
    assertEquals("ClusterRole", rb.getRoleRef().getKind());
    assertEquals("sart-egress", rb.getRoleRef().getName());
    assertEquals("ServiceAccount", rb.getSubjects().getFirst().getKind());
    assertEquals("sart-egress", rb.getSubjects().getFirst().getName());
    assertEquals(NS, rb.getSubjects().getFirst().getNamespace());
    var crb = client.rbac().clusterRoleBindings().withName("sart-egress-" + NS).get();
    assertEquals("sart-egress-pods", crb.getRoleRef().getName());
    assertEquals(NS, crb.getSubjects().getFirst().getNamespace());
    assertEquals("sart-egress", crb.getSubjects().getFirst().getName());

    // one of two Egresses gone: the other's pods still need them
    client.resources(Egress.class).inNamespace(NS).withName("nat").delete();
    await().during(Duration.ofSeconds(2)).atMost(WAIT).until(() -> accessExists(NS));
    // the last one gone: all three removed
    client.resources(Egress.class).inNamespace(NS).withName("nat2").delete();
    await().atMost(WAIT).until(() -> accessGone(NS));
  }

  @Test
  void anEgressWhoseTemplateNamesAServiceAccountKeepsItAndGetsNoBindings() {
    var spec = new EgressSpec(List.of("0.0.0.0/0"), 1);
    var pod = new io.fabric8.kubernetes.api.model.PodSpec();
    pod.setServiceAccountName("my-gateways");
    spec =
        new EgressSpec(
            spec.destinations(),
            1,
            null,
            new dev.sart.crds.EgressPodTemplate(null, pod),
            null,
            null,
            null,
            null,
            null);
    egress("other", "own", spec);
    await().atMost(WAIT).until(() -> "my-gateways".equals(serviceAccountOf("other", "own")));
    await().during(Duration.ofSeconds(2)).atMost(WAIT).until(() -> accessGone("other"));
    // a second Egress there without one: now the namespace gets them
    egress("other", "plain", new EgressSpec(List.of("0.0.0.0/0"), 1));
    await().atMost(WAIT).until(() -> accessExists("other"));
    assertEquals("my-gateways", serviceAccountOf("other", "own"));
    assertEquals("sart-egress", serviceAccountOf("other", "plain"));
  }

  @Test
  void aMissingOrChangedBindingIsMadeAgainAndAServiceAccountTheUserMadeStays() {
    // the user's own ServiceAccount of that name (no label of the controller's)
    client
        .resource(
            new io.fabric8.kubernetes.api.model.ServiceAccountBuilder()
                .withNewMetadata()
                .withNamespace(NS)
                .withName("sart-egress")
                .endMetadata()
                .build())
        .create();
    egress(NS, "nat", new EgressSpec(List.of("0.0.0.0/0"), 1));
    await().atMost(WAIT).until(() -> accessExists(NS));
    // one binding gone, the other pointing elsewhere (roleRef cannot be edited: made anew)
    client.rbac().roleBindings().inNamespace(NS).withName("sart-egress").delete();
    client.rbac().clusterRoleBindings().withName("sart-egress-" + NS).delete();
    client
        .resource(
            new io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName("sart-egress-" + NS)
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "view")
                .addNewSubject(null, "ServiceAccount", "sart-egress", NS)
                .build())
        .createOr(io.fabric8.kubernetes.client.dsl.NonDeletingOperation::update);
    // the next look at the namespace (an Egress changed) repairs both
    LockedEdit.edit(
        client,
        client.resources(Egress.class).inNamespace(NS).withName("nat"),
        e -> {
          e.setSpec(new EgressSpec(List.of("192.0.2.0/24"), 1));
          return e;
        });
    await()
        .atMost(WAIT)
        .until(
            () -> {
              var crb = client.rbac().clusterRoleBindings().withName("sart-egress-" + NS).get();
              return accessExists(NS) && "sart-egress-pods".equals(crb.getRoleRef().getName());
            });
    client.resources(Egress.class).inNamespace(NS).withName("nat").delete();
    // the bindings go (the ClusterRoleBinding last); the ServiceAccount it did not make stays
    await()
        .atMost(WAIT)
        .until(
            () ->
                client.rbac().roleBindings().inNamespace(NS).withName("sart-egress").get() == null
                    && client.rbac().clusterRoleBindings().withName("sart-egress-" + NS).get()
                        == null);
    assertNotNull(client.serviceAccounts().inNamespace(NS).withName("sart-egress").get());
  }

  @Test
  void aRestartedControllerRemovesWhatANamespaceWithoutEgressesStillHas() throws Exception {
    egress(NS, "nat", new EgressSpec(List.of("0.0.0.0/0"), 1));
    await().atMost(WAIT).until(() -> accessExists(NS));
    bed.stop();
    client.resources(Egress.class).inNamespace(NS).withName("nat").delete();
    await()
        .atMost(WAIT)
        .until(() -> client.resources(Egress.class).inNamespace(NS).withName("nat").get() == null);
    assertTrue(accessExists(NS), "nothing removed them while no controller ran");
    bed.start();
    await().atMost(WAIT).until(() -> accessGone(NS));
  }

  @Test
  void anEgressRunsAsADeploymentAndAServiceItOwns() {
    var e = egress(NS, "nat", new EgressSpec(List.of("0.0.0.0/0", "::/0"), 2));
    Deployment d = bed.deployment("nat");
    assertEquals(2, d.getSpec().getReplicas());
    assertEquals("Egress", d.getMetadata().getOwnerReferences().getFirst().getKind());
    assertEquals(
        e.getMetadata().getUid(), d.getMetadata().getOwnerReferences().getFirst().getUid());
    assertEquals(Map.of(Sart.EGRESS_NAME_LABEL, "nat"), d.getSpec().getSelector().getMatchLabels());
    var c = d.getSpec().getTemplate().getSpec().getContainers().getFirst();
    assertEquals("egress", c.getName());
    assertEquals("registry.example/sart:1", c.getImage());
    assertEquals(List.of("sartd"), c.getCommand());
    assertEquals(
        List.of("egress", "--egress", "nat", "--tunnel", "auto", "--port", "4789"), c.getArgs());
    assertEquals(List.of("NET_ADMIN"), c.getSecurityContext().getCapabilities().getAdd());

    Service s = bed.service("nat");
    assertEquals("ClusterIP", s.getSpec().getType());
    assertEquals("ClientIP", s.getSpec().getSessionAffinity());
    assertEquals("UDP", s.getSpec().getPorts().getFirst().getProtocol());
    assertEquals(4789, s.getSpec().getPorts().getFirst().getPort());
    assertEquals(Map.of(Sart.EGRESS_NAME_LABEL, "nat"), s.getSpec().getSelector());
    assertEquals("Egress", s.getMetadata().getOwnerReferences().getFirst().getKind());
    var status =
        awaitStatus(NS, "nat", x -> (Sart.EGRESS_NAME_LABEL + "=nat").equals(x.selector()));
    assertNull(status.sourceAddress());

    // a spec change reaches the Deployment (scale subresource / kubectl edit)
    LockedEdit.edit(
        client,
        client.resources(Egress.class).inNamespace(NS).withName("nat"),
        x -> {
          x.setSpec(new EgressSpec(List.of("0.0.0.0/0"), 3));
          return x;
        });
    await()
        .atMost(WAIT)
        .until(
            () ->
                client
                        .apps()
                        .deployments()
                        .inNamespace(NS)
                        .withName("nat")
                        .get()
                        .getSpec()
                        .getReplicas()
                    == 3);
  }

  @Test
  void theStaticAddressIsHeldByOneGatewayAndAnnouncedByItsNode() {
    pod("nat-a", "node1", "203.0.113.130", true);
    pod("nat-b", "node2", "203.0.113.140", true);
    claiming(NS, "nat", 2, null);
    var status = awaitStatus(NS, "nat", x -> x.gateway() != null);
    // 203.0.113.0 is the /29's network address
    assertEquals("203.0.113.1", status.sourceAddress());
    assertEquals("nat-a", status.gateway(), "the oldest Ready pod (same age: by name)");
    assertEquals("node1", status.gatewayNode());
    assertEquals("true", gatewayLabel("nat-a"));
    assertNull(gatewayLabel("nat-b"));
    assertEquals(
        "true",
        client
            .services()
            .inNamespace(NS)
            .withName("nat")
            .get()
            .getSpec()
            .getSelector()
            .get(Sart.EGRESS_GATEWAY_LABEL),
        "the Service sends the tunnels to the holder only");

    var advert = EgressReconciler.advertName("nat", dev.sart.net.Ip.parse("203.0.113.1"));
    assertEquals("egress-nat-203-0-113-1", advert);
    await()
        .atMost(WAIT)
        .until(
            () ->
                Map.of(
                        "node1-65000-192.0.2.1", AdvertiseStatus.NotAdvertised,
                        "node1-65000-192.0.2.65", AdvertiseStatus.NotAdvertised)
                    .equals(peersOf(advert)));
    var a = client.resources(BGPAdvertisement.class).inNamespace(NS).withName(advert).get();
    assertEquals("203.0.113.1/32", a.getSpec().cidr());
    assertEquals(dev.sart.crds.AddressType.EGRESS, a.getSpec().type());
    assertEquals("Egress", a.getMetadata().getOwnerReferences().getFirst().getKind());

    // the agents announce it
    setPeers(advert, AdvertiseStatus.Advertised);

    // the gateway's pod goes: the address moves to nat-b on node2, node1 withdraws
    client.pods().inNamespace(NS).withName("nat-a").delete();
    await().atMost(WAIT).until(() -> "nat-b".equals(get(NS, "nat").getStatus().gateway()));
    assertEquals("node2", get(NS, "nat").getStatus().gatewayNode());
    assertEquals("203.0.113.1", get(NS, "nat").getStatus().sourceAddress(), "the address stays");
    await()
        .atMost(WAIT)
        .until(
            () ->
                Map.of(
                        "node1-65000-192.0.2.1", AdvertiseStatus.Withdraw,
                        "node1-65000-192.0.2.65", AdvertiseStatus.Withdraw,
                        "node2-65000-192.0.2.1", AdvertiseStatus.NotAdvertised)
                    .equals(peersOf(advert)));
    assertEquals("true", gatewayLabel("nat-b"));
  }

  @Test
  void aGatewayThatIsNotReadyGivesTheAddressToAnother() {
    pod("nat-a", "node1", "203.0.113.130", true);
    claiming(NS, "nat", 2, null);
    awaitStatus(NS, "nat", x -> "nat-a".equals(x.gateway()));
    pod("nat-b", "node2", "203.0.113.140", true);
    // nat-a's readiness probe fails
    LockedEdit.edit(
        client,
        client.pods().inNamespace(NS).withName("nat-a"),
        p -> {
          p.getStatus().getConditions().getFirst().setStatus("False");
          return p;
        });
    await().atMost(WAIT).until(() -> "nat-b".equals(get(NS, "nat").getStatus().gateway()));
    await().atMost(WAIT).until(() -> gatewayLabel("nat-a") == null);
  }

  /** The Events of {@link EgressBed#NS} with this reason. */
  private long events(String reason) {
    return client.v1().events().inNamespace(NS).list().getItems().stream()
        .filter(ev -> reason.equals(ev.getReason()))
        .count();
  }

  @Test
  void eachGatewayChangeIsReportedOnce() {
    pod("nat-a", "node1", "203.0.113.130", true);
    claiming(NS, "nat", 2, null);
    awaitStatus(NS, "nat", x -> "nat-a".equals(x.gateway()));
    await().atMost(WAIT).until(() -> events("GatewayChanged") == 1);
    // the label put on nat-a comes back as a pod event before the status write is in the cache:
    // that reconcile must not take the status for unwritten and write and report it again
    await().during(Duration.ofSeconds(2)).atMost(WAIT).until(() -> events("GatewayChanged") == 1);
    pod("nat-b", "node2", "203.0.113.140", true);
    client.pods().inNamespace(NS).withName("nat-a").delete();
    awaitStatus(NS, "nat", x -> "nat-b".equals(x.gateway()));
    await().during(Duration.ofSeconds(2)).atMost(WAIT).until(() -> events("GatewayChanged") == 2);
    assertEquals(1, events("IPAllocated"), "the address was allocated once");
  }

  @Test
  void onlyANamespaceThePoolListsMayClaimFromIt() {
    claiming("team-b", "nat", 1, null);
    var status = awaitStatus("team-b", "nat", x -> x.message() != null);
    assertNull(status.sourceAddress());
    assertEquals(
        "AddressPool egress-pool does not list namespace team-b in allowedNamespaces",
        status.message());
    await()
        .atMost(WAIT)
        .until(
            () ->
                client.v1().events().inNamespace("team-b").list().getItems().stream()
                    .anyMatch(ev -> "NoSourceAddress".equals(ev.getReason())));
    assertTrue(
        client.resources(BGPAdvertisement.class).inNamespace("team-b").list().getItems().isEmpty());
  }

  /** A ClusterIP Service of {@link EgressBed#NS} with these ClusterIPs. */
  private void service(String name, String... clusterIps) {
    client
        .resource(
            new io.fabric8.kubernetes.api.model.ServiceBuilder()
                .withNewMetadata()
                .withNamespace(NS)
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withClusterIP(clusterIps[0])
                .withClusterIPs(clusterIps)
                .addNewPort()
                .withPort(80)
                .endPort()
                .endSpec()
                .build())
        .createOr(e -> e.update());
  }

  @Test
  void aReversePathToAServiceOfTheOtherFamilyIsRefusedNamingTheField() {
    pod("nat-a", "node1", "203.0.113.130", true);
    service("web4", "192.0.2.10");
    service("web6", "2001:db8::10");
    egress(
        NS,
        "nat",
        new EgressSpec(List.of("198.51.100.0/24"), 1)
            .withSourceAddress(
                new EgressSourceAddress(
                    "egress-pool",
                    null,
                    List.of(
                        new EgressPort("TCP", 80, "web4", null),
                        new EgressPort("TCP", 443, "web6", 80)))));
    var status = awaitStatus(NS, "nat", x -> x.message() != null);
    // the address is claimed and held all the same; only the mapping to web6 is not applied
    assertEquals("203.0.113.1", status.sourceAddress());
    assertEquals("nat-a", status.gateway());
    assertEquals(
        "spec.sourceAddress.ports[1]: Service web6 has no IPv4 ClusterIP (it has IPv6) and the"
            + " static address 203.0.113.1 is IPv4: a mapping to the other family (NAT46/64) is"
            + " not supported, so it is not applied",
        status.message());
    await()
        .atMost(WAIT)
        .until(
            () ->
                client.v1().events().inNamespace(NS).list().getItems().stream()
                    .anyMatch(ev -> "ReversePathRefused".equals(ev.getReason())));
    // web6 made dual-stack: the mapping can be applied, the message goes
    service("web6", "2001:db8::10", "192.0.2.11");
    awaitStatus(NS, "nat", x -> x.message() == null && x.sourceAddress() != null);
  }

  @Test
  void twoEgressesNeverShareAnAddressAndARequestedAddressIsHonoured() {
    pod("nat-a", "node1", "203.0.113.130", true);
    claiming(NS, "nat", 1, "203.0.113.5");
    awaitStatus(NS, "nat", x -> "203.0.113.5".equals(x.sourceAddress()));
    claiming(NS, "other", 1, "203.0.113.5");
    var other = awaitStatus(NS, "other", x -> x.message() != null);
    assertEquals("address 203.0.113.5 is held by another Egress", other.message());
    assertNull(other.sourceAddress());
    claiming(NS, "third", 1, null);
    var third = awaitStatus(NS, "third", x -> x.sourceAddress() != null);
    assertEquals("203.0.113.1", third.sourceAddress());
  }

  @Test
  void aDeletedEgressWithdrawsItsAddressBeforeTheAdvertisementGoes() {
    pod("nat-a", "node1", "203.0.113.130", true);
    claiming(NS, "nat", 1, null);
    var advert = "egress-nat-203-0-113-1";
    await().atMost(WAIT).until(() -> peersOf(advert) != null && !peersOf(advert).isEmpty());
    setPeers(advert, AdvertiseStatus.Advertised);
    // the API server's garbage collector deletes the dependents of a deleted owner (the mock runs
    // none): the advertisement is deleted with the Egress
    client.resources(Egress.class).inNamespace(NS).withName("nat").delete();
    client.resources(BGPAdvertisement.class).inNamespace(NS).withName(advert).delete();
    await()
        .atMost(WAIT)
        .until(
            () ->
                peersOf(advert) != null
                    && peersOf(advert).values().stream()
                        .allMatch(s -> s == AdvertiseStatus.Withdraw));
    assertNotNull(
        client.resources(BGPAdvertisement.class).inNamespace(NS).withName(advert).get(),
        "kept until the agents withdrew it");
    // the agents withdraw and remove their entries
    client
        .resources(BGPAdvertisement.class)
        .inNamespace(NS)
        .withName(advert)
        .editStatus(
            a -> {
              a.setStatus(new dev.sart.crds.BGPAdvertisementStatus(Map.of()));
              return a;
            });
    await()
        .atMost(WAIT)
        .until(
            () ->
                client.resources(BGPAdvertisement.class).inNamespace(NS).withName(advert).get()
                    == null);
  }

  /** What the agents write once their speakers announce (or withdrew) the prefix. */
  private void setPeers(String advert, AdvertiseStatus state) {
    client
        .resources(BGPAdvertisement.class)
        .inNamespace(NS)
        .withName(advert)
        .editStatus(
            a -> {
              var peers = new HashMap<>(a.getStatus().peers());
              peers.replaceAll((k, v) -> v == AdvertiseStatus.NotAdvertised ? state : v);
              a.setStatus(new dev.sart.crds.BGPAdvertisementStatus(peers));
              return a;
            });
  }
}
