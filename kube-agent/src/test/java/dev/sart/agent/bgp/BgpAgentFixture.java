package dev.sart.agent.bgp;

import static org.awaitility.Awaitility.await;

import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.BGPPeerCondition;
import dev.sart.crds.NodeBGP;
import dev.sart.crds.testing.ControllerObjects;
import dev.sart.crds.testing.MockApiCleanup;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.Router;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.RouterKind;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import dev.sart.testbed.mockapi.EnableMockApi;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The set-up of the agent's tests (sart.md §6.5; its agent_node_bgp, agent_bgp_peer and
 * agent_bgp_advertisement tests): fabric8's mock API server in CRUD mode, a real speaker (BgpServer
 * + BgpApiService over gRPC) and a real BGP daemon (BIRD) as the peer, whose routing table is the
 * oracle. The tests play the controller: they create the objects and the status entries the
 * controller would write.
 */
@EnableMockApi
abstract class BgpAgentFixture {
  static KubernetesClient client;
  static KubernetesMockServer server;

  static final String NODE = "node1";
  static final String PEER = NODE + "-65002-192.0.2.2";
  static final String PEER2 = NODE + "-65003-192.0.2.6";

  @RegisterExtension final Testbed testbed = new Testbed();
  RealSpeaker speaker;

  /** The speaker's own graceful restart (RFC 4724 §4.1) for {@link #start}; null: none. */
  dev.sart.bgp.peer.RestartingSpeaker.Settings restart;

  BgpAgent agent;
  Router bird;

  @AfterEach
  void stop() throws Exception {
    if (agent != null) {
      agent.close();
    }
    if (speaker != null) {
      speaker.close();
    }
    MockApiCleanup.deleteBgpObjects(client);
  }

  /**
   * The speaker's namespace (192.0.2.1, AS 65001 once configured) and BIRD (192.0.2.2, AS 65002),
   * its NodeBGP and BGPPeer, and the agent.
   */
  void start(UnaryOperator<Neighbor> birdSide, Map<String, String> peerAnnotations)
      throws Exception {
    speakerAndBird(birdSide);
    client
        .resource(ControllerObjects.nodeBgp(NODE, 65001, "192.0.2.1", speaker.endpoint()))
        .create();
    client
        .resource(ControllerObjects.peer(NODE, 65002, "192.0.2.2", 30L, 10L, peerAnnotations))
        .create();
    agent = new BgpAgent(client, NODE, Duration.ofSeconds(30)).start();
  }

  /** The speaker (192.0.2.1, not configured yet) and BIRD (192.0.2.2, AS 65002) peering with it. */
  void speakerAndBird(UnaryOperator<Neighbor> birdSide) throws Exception {
    Topology t = testbed.topology();
    Node s = t.node("sart");
    Node p = t.node("peer");
    t.link(s, p).addresses("192.0.2.1/30", "192.0.2.2/30");
    speaker = new RealSpeaker(s).start(restart);
    bird =
        RouterKind.BIRD
            .create(
                p,
                RouterConfig.of(65002, "192.0.2.2")
                    .neighbor(birdSide.apply(Neighbor.of("192.0.2.1", 65001))))
            .start();
  }

  void start() throws Exception {
    start(n -> n, Map.of(PeerOptions.CONNECT_RETRY_TIME, "1"));
  }

  static NodeBGP nodeBgp() {
    return client.resources(NodeBGP.class).withName(NODE).get();
  }

  static BGPPeer bgpPeer() {
    return client.resources(BGPPeer.class).withName(PEER).get();
  }

  static BGPPeerCondition.Status peerStatus() {
    BGPPeer p = bgpPeer();
    BGPPeerCondition c = p == null ? null : PeerReconciler.last(p.getStatus());
    return c == null ? null : c.status();
  }

  static Map<String, AdvertiseStatus> advertStatus(String name) {
    BGPAdvertisement a =
        client.resources(BGPAdvertisement.class).inNamespace("default").withName(name).get();
    return a.getStatus() == null || a.getStatus().peers() == null
        ? Map.of()
        : a.getStatus().peers();
  }

  void awaitEstablished() {
    await("BGPPeer Established")
        .atMost(Duration.ofSeconds(60))
        .until(() -> peerStatus() == BGPPeerCondition.Status.Established);
    bird.awaitEstablished("192.0.2.1");
  }

  /**
   * The router does not get the route, now or in the next few seconds (the other peer already has
   * it).
   */
  static void assertNoRouteFor(Router r, String prefix) {
    await(r + " never gets " + prefix)
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(10))
        .until(() -> r.routes(dev.sart.net.IpPrefix.parse(prefix)).isEmpty());
  }

  /**
   * The controller's writes: each given entry set (or replaced), the others kept. The agent writes
   * the same status meanwhile: on 409 Conflict the change is read and applied again, as the
   * controller's AdvertisementWriter does.
   */
  static void setTargets(String advert, Map<String, AdvertiseStatus> entries) {
    for (int attempt = 1; ; attempt++) {
      try {
        client
            .resources(BGPAdvertisement.class)
            .inNamespace("default")
            .withName(advert)
            .editStatus(
                a -> {
                  a.getStatus().peers().putAll(entries);
                  return a;
                });
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == 8) {
          throw e;
        }
      }
    }
  }
}
