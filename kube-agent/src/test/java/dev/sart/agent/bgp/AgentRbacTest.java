package dev.sart.agent.bgp;

import static dev.sart.crds.testing.KubeObjects.annotated;
import static dev.sart.crds.testing.KubeObjects.namespace;
import static dev.sart.crds.testing.KubeObjects.pod;
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
import dev.sart.crds.testing.ControllerObjects;
import dev.sart.crds.testing.RbacAudit;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.Router;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.RouterKind;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import dev.sart.testbed.mockapi.EnableMockApi;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * {@link #NOT_EXERCISED}. As kube-controller's RbacTest does for the controller, with the same
 * RbacAudit. The test's own objects are created or updated: on a loaded machine the client may send
 * a create twice.
 */
@EnableMockApi
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
              ControllerObjects.peer(
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
      NodeBGP nb = ControllerObjects.nodeBgp(NODE, 65001, "192.0.2.1", speaker.endpoint());
      nb.setSpec(
          new NodeBGPSpec(
              65001L,
              "192.0.2.1",
              nb.getSpec().speaker(),
              List.of(
                  new NodeBGPPeer(
                      LISTED,
                      ControllerObjects.peer(NODE, 65003, "192.0.2.6", null, null, null)
                          .getSpec()))));
      client.resource(nb).createOr(NonDeletingOperation::update);
      // a Service announced to the peer: its EndpointSlice gets sart's triggered-by label
      client
          .resource(
              new io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder()
                  .withNewMetadata()
                  .withNamespace("default")
                  .withName("svc0-1")
                  .withLabels(Map.of(Sart.SERVICE_NAME_LABEL, "svc0"))
                  .endMetadata()
                  .withAddressType("IPv4")
                  .build())
          .createOr(NonDeletingOperation::update);
      client
          .resource(
              ControllerObjects.advert(
                  client,
                  "default",
                  "svc0-203.0.113.20",
                  "203.0.113.20/32",
                  Map.of(PEER, AdvertiseStatus.NotAdvertised)))
          .edit(
              a -> {
                a.getMetadata().setLabels(Map.of(Sart.SERVICE_NAME_LABEL, "svc0"));
                return a;
              });
      try (BgpAgent agent = new BgpAgent(agentClient, NODE, Duration.ofSeconds(30)).start()) {
        await("BGPPeer Established")
            .atMost(WAIT)
            .until(() -> status(PEER) == BGPPeerCondition.Status.Established);
        await("sart's triggered-by label")
            .atMost(WAIT)
            .until(
                () ->
                    PEER.equals(
                        client
                            .discovery()
                            .v1()
                            .endpointSlices()
                            .inNamespace("default")
                            .withName("svc0-1")
                            .get()
                            .getMetadata()
                            .getLabels()
                            .get(Sart.ENDPOINTSLICE_TRIGGER_LABEL)));
        bird.awaitEstablished("192.0.2.1");
        await("the listed peer's BGPPeer")
            .atMost(WAIT)
            .until(() -> client.resources(BGPPeer.class).withName(LISTED).get() != null);
        ControllerObjects.advert(
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
            annotated(namespace("apps"), Map.of(Sart.ADDRESS_POOL_ANNOTATION, "default-pod-pool")))
        .createOr(NonDeletingOperation::update);
    client.resource(pod("apps", "p1", null)).createOr(NonDeletingOperation::update);
    PoolSelector pools = new PoolSelector(agentClient);
    String pool = pools.pool(Map.of("K8S_POD_NAMESPACE", "apps", "K8S_POD_NAME", "p1"), null);
    assertEquals("default-pod-pool", pool);
    // a pod whose namespace names no pool: the auto-assign pod pool; a pool asked for by name
    client.resource(namespace("plain")).createOr(NonDeletingOperation::update);
    client.resource(pod("plain", "p2", null)).createOr(NonDeletingOperation::update);
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
    // the pool gets path attributes: the block's advertisement follows
    client
        .resources(AddressPool.class)
        .withName(pool)
        .edit(
            p -> {
              p.setSpec(p.getSpec().withAttrs(List.of("65000:7"), null, 10L));
              return p;
            });
    new BlockSource(agentClient, NODE, Duration.ofSeconds(30)).advertise();
    assertEquals(
        List.of("community=65000:7", "med=10"),
        client
            .resources(BGPAdvertisement.class)
            .inNamespace("kube-system")
            .withName(pool + "-0")
            .get()
            .getSpec()
            .attrs());
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

    var audit = new RbacAudit(Path.of("manifests", "rbac.yaml"));
    for (var request = server.takeRequest(1, TimeUnit.SECONDS);
        request != null;
        request = server.takeRequest(1, TimeUnit.SECONDS)) {
      if (AGENT.equals(request.getHeader("User-Agent"))) {
        audit.record(request.getMethod(), request.getPath());
      }
    }
    assertTrue(audit.seen() > 20, "the agent's requests were recorded: " + audit.seen());
    assertEquals(Set.of(), audit.denied(), "requests the roles do not allow");
    assertEquals(
        Set.of(), audit.unused(NOT_EXERCISED), "granted but not used; used: " + audit.used());
  }
}
