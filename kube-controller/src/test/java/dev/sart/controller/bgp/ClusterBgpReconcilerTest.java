package dev.sart.controller.bgp;

import static dev.sart.controller.MockCluster.node;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.sart.crds.AsnSelector;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.BGPPeerTemplate;
import dev.sart.crds.BGPPeerTemplateSpec;
import dev.sart.crds.ClusterBGP;
import dev.sart.crds.ClusterBGPSpec;
import dev.sart.crds.NodeBGP;
import dev.sart.crds.PeerConfig;
import dev.sart.crds.RouterIdSelector;
import dev.sart.crds.Sart;
import dev.sart.crds.SpeakerConfig;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * sart's controller_cluster_bgp_test and node_watcher_test re-expressed, and the e2e "bgp=a / bgp=b
 * / bgp change / bgp2=c" steps on four nodes (three workers bgp=a, the control plane bgp=b).
 */
class ClusterBgpReconcilerTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final SpeakerConfig SPEAKER = new SpeakerConfig("127.0.0.1:5000", null, true);

  private ClusterBgpOnMock mock;
  private KubernetesClient client;

  @BeforeEach
  void setUp() throws Exception {
    mock =
        new ClusterBgpOnMock(
            c -> {
              var asn = Sart.ASN_NODE_LABEL;
              node(c, "sart-control-plane", "169.254.1.2", Map.of("bgp", "b", asn, "65000"));
              node(c, "sart-worker", "169.254.2.2", Map.of("bgp", "a", asn, "65000"));
              node(c, "sart-worker2", "169.254.3.2", Map.of("bgp", "a", asn, "65000"));
              node(c, "sart-worker3", "169.254.4.2", Map.of("bgp", "a", asn, "65000"));
              c.resource(
                      new BGPPeerTemplate(
                          "bgppeertemplate-sample",
                          new BGPPeerTemplateSpec(
                              65000L, "9.9.9.9", null, null, null, List.of("to-router0"))))
                  .create();
            });
    client = mock.client;
  }

  @AfterEach
  void tearDown() {
    mock.close();
  }

  private void label(String node, String key, String value) {
    client
        .nodes()
        .withName(node)
        .edit(
            n -> {
              var labels = new HashMap<>(n.getMetadata().getLabels());
              if (value == null) {
                labels.remove(key);
              } else {
                labels.put(key, value);
              }
              n.getMetadata().setLabels(labels);
              return n;
            });
  }

  private ClusterBGP clusterA() {
    return new ClusterBGP(
        "clusterbgp-sample-a",
        new ClusterBGPSpec(
            Map.of("bgp", "a"),
            new AsnSelector(AsnSelector.From.LABEL, null),
            new RouterIdSelector(RouterIdSelector.From.INTERNAL_ADDRESS, null),
            SPEAKER,
            List.of(new PeerConfig("bgppeertemplate-sample", null, Map.of("bgp", "a")))));
  }

  private TreeSet<String> peers() {
    var names = new TreeSet<String>();
    client
        .resources(BGPPeer.class)
        .list()
        .getItems()
        .forEach(p -> names.add(p.getMetadata().getName()));
    return names;
  }

  private List<String> status(String cluster, boolean desired) {
    var c = client.resources(ClusterBGP.class).withName(cluster).get();
    if (c.getStatus() == null) {
      return null;
    }
    return desired ? c.getStatus().desiredNodes() : c.getStatus().nodes();
  }

  @Test
  void clusterBgpMakesANodeBgpAndPeersPerSelectedNode() {
    client.resource(clusterA()).create();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertEquals(
                    new TreeSet<>(
                        List.of(
                            "bgppeertemplate-sample-sart-worker-65000-9.9.9.9",
                            "bgppeertemplate-sample-sart-worker2-65000-9.9.9.9",
                            "bgppeertemplate-sample-sart-worker3-65000-9.9.9.9")),
                    peers()));
    var nodeBgp = client.resources(NodeBGP.class).withName("sart-worker2").get();
    assertEquals(65000L, nodeBgp.getSpec().asn());
    assertEquals("169.254.3.2", nodeBgp.getSpec().routerId());
    assertEquals(SPEAKER, nodeBgp.getSpec().speaker());
    assertEquals("a", nodeBgp.getMetadata().getLabels().get("bgp"));
    assertEquals("Node", nodeBgp.getMetadata().getOwnerReferences().getFirst().getKind());
    assertEquals(
        List.of("bgppeertemplate-sample-sart-worker2-65000-9.9.9.9"),
        nodeBgp.getSpec().peers().stream().map(p -> p.name()).toList());
    var peer =
        client
            .resources(BGPPeer.class)
            .withName("bgppeertemplate-sample-sart-worker2-65000-9.9.9.9")
            .get();
    assertEquals("sart-worker2", peer.getSpec().nodeBGPRef());
    assertEquals("clusterbgp-sample-a", peer.getSpec().clusterBGPRef());
    assertEquals(List.of("to-router0"), peer.getSpec().groups());
    assertEquals("sart-worker2", peer.getMetadata().getLabels().get(Sart.BGP_PEER_NODE_LABEL));
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertEquals(
                    List.of("sart-worker", "sart-worker2", "sart-worker3"),
                    status("clusterbgp-sample-a", false)));
    assertEquals(
        List.of("sart-worker", "sart-worker2", "sart-worker3"),
        status("clusterbgp-sample-a", true));
    assertNull(client.resources(NodeBGP.class).withName("sart-control-plane").get());
  }

  @Test
  void asnAndRouterIdFromTheSpec() {
    client
        .resource(
            new ClusterBGP(
                "fixed",
                new ClusterBGPSpec(
                    Map.of("bgp", "b"),
                    new AsnSelector(AsnSelector.From.ASN, 65010L),
                    new RouterIdSelector(RouterIdSelector.From.ROUTER_ID, "10.0.0.1"),
                    SPEAKER,
                    null)))
        .create();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(() -> client.resources(NodeBGP.class).withName("sart-control-plane").get() != null);
    var nodeBgp = client.resources(NodeBGP.class).withName("sart-control-plane").get();
    assertEquals(65010L, nodeBgp.getSpec().asn());
    assertEquals("10.0.0.1", nodeBgp.getSpec().routerId());
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertEquals(
                    List.of("fixed"),
                    client
                        .resources(NodeBGP.class)
                        .withName("sart-control-plane")
                        .get()
                        .getStatus()
                        .clusterBgpRefs()));
  }

  @Test
  void labelChangesMoveNodesInAndOut() {
    client.resource(clusterA()).create();
    client
        .resource(
            new ClusterBGP(
                "clusterbgp-sample-b",
                new ClusterBGPSpec(
                    Map.of("bgp", "b"),
                    new AsnSelector(AsnSelector.From.LABEL, null),
                    new RouterIdSelector(RouterIdSelector.From.INTERNAL_ADDRESS, null),
                    SPEAKER,
                    null)))
        .create();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertEquals(List.of("sart-control-plane"), status("clusterbgp-sample-b", false)));

    // relabel the control plane bgp=a: it moves from b to a and gets the template peer
    label("sart-control-plane", "bgp", "a");
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertEquals(
                    List.of("sart-control-plane", "sart-worker", "sart-worker2", "sart-worker3"),
                    status("clusterbgp-sample-a", false)));
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(() -> assertEquals(List.of(), status("clusterbgp-sample-b", false)));
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertEquals(
                    "a",
                    client
                        .resources(NodeBGP.class)
                        .withName("sart-control-plane")
                        .get()
                        .getMetadata()
                        .getLabels()
                        .get("bgp")));
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(() -> peers().contains("bgppeertemplate-sample-sart-control-plane-65000-9.9.9.9"));

    // a selector matches only when all its labels match (sart matched any one)
    client
        .resource(
            new ClusterBGP(
                "clusterbgp-sample-c",
                new ClusterBGPSpec(
                    Map.of("bgp", "a", "bgp2", "c"),
                    new AsnSelector(AsnSelector.From.LABEL, null),
                    new RouterIdSelector(RouterIdSelector.From.INTERNAL_ADDRESS, null),
                    SPEAKER,
                    List.of(
                        new PeerConfig(
                            null,
                            new BGPPeerTemplateSpec(
                                65000L, "7.7.7.7", null, null, null, List.of("to-router1")),
                            Map.of("bgp2", "c"))))))
        .create();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(() -> assertEquals(List.of(), status("clusterbgp-sample-c", true)));
    label("sart-worker", "bgp2", "c");
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(
            () -> assertEquals(List.of("sart-worker"), status("clusterbgp-sample-c", true)));
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(() -> peers().contains("sart-worker-65000-7.7.7.7"));
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertEquals(
                    2,
                    client
                        .resources(NodeBGP.class)
                        .withName("sart-worker")
                        .get()
                        .getSpec()
                        .peers()
                        .size()));

    // the node leaves: its generated peers go
    label("sart-worker", "bgp2", null);
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(() -> !peers().contains("sart-worker-65000-7.7.7.7"));
    label("sart-worker", "bgp", "x");
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(() -> client.resources(NodeBGP.class).withName("sart-worker").get() == null);
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(() -> !peers().contains("bgppeertemplate-sample-sart-worker-65000-9.9.9.9"));
  }

  @Test
  void handMadePeersStayAndAreListedOnTheNodeBgp() {
    client.resource(clusterA()).create();
    var manual =
        new BGPPeer(
            "bgppeer-sample-sart-cp",
            new dev.sart.crds.BGPPeerSpec(
                65000L, "9.9.9.9", null, null, null, "sart-worker", null, SPEAKER, null));
    client.resource(manual).create();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertEquals(
                    List.of(
                        "bgppeertemplate-sample-sart-worker-65000-9.9.9.9",
                        "bgppeer-sample-sart-cp"),
                    client
                        .resources(NodeBGP.class)
                        .withName("sart-worker")
                        .get()
                        .getSpec()
                        .peers()
                        .stream()
                        .map(p -> p.name())
                        .toList()));
    client.resources(ClusterBGP.class).withName("clusterbgp-sample-a").delete();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(() -> client.resources(NodeBGP.class).withName("sart-worker").get() == null);
    assertEquals(new TreeSet<>(List.of("bgppeer-sample-sart-cp")), peers());
  }

  @Test
  void aDeletedNodeLosesItsNodeBgp() {
    client.resource(clusterA()).create();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(() -> client.resources(NodeBGP.class).withName("sart-worker3").get() != null);
    client.nodes().withName("sart-worker3").delete();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(() -> client.resources(NodeBGP.class).withName("sart-worker3").get() == null);
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(() -> !peers().contains("bgppeertemplate-sample-sart-worker3-65000-9.9.9.9"));
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertEquals(
                    List.of("sart-worker", "sart-worker2"), status("clusterbgp-sample-a", false)));
  }

  /**
   * Adds a finalizer as the node's agent does (the mock runs no agent); like the agent, it reads
   * again and retries when the controller changed the object meanwhile (409 Conflict).
   */
  private <T extends io.fabric8.kubernetes.api.model.HasMetadata> void agentFinalizer(
      Class<T> type, String name, String finalizer) {
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(
            () -> {
              client
                  .resources(type)
                  .withName(name)
                  .edit(
                      o -> {
                        var f = new java.util.ArrayList<>(o.getMetadata().getFinalizers());
                        if (!f.contains(finalizer)) {
                          f.add(finalizer);
                        }
                        o.getMetadata().setFinalizers(f);
                        return o;
                      });
              return client
                  .resources(type)
                  .withName(name)
                  .get()
                  .getMetadata()
                  .getFinalizers()
                  .contains(finalizer);
            });
  }

  /**
   * The deleted node's agent is gone: its NodeBGP and BGPPeers (generated and hand-made), which
   * carry the agent's finalizers, are gone all the same; other nodes keep theirs.
   */
  @Test
  void aDeletedNodesObjectsGoAlthoughItsAgentCannotReleaseThem() {
    client.resource(clusterA()).create();
    var generated = "bgppeertemplate-sample-sart-worker3-65000-9.9.9.9";
    await().ignoreExceptions().atMost(WAIT).until(() -> peers().contains(generated));
    var manual =
        new BGPPeer(
            "manual-worker3",
            new dev.sart.crds.BGPPeerSpec(
                65001L, "7.7.7.7", null, null, null, "sart-worker3", null, SPEAKER, null));
    manual.getMetadata().setLabels(Map.of(Sart.BGP_PEER_NODE_LABEL, "sart-worker3"));
    client.resource(manual).create();
    agentFinalizer(NodeBGP.class, "sart-worker3", Sart.NODE_BGP_FINALIZER);
    agentFinalizer(BGPPeer.class, generated, Sart.BGP_PEER_FINALIZER);
    agentFinalizer(BGPPeer.class, "manual-worker3", Sart.BGP_PEER_FINALIZER);

    client.nodes().withName("sart-worker3").delete();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertEquals(null, client.resources(NodeBGP.class).withName("sart-worker3").get());
              assertEquals(
                  new TreeSet<>(
                      List.of(
                          "bgppeertemplate-sample-sart-worker-65000-9.9.9.9",
                          "bgppeertemplate-sample-sart-worker2-65000-9.9.9.9")),
                  peers());
            });
  }

  /**
   * A NodeBGP made by hand (no owner reference to its Node) for a node that no ClusterBGP selects
   * is left alone, and so is one for a node a ClusterBGP selects; the controller's own still go.
   */
  @Test
  void aHandMadeNodeBgpIsNeverEditedOrDeleted() {
    var spec = new dev.sart.crds.NodeBGPSpec(65010L, "10.0.0.1", SPEAKER, List.of());
    client.resource(new NodeBGP("sart-control-plane", spec)).create();
    client.resource(new NodeBGP("sart-worker", spec)).create();
    client.resource(clusterA()).create();
    // the controller's own NodeBGPs come for the other selected nodes
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(() -> client.resources(NodeBGP.class).withName("sart-worker2").get() != null);
    await()
        .during(Duration.ofSeconds(2))
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertEquals(
                  spec,
                  client.resources(NodeBGP.class).withName("sart-control-plane").get().getSpec());
              assertEquals(
                  spec, client.resources(NodeBGP.class).withName("sart-worker").get().getSpec());
            });
    // a ClusterBGP that no longer selects: the controller's NodeBGPs go, the hand-made stay
    client.resources(ClusterBGP.class).withName("clusterbgp-sample-a").delete();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(() -> client.resources(NodeBGP.class).withName("sart-worker2").get() == null);
    assertEquals(
        List.of("sart-control-plane", "sart-worker"),
        client.resources(NodeBGP.class).list().getItems().stream()
            .map(n -> n.getMetadata().getName())
            .sorted()
            .toList());
  }
}
