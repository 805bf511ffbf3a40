package dev.sart.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.agent.cni.AgentConfig;
import dev.sart.agent.cni.CniAgent;
import dev.sart.agent.kube.BlockSource;
import dev.sart.agent.kube.KubeIpam;
import dev.sart.agent.kube.PoolSelector;
import dev.sart.crds.AddressBlock;
import dev.sart.crds.AddressBlockSpec;
import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressPoolSpec;
import dev.sart.crds.AddressType;
import dev.sart.crds.Sart;
import dev.sart.crds.testing.ControllerObjects;
import dev.sart.crds.testing.KubeObjects;
import dev.sart.crds.testing.MockApiCleanup;
import dev.sart.testbed.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Two "nodes" of a pod network with no overlay, as {@link CrossNodePodTest} and {@link
 * ExplainPodE2eTest} build them: two node namespaces joined by a routed link and peering directly
 * over eBGP, each with its own {@code sartd bgp} and {@code sartd fib} (BGP routes into the main
 * table) and the CNI side of its agent in the test JVM, against fabric8's mock API server, with the
 * objects sart's controller would have made (a pod pool, per node a NodeBGP, a BGPPeer to the other
 * node and a block).
 */
final class PodNodes {
  static final String POOL = "default-pod-pool";

  /** A node: its name, link address (also its pods' gateway), AS and pod block. */
  record Member(String name, String address, long asn, String block) {}

  static final Member N1 = new Member("node1", "192.0.2.1", 65001, "198.51.100.0/28");
  static final Member N2 = new Member("node2", "192.0.2.2", 65002, "198.51.100.16/28");

  static final String FIB_CONFIG =
      """
      endpoint: 127.0.0.1:5001
      channels:
        - name: bgp-to-kernel
          subscribers:
            - protocol: bgp
              endpoint: 127.0.0.1:5000
          publishers:
            - protocol: kernel
              tables: [254]
      """;

  private PodNodes() {}

  /** The BGPPeer of {@code self} towards {@code other}. */
  static String peerName(Member self, Member other) {
    return ControllerObjects.peerName(self.name(), other.asn(), other.address());
  }

  /** The block AddressBlock (and its BGPAdvertisement in kube-system) of a node. */
  static String blockName(Member m) {
    return POOL + "-" + (m == N1 ? 0 : 1);
  }

  /** What sart's controller would have made: the pod pool, and for each node its objects. */
  static void createClusterObjects(KubernetesClient client) {
    client
        .resource(
            new AddressPool(
                POOL, new AddressPoolSpec("198.51.100.0/24", AddressType.POD, 28, true)))
        .create();
    createNodeObjects(client, N1, N2);
    createNodeObjects(client, N2, N1);
  }

  /** NodeBGP, a BGPPeer to the other node (hold 9 s, keepalive 3 s, retry 1 s), the block. */
  private static void createNodeObjects(KubernetesClient client, Member self, Member other) {
    client
        .resource(
            ControllerObjects.nodeBgp(self.name(), self.asn(), self.address(), "127.0.0.1:5000"))
        .create();
    client
        .resource(
            ControllerObjects.peer(
                self.name(),
                other.asn(),
                other.address(),
                9L,
                3L,
                Map.of("bgppeer.sart.terassyi.net/connect-retry-time", "1")))
        .create();
    AddressBlock b =
        new AddressBlock(
            blockName(self),
            new AddressBlockSpec(self.block(), AddressType.POD, POOL, self.name(), null));
    b.getMetadata()
        .setLabels(
            Map.of(Sart.ADDRESS_BLOCK_NODE_LABEL, self.name(), Sart.ADDRESS_POOL_LABEL, POOL));
    client.resource(b).create();
  }

  /**
   * Starts the node's {@code sartd bgp} and {@code sartd fib} and the CNI side of its agent (which
   * makes the block's BGPAdvertisement at start-up); what is to be closed goes to {@code closing}.
   * Returns a relay from the test's loopback to the speaker's API (127.0.0.1:5000 in the node).
   */
  static NamespaceRelay startNode(
      KubernetesClient client, Member self, Node node, List<AutoCloseable> closing)
      throws Exception {
    SartdNode.start(node);
    FibNode.start(node, FIB_CONFIG, "sartd-fib");
    NamespaceRelay speaker = NamespaceRelay.into(node, 5000);
    closing.add(speaker);
    AgentConfig config =
        AgentConfig.of(
            node.dir().resolve("sart.sock"),
            Path.of("/var/run/netns", node.netns()),
            self.address(),
            null,
            List.of(),
            null);
    closing.add(
        CniAgent.start(
            config,
            new KubeIpam(
                new BlockSource(client, self.name(), Duration.ofSeconds(10)),
                new PoolSelector(client))));
    return speaker;
  }

  /**
   * A pod on {@code m}, {@code default/podName}, made as the kubelet and a runtime make it: the Pod
   * object bound to the node, ADD through the plugin, its address written to the Pod's status.
   * Returns the pod's IPv4 address.
   */
  static String addPod(
      KubernetesClient client, Member m, Node node, Node pod, String containerId, String podName)
      throws Exception {
    Pod created = client.resource(KubeObjects.pod("default", podName, m.name())).create();
    String out =
        CniPlugin.run(
            CniPlugin.env("ADD", containerId, pod, podName),
            CniPlugin.netconf(node.dir().resolve("sart.sock"), "1.0.0"),
            0);
    List<String> ips = new ObjectMapper().readTree(out).path("ips").findValuesAsText("address");
    assertEquals(1, ips.size(), out);
    String ip = ips.getFirst().split("/")[0];
    created.setStatus(KubeObjects.startedStatus(ip));
    client.resource(created).updateStatus();
    return ip;
  }

  /** Empties the mock API server for the next test (it is shared by the class's tests). */
  static void deleteAll(KubernetesClient client) {
    MockApiCleanup.deleteBgpObjects(client);
    MockApiCleanup.deleteIpamObjects(client);
  }
}
