package dev.sart.controller;

import static dev.sart.controller.MockCluster.ingress;
import static dev.sart.crds.testing.KubeObjects.endpoint;
import static dev.sart.crds.testing.KubeObjects.lbService;
import static dev.sart.crds.testing.KubeObjects.slice;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.sart.controller.runtime.Metrics;
import dev.sart.crds.AddressPool;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.AsnSelector;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPAdvertisementStatus;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.BGPPeerTemplateSpec;
import dev.sart.crds.ClusterBGP;
import dev.sart.crds.ClusterBGPSpec;
import dev.sart.crds.NodeBGP;
import dev.sart.crds.PeerConfig;
import dev.sart.crds.RouterIdSelector;
import dev.sart.crds.Sart;
import dev.sart.crds.SpeakerConfig;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Deleting a Service, its namespace, a Node and an AddressPool while the controller runs and the
 * nodes' agents answer: the objects are gone, not only their routes. The agents are played here as
 * the node agent behaves (kube-agent's AdvertisementReconciler, whose own side is tested with a
 * real speaker in BgpAgentAdvertisementTest): each answers only for its node's peers, and also for
 * an advertisement being deleted. The mock server collects no garbage: the namespace controller's
 * work is done by the test as that controller would (every object of the namespace deleted, the
 * namespace last). The stand-in agents write as the agent does (read, then change only the entries
 * they decided on): an earlier version sent JSON Patch {@code test} operations, and a failed {@code
 * test} gets no answer from the mock server at all (the request hangs, and with it the informer's
 * event thread), which is what kept the namespace case Terminating.
 */
class DeletionTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final SpeakerConfig SPEAKER = new SpeakerConfig("127.0.0.1:5000", null, null);

  private KubernetesMockServer server;
  private KubernetesClient client;
  private SartController controller;
  private final List<SharedIndexInformer<BGPAdvertisement>> agents = new ArrayList<>();
  private final Set<String> liveNodes = ConcurrentHashMap.newKeySet();

  @BeforeEach
  void setUp() throws Exception {
    server = MockCluster.server();
    client = server.createClient();
    MockCluster.pool(client, "default-lb-pool", "10.0.1.0/24", true);
    for (var node : List.of("node1", "node2")) {
      MockCluster.node(
          client,
          node,
          node.equals("node1") ? "192.0.2.1" : "192.0.2.5",
          Map.of(Sart.ASN_NODE_LABEL, "65001"));
      agent(node);
    }
    client
        .resource(
            new ClusterBGP(
                "tor",
                new ClusterBGPSpec(
                    null,
                    new AsnSelector(AsnSelector.From.LABEL, null),
                    new RouterIdSelector(RouterIdSelector.From.INTERNAL_ADDRESS, null),
                    SPEAKER,
                    List.of(
                        new PeerConfig(
                            null,
                            new BGPPeerTemplateSpec(65000L, "192.0.2.9", null, null, null, null),
                            null)))))
        .create();
    var config =
        new ControllerConfig(
            Mode.LB,
            Sart.LOAD_BALANCER_CLASS,
            false,
            "kube-system",
            "sart-controller",
            "deletion-test",
            Duration.ofSeconds(15),
            Duration.ofSeconds(10),
            Duration.ofSeconds(2),
            false);
    controller = new SartController(client, config, new Metrics());
    controller.start();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(() -> client.resources(BGPPeer.class).list().getItems().size() == 2);
  }

  @AfterEach
  void tearDown() {
    agents.forEach(SharedIndexInformer::close);
    controller.close();
    client.close();
    server.destroy();
  }

  /**
   * One node's agent as far as advertisements go: for the entries of its peers, NotAdvertised
   * becomes Advertised, Withdraw is removed, and every entry of an advertisement being deleted is
   * removed (after the speaker withdrew the prefix).
   */
  private void agent(String node) {
    liveNodes.add(node);
    var informer = client.resources(BGPAdvertisement.class).inAnyNamespace().inform();
    informer.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(BGPAdvertisement a) {
            answer(node, a);
          }

          @Override
          public void onUpdate(BGPAdvertisement before, BGPAdvertisement a) {
            answer(node, a);
          }

          @Override
          public void onDelete(BGPAdvertisement a, boolean unknown) {}
        });
    agents.add(informer);
  }

  private void answer(String node, BGPAdvertisement a) {
    if (!liveNodes.contains(node) || a.getStatus() == null || a.getStatus().peers() == null) {
      return;
    }
    boolean deleted = a.getMetadata().getDeletionTimestamp() != null;
    var base = a.getStatus().peers();
    var next = new HashMap<>(base);
    base.forEach(
        (peer, state) -> {
          if (!peer.startsWith(node + "-")) {
            return;
          }
          if (deleted || state == AdvertiseStatus.Withdraw) {
            next.remove(peer);
          } else if (state == AdvertiseStatus.NotAdvertised) {
            next.put(peer, AdvertiseStatus.Advertised);
          }
        });
    if (next.equals(base)) {
      return;
    }
    // as the agent writes: read again, and change an entry of ours only if the server still has
    // the value it was decided from (the controller may have written Withdraw meanwhile)
    client
        .resources(BGPAdvertisement.class)
        .inNamespace(a.getMetadata().getNamespace())
        .withName(a.getMetadata().getName())
        .editStatus(
            cur -> {
              var merged =
                  new HashMap<>(
                      cur.getStatus() == null || cur.getStatus().peers() == null
                          ? Map.<String, AdvertiseStatus>of()
                          : cur.getStatus().peers());
              for (var peer : base.keySet()) {
                if (Objects.equals(merged.get(peer), base.get(peer))
                    && !Objects.equals(base.get(peer), next.get(peer))) {
                  if (next.containsKey(peer)) {
                    merged.put(peer, next.get(peer));
                  } else {
                    merged.remove(peer);
                  }
                }
              }
              cur.setStatus(new BGPAdvertisementStatus(merged));
              return cur;
            });
  }

  private String service(String namespace, String name) {
    client.resource(lbService(namespace, name, Map.of()).build()).create();
    client
        .resource(
            slice(
                namespace,
                name,
                name + "-1",
                List.of(
                    endpoint("10.100.0.1", "node1", true, false),
                    endpoint("10.100.0.2", "node2", true, false))))
        .create();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(() -> !ingress(client, namespace, name).isEmpty());
    var advert = name + "-" + ingress(client, namespace, name).getFirst().replace('.', '-');
    // both nodes' agents announce it
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertEquals(
                    Map.of(
                        "node1-65000-192.0.2.9", AdvertiseStatus.Advertised,
                        "node2-65000-192.0.2.9", AdvertiseStatus.Advertised),
                    advert(namespace, advert).getStatus().peers()));
    return advert;
  }

  private BGPAdvertisement advert(String namespace, String name) {
    return client.resources(BGPAdvertisement.class).inNamespace(namespace).withName(name).get();
  }

  private void awaitGone(String namespace, String advert) {
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .alias("gone: " + namespace + "/" + advert)
        .untilAsserted(() -> assertNull(advert(namespace, advert)));
  }

  @Test
  void aDeletedServicesAdvertisementIsGone() {
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName("test").endMetadata().build())
        .create();
    var advert = service("test", "web");
    client.services().inNamespace("test").withName("web").delete();
    awaitGone("test", advert);
  }

  /**
   * As the namespace controller does: every object of the namespace deleted, then the namespace.
   */
  @Test
  void aDeletedNamespacesAdvertisementsAreGone() {
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName("team").endMetadata().build())
        .create();
    var a = service("team", "a");
    var b = service("team", "b");
    client.services().inNamespace("team").delete();
    client.resources(EndpointSlice.class).inNamespace("team").delete();
    client.resources(BGPAdvertisement.class).inNamespace("team").delete();
    awaitGone("team", a);
    awaitGone("team", b);
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(
            () ->
                client
                    .resources(BGPAdvertisement.class)
                    .inNamespace("team")
                    .list()
                    .getItems()
                    .isEmpty());
    client.namespaces().withName("team").delete();
    await().atMost(WAIT).until(() -> client.namespaces().withName("team").get() == null);
  }

  /**
   * node2 goes, and its agent with it (it answers nothing more): its NodeBGP and BGPPeer go, its
   * entries no longer hold a deleted Service's advertisement.
   */
  @Test
  void aDeletedNodesEntriesDoNotHoldAnAdvertisement() {
    var advert = service("default", "web");
    liveNodes.remove("node2");
    client.nodes().withName("node2").delete();
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .until(
            () ->
                client.resources(NodeBGP.class).withName("node2").get() == null
                    && client.resources(BGPPeer.class).withName("node2-65000-192.0.2.9").get()
                        == null);
    client.services().inNamespace("default").withName("web").delete();
    awaitGone("default", advert);
  }

  /**
   * A pool is deleted while a Service holds one of its addresses: it waits for the Service (the
   * address stays announced meanwhile); once the Service is deleted the advertisement and the pool
   * are gone.
   */
  @Test
  void aDeletedPoolGoesOnceItsServicesHaveLeft() {
    var advert = service("default", "web");
    client.resources(AddressPool.class).withName("default-lb-pool").delete();
    await()
        .during(Duration.ofSeconds(2))
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertNotNull(client.resources(AddressPool.class).withName("default-lb-pool").get());
              assertNotNull(advert("default", advert));
            });
    client.services().inNamespace("default").withName("web").delete();
    awaitGone("default", advert);
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertNull(client.resources(AddressPool.class).withName("default-lb-pool").get()));
  }
}
