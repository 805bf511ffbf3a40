package dev.sart.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sart.crds.AddressBlock;
import dev.sart.crds.AddressBlockSpec;
import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressPoolSpec;
import dev.sart.crds.AddressType;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPAdvertisementSpec;
import dev.sart.crds.Protocol;
import dev.sart.crds.testing.KubeObjects;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code sart explain pod} against the mock API server: each link before the speakers and kernels
 * broken on purpose (no such pod, no address yet, an address in no block, the block's pool gone,
 * another node's block, no block advertisement, a node without peers), and {@code explain} names it
 * and says what to do.
 */
class ExplainPodTest {
  private ExplainCluster cluster;

  @BeforeEach
  void start() throws Exception {
    cluster = new ExplainCluster();
  }

  @AfterEach
  void stop() throws Exception {
    cluster.close();
  }

  private JsonNode firstBroken(String pod) throws Exception {
    ExplainCluster.Run r = cluster.explain("-o", "json", "pod", pod);
    assertEquals(ExplainCommands.BROKEN, r.code(), r.out() + r.err());
    return r.json().path("firstBroken");
  }

  /** The kubelet's pod on {@code node}, with {@code ip} in its status (none: not started). */
  private void pod(String name, String node, String ip) {
    var p = cluster.client.resource(KubeObjects.pod("default", name, node)).create();
    if (ip != null) {
      p.setStatus(KubeObjects.startedStatus(ip));
      cluster.client.resource(p).updateStatus();
    }
  }

  private void podPool() {
    cluster
        .client
        .resource(
            new AddressPool(
                "pods", new AddressPoolSpec("198.51.100.0/24", AddressType.POD, 26, true)))
        .create();
  }

  private void block(String node) {
    cluster
        .client
        .resource(
            new AddressBlock(
                "pods-0",
                new AddressBlockSpec("198.51.100.0/26", AddressType.POD, "pods", node, true)))
        .create();
  }

  @Test
  void anUnknownPodIsNamed() throws Exception {
    JsonNode b = firstBroken("default/nope");
    assertEquals("no such pod", b.path("summary").asText());
  }

  @Test
  void aPodWithoutAnAddressPointsAtTheCniAdd() throws Exception {
    pod("web-1", "node-a", null);
    JsonNode b = firstBroken("default/web-1");
    assertTrue(b.path("summary").asText().endsWith(": no address yet"), b::toString);
    assertTrue(b.path("fix").asText().startsWith("the CNI ADD has not succeeded"), b::toString);
  }

  @Test
  void anAddressInNoBlockNamesThePoolItLiesIn() throws Exception {
    podPool();
    pod("web-1", "node-a", "198.51.100.7");
    JsonNode b = firstBroken("default/web-1");
    assertEquals("block", b.path("kind").asText());
    assertEquals(
        "no pod AddressBlock holds 198.51.100.7 (it lies in pool pods)",
        b.path("summary").asText());
  }

  @Test
  void aBlockWhosePoolIsGoneIsTheBrokenLink() throws Exception {
    block("node-a");
    pod("web-1", "node-a", "198.51.100.7");
    JsonNode b = firstBroken("default/web-1");
    assertEquals("pool", b.path("kind").asText());
    assertEquals("the block's pool is gone", b.path("summary").asText());
  }

  @Test
  void anAddressFromAnotherNodesBlockIsNamed() throws Exception {
    podPool();
    block("node-b");
    pod("web-1", "node-a", "198.51.100.7");
    JsonNode b = firstBroken("default/web-1");
    assertEquals("block", b.path("kind").asText());
    assertTrue(
        b.path("summary").asText().endsWith("on node node-b, but the pod runs on node-a"),
        b::toString);
  }

  @Test
  void aBlockWithoutItsAdvertisementPointsAtTheAgent() throws Exception {
    podPool();
    block("node-a");
    pod("web-1", "node-a", "198.51.100.7");
    JsonNode b = firstBroken("default/web-1");
    assertEquals("advertisement", b.path("kind").asText());
    assertEquals("no BGPAdvertisement for block 198.51.100.0/26", b.path("summary").asText());
    assertTrue(b.path("fix").asText().startsWith("the agent on node-a makes it"), b::toString);
  }

  @Test
  void aNodeWithoutPeersAnnouncesTheBlockToNobody() throws Exception {
    podPool();
    block("node-a");
    pod("web-1", "node-a", "198.51.100.7");
    cluster
        .client
        .resource(
            new BGPAdvertisement(
                "kube-system",
                "pods-0",
                new BGPAdvertisementSpec("198.51.100.0/26", AddressType.POD, Protocol.IPV4, null)))
        .create();
    JsonNode b = firstBroken("default/web-1");
    assertEquals("advertisement", b.path("kind").asText());
    assertTrue(b.path("summary").asText().startsWith("node node-a has no BGPPeer"), b::toString);
  }
}
