package dev.sart.agent.bgp;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.agent.ipam.Attachment;
import dev.sart.agent.kube.BlockSource;
import dev.sart.agent.kube.KubeIpam;
import dev.sart.agent.kube.PoolSelector;
import dev.sart.crds.AddressBlock;
import dev.sart.crds.AddressBlockSpec;
import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressPoolSpec;
import dev.sart.crds.AddressType;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.BGPPeerCondition;
import dev.sart.crds.BlockRequest;
import dev.sart.crds.NodeBGP;
import dev.sart.crds.NodeBGPPeer;
import dev.sart.crds.NodeBGPSpec;
import dev.sart.crds.Sart;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.Router;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.RouterKind;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * kube-agent/manifests/rbac.yaml (the ServiceAccount of {@code sartd node}) grants exactly what the
 * agent does: the agent's Kubernetes side (BgpAgent with a real speaker peering with BIRD, and the
 * pod IPAM: BlockSource, PoolSelector) runs through its work against the mock API server while the
 * test plays the controller and a user; every request the agent's client sends (told apart by its
 * User-Agent) is turned into the RBAC attributes an API server checks, each must be allowed by the
 * ClusterRole or the Role in its namespace, and each granted verb must have been used, apart from
 * {@link #NOT_EXERCISED}. As kube-controller's RbacTest does for the controller. The test's own
 * objects are created or updated: on a loaded machine the client may send a create twice.
 */
@EnableKubernetesMockClient(crud = true)
class AgentRbacTest {
  static KubernetesClient client;
  static KubernetesMockServer server;

  private static final String AGENT = "sartd-node-rbac-test";
  private static final String NODE = "node1";
  private static final String PEER = NODE + "-65002-192.0.2.2";
  private static final String LISTED = NODE + "-65003-192.0.2.6";
  private static final Duration WAIT = Duration.ofSeconds(60);

  /** Granted but not sent in this run, with the reason. */
  private static final Set<String> NOT_EXERCISED = Set.of();

  @RegisterExtension final Testbed testbed = new Testbed();

  /** One request as RBAC sees it. */
  record Access(String verb, String group, String resource, String namespace) {
    String grant() {
      return verb + " " + group + "/" + resource;
    }
  }

  /** As RbacTest: {@code /api/v1/namespaces/ns/pods/p} → (get, "", pods, ns). */
  static Access access(String method, String pathAndQuery) {
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

  private static boolean allows(List<PolicyRule> rules, Access a) {
    return rules.stream()
        .anyMatch(
            r ->
                r.getApiGroups().contains(a.group())
                    && r.getResources().contains(a.resource())
                    && r.getVerbs().contains(a.verb()));
  }

  private static List<HasMetadata> rbac() throws Exception {
    List<HasMetadata> result = new ArrayList<>();
    for (String doc : Files.readString(Path.of("manifests", "rbac.yaml")).split("(?m)^---$")) {
      if (!doc.lines().allMatch(l -> l.isBlank() || l.startsWith("#"))) {
        result.add(Serialization.unmarshal(doc));
      }
    }
    return result;
  }

  private static BGPPeerCondition.Status status(String peer) {
    BGPPeer p = client.resources(BGPPeer.class).withName(peer).get();
    BGPPeerCondition c = p == null ? null : PeerReconciler.last(p.getStatus());
    return c == null ? null : c.status();
  }

  private static Map<String, AdvertiseStatus> advertStatus(String ns, String name) {
    BGPAdvertisement a =
        client.resources(BGPAdvertisement.class).inNamespace(ns).withName(name).get();
    return a == null || a.getStatus() == null || a.getStatus().peers() == null
        ? Map.of()
        : a.getStatus().peers();
  }

  /** The node's BGP: a NodeBGP listing two peers, one with an MD5 password from a Secret. */
  private void bgp(KubernetesClient agentClient) throws Exception {
    Topology t = testbed.topology();
    Node s = t.node("sart");
    Node p = t.node("peer");
    t.link(s, p).addresses("192.0.2.1/30", "192.0.2.2/30");
    Router bird =
        RouterKind.BIRD
            .create(
                p,
                RouterConfig.of(65002, "192.0.2.2")
                    .neighbor(Neighbor.of("192.0.2.1", 65001).withPassword("s3cret")))
            .start();
    try (RealSpeaker speaker = new RealSpeaker(s).start()) {
      client
          .secrets()
          .inNamespace("kube-system")
          .resource(
              new SecretBuilder()
                  .withNewMetadata()
                  .withName("peer-md5")
                  .endMetadata()
                  .addToStringData("password", "s3cret")
                  .build())
          .createOr(NonDeletingOperation::update);
      client
          .resource(
              Crs.peer(
                  NODE,
                  65002,
                  "192.0.2.2",
                  null,
                  null,
                  Map.of(
                      PeerOptions.CONNECT_RETRY_TIME,
                      "1",
                      PeerOptions.PASSWORD_SECRET,
                      "kube-system/peer-md5")))
          .createOr(NonDeletingOperation::update);
      NodeBGP nb = Crs.nodeBgp(NODE, 65001, "192.0.2.1", speaker.endpoint());
      nb.setSpec(
          new NodeBGPSpec(
              65001L,
              "192.0.2.1",
              nb.getSpec().speaker(),
              List.of(
                  new NodeBGPPeer(
                      LISTED, Crs.peer(NODE, 65003, "192.0.2.6", null, null, null).getSpec()))));
      client.resource(nb).createOr(NonDeletingOperation::update);
      try (BgpAgent agent = new BgpAgent(agentClient, NODE, Duration.ofSeconds(30)).start()) {
        await("BGPPeer Established")
            .atMost(WAIT)
            .until(() -> status(PEER) == BGPPeerCondition.Status.Established);
        bird.awaitEstablished("192.0.2.1");
        await("the listed peer's BGPPeer")
            .atMost(WAIT)
            .until(() -> client.resources(BGPPeer.class).withName(LISTED).get() != null);
        Crs.advert(
            client,
            "default",
            "svc-203.0.113.10",
            "203.0.113.10/32",
            Map.of(PEER, AdvertiseStatus.NotAdvertised));
        await()
            .atMost(WAIT)
            .until(
                () ->
                    advertStatus("default", "svc-203.0.113.10").get(PEER)
                        == AdvertiseStatus.Advertised);
        client
            .resources(BGPAdvertisement.class)
            .inNamespace("default")
            .withName("svc-203.0.113.10")
            .editStatus(
                a -> {
                  a.getStatus().peers().put(PEER, AdvertiseStatus.Withdraw);
                  return a;
                });
        await()
            .atMost(WAIT)
            .until(() -> !advertStatus("default", "svc-203.0.113.10").containsKey(PEER));
        // the NodeBGP goes, then its BGPPeers (the controller deletes both): the agent takes the
        // neighbours out of the speaker, clears it, and lets the objects go
        client.resources(NodeBGP.class).withName(NODE).delete();
        client.resources(BGPPeer.class).withName(PEER).delete();
        client.resources(BGPPeer.class).withName(LISTED).delete();
        await()
            .atMost(WAIT)
            .until(() -> client.resources(NodeBGP.class).withName(NODE).get() == null);
      }
    }
  }

  /** Pod IPAM: a pod's pool from its namespace, a block asked for, used, released. */
  /** The egress client side: its informers of pods, Egresses and egress Services. */
  private void egress(KubernetesClient agentClient) throws Exception {
    var node = testbed.topology().node("egress");
    try (var ns = dev.sart.fib.netlink.Netns.named(node.netns());
        var nl = dev.sart.fib.netlink.Netlink.open(ns);
        var agent =
            new dev.sart.agent.egress.ClientAgent(
                agentClient, NODE, a -> java.util.Optional.empty(), nl, 120, "eth0")) {
      // start() returns once each informer listed; its watch follows
      agent.start();
      await("egress informers").atMost(WAIT).until(() -> agent.watching());
    }
  }

  private void ipam(KubernetesClient agentClient) throws Exception {
    client
        .resource(
            new AddressPool(
                "default-pod-pool", new AddressPoolSpec("10.1.0.0/24", AddressType.POD, 29, true)))
        .createOr(NonDeletingOperation::update);
    client
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName("apps")
                .addToAnnotations(Sart.ADDRESS_POOL_ANNOTATION, "default-pod-pool")
                .endMetadata()
                .build())
        .createOr(NonDeletingOperation::update);
    client
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withNamespace("apps")
                .withName("p1")
                .endMetadata()
                .build())
        .createOr(NonDeletingOperation::update);
    PoolSelector pools = new PoolSelector(agentClient);
    String pool = pools.pool(Map.of("K8S_POD_NAMESPACE", "apps", "K8S_POD_NAME", "p1"), null);
    assertEquals("default-pod-pool", pool);
    // a pod whose namespace names no pool: the auto-assign pod pool; a pool asked for by name
    client
        .resource(new NamespaceBuilder().withNewMetadata().withName("plain").endMetadata().build())
        .createOr(NonDeletingOperation::update);
    client
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withNamespace("plain")
                .withName("p2")
                .endMetadata()
                .build())
        .createOr(NonDeletingOperation::update);
    assertEquals(
        "default-pod-pool",
        pools.pool(Map.of("K8S_POD_NAMESPACE", "plain", "K8S_POD_NAME", "p2"), null));
    assertTrue(pools.isPodPool("default-pod-pool"));
    KubeIpam ipam = new KubeIpam(new BlockSource(agentClient, NODE, Duration.ofSeconds(30)), pools);
    CompletableFuture<Void> add =
        CompletableFuture.runAsync(
            () -> {
              try {
                ipam.allocate(pool, new Attachment("c1", "eth0"));
              } catch (Exception e) {
                throw new RuntimeException(e);
              }
            });
    // the controller answers the node's BlockRequest with a block
    await("BlockRequest")
        .atMost(WAIT)
        .until(
            () -> client.resources(BlockRequest.class).withName(pool + "-" + NODE).get() != null);
    AddressBlock b =
        new AddressBlock(
            pool + "-0", new AddressBlockSpec("10.1.0.0/29", AddressType.POD, pool, NODE, null));
    b.getMetadata()
        .setLabels(Map.of(Sart.ADDRESS_BLOCK_NODE_LABEL, NODE, Sart.ADDRESS_POOL_LABEL, pool));
    client.resource(b).createOr(NonDeletingOperation::update);
    add.get(60, TimeUnit.SECONDS);
    ipam.release(new Attachment("c1", "eth0"));
    await()
        .atMost(WAIT)
        .until(() -> client.resources(AddressBlock.class).withName(pool + "-0").get() == null);
  }

  @Test
  void theRolesAllowEveryRequestOfTheAgentAndNothingItDoesNotUse() throws Exception {
    try (KubernetesClient agentClient =
        new KubernetesClientBuilder()
            .withConfig(new ConfigBuilder(client.getConfiguration()).withUserAgent(AGENT).build())
            .build()) {
      bgp(agentClient);
      ipam(agentClient);
      egress(agentClient);
    }

    List<HasMetadata> objects = rbac();
    List<PolicyRule> clusterRules =
        objects.stream()
            .filter(ClusterRole.class::isInstance)
            .map(ClusterRole.class::cast)
            .flatMap(r -> r.getRules().stream())
            .toList();
    List<Role> roles =
        objects.stream().filter(Role.class::isInstance).map(Role.class::cast).toList();
    Set<String> used = new TreeSet<>();
    Set<String> denied = new TreeSet<>();
    int seen = 0;
    for (var request = server.takeRequest(1, TimeUnit.SECONDS);
        request != null;
        request = server.takeRequest(1, TimeUnit.SECONDS)) {
      if (!AGENT.equals(request.getHeader("User-Agent"))) {
        continue;
      }
      seen++;
      Access a = access(request.getMethod(), request.getPath());
      used.add(a.grant());
      boolean allowed =
          allows(clusterRules, a)
              || roles.stream()
                  .anyMatch(
                      r ->
                          r.getMetadata().getNamespace().equals(a.namespace())
                              && allows(r.getRules(), a));
      if (!allowed) {
        denied.add(a.grant() + (a.namespace() == null ? "" : " in " + a.namespace()));
      }
    }
    assertTrue(seen > 20, "the agent's requests were recorded: " + seen);
    assertEquals(Set.of(), denied, "requests the roles do not allow");

    Set<String> granted = new TreeSet<>();
    List<PolicyRule> all = new ArrayList<>(clusterRules);
    roles.forEach(r -> all.addAll(r.getRules()));
    for (PolicyRule rule : all) {
      for (String group : rule.getApiGroups()) {
        for (String resource : rule.getResources()) {
          rule.getVerbs().forEach(v -> granted.add(v + " " + group + "/" + resource));
        }
      }
    }
    granted.removeAll(used);
    granted.removeAll(NOT_EXERCISED);
    assertEquals(Set.of(), granted, "granted but not used; used: " + used);
  }
}
