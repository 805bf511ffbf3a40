package dev.sart.agent.egress;

import static dev.sart.agent.egress.EgressTopology.*;
import static dev.sart.crds.testing.KubeObjects.annotated;
import static dev.sart.crds.testing.KubeObjects.runningPod;
import static dev.sart.crds.testing.KubeObjects.service;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.crds.Egress;
import dev.sart.crds.EgressSourceAddress;
import dev.sart.crds.EgressSpec;
import dev.sart.crds.EgressStatus;
import dev.sart.crds.Sart;
import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.Netns;
import dev.sart.testbed.Node;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import dev.sart.testbed.mockapi.EnableMockApi;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The two agents of the egress data path driven by the Kubernetes API (fabric8's mock server in
 * CRUD mode), on the real kernel with namespaces as pods: {@link ClientAgent} (what the node agent
 * runs) sets up the opted-in pods of its node and routes the static address to its gateway; {@link
 * GatewayAgent} (what {@code sartd egress} runs) follows the client pods and the Egress's status.
 * The test plays the controller (the Egress's status, the Service's ClusterIP) and the kubelet (the
 * Pod objects).
 */
@EnableMockApi
class EgressAgentsTest {
  static KubernetesClient client;

  @RegisterExtension final Testbed testbed = new Testbed();

  private static final String NS = "internet-egress";
  private static final Duration WAIT = Duration.ofSeconds(20);
  private EgressTopology x;
  private final List<AutoCloseable> closing = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    x = new EgressTopology(testbed.topology());
    closing.add(x);
    x.kubeProxy(GW1);
    // the controller's work: the Service with its ClusterIP, the Egress with its holder
    client
        .services()
        .resource(
            service(NS, "nat", null, 4789)
                .editMetadata()
                .withLabels(Map.of(Sart.EGRESS_NAME_LABEL, "nat"))
                .endMetadata()
                .editSpec()
                .withClusterIP(EGRESS_CLUSTER_IP)
                .editFirstPort()
                .withProtocol("UDP")
                .endPort()
                .endSpec()
                .build())
        .create();
    var egress =
        new Egress(
            NS,
            "nat",
            new EgressSpec(List.of(DESTINATIONS.toString()), 1)
                .withSourceAddress(new EgressSourceAddress("egress-pool")));
    egress.setStatus(new EgressStatus(1, null, STATIC, "nat-1", "node1", null));
    client.resource(egress).create();
    pod(NS, "nat-1", GW1, Map.of());
    pod("default", "client", CLIENT, Map.of(Sart.EGRESS_ANNOTATION_PREFIX + NS, "nat"));
    pod("default", "plain", PLAIN, Map.of());
    pod("other", "coil", COIL, Map.of(Sart.COIL_EGRESS_ANNOTATION_PREFIX + NS, "nat"));

    // sartd egress in the gateway pod
    var tunnel = x.gatewayTunnel(x.gw1);
    var gateway =
        new GatewayAgent(client, NS, "nat", "nat-1", UPLINK, tunnel, EgressTopology.nat(x.gw1));
    closing.add(gateway);
    gateway.start();

    // the node agent
    var nodeNs = Netns.named(x.node.netns());
    var nodeNl = Netlink.open(nodeNs);
    closing.add(nodeNs);
    closing.add(nodeNl);
    // only this run's namespaces: others on the machine may use the same addresses
    var agent =
        new ClientAgent(
            client,
            "node1",
            PodNetns.in(Netns.NAMED, n -> n.startsWith(Topology.RUN_PREFIX), nodeNl),
            nodeNl,
            254,
            UPLINK);
    closing.add(agent);
    agent.start();
  }

  @AfterEach
  void tearDown() throws Exception {
    for (var c : closing.reversed()) {
      c.close();
    }
    client.resources(Egress.class).inAnyNamespace().delete();
    client.pods().inAnyNamespace().delete();
    client.services().inAnyNamespace().delete();
  }

  private void pod(String namespace, String name, String ip, Map<String, String> annotations) {
    Pod p = annotated(runningPod(namespace, name, "node1", ip), annotations);
    p.getMetadata().setUid(namespace + "-" + name);
    client.resource(p).create();
  }

  private static void eventually(String expected, Callable<String> actual) {
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(100))
        .ignoreExceptions()
        .until(() -> expected.equals(actual.call()));
  }

  private static boolean hasTunnel(Node pod) {
    return pod.exec("ip", "-d", "link").contains("vxlan id");
  }

  @Test
  void annotatedPodsGoThroughTheGatewayAndTheNodeRoutesTheStaticAddressToIt() throws Exception {
    eventually(STATIC, () -> EchoServer.sourceSeen(x.client.netns(), SERVER, PORT));
    eventually(STATIC, () -> EchoServer.sourceSeen(x.coil.netns(), SERVER, PORT));
    assertEquals(PLAIN, EchoServer.sourceSeen(x.plain.netns(), SERVER, PORT));
    assertEquals(CLIENT, EchoServer.sourceSeen(x.client.netns(), OTHER, PORT));
    assertFalse(hasTunnel(x.plain));
    assertTrue(
        x.node.exec("ip", "route", "show", "proto", "51").contains(STATIC + " via " + GW1),
        x.node.exec("ip", "route"));
  }

  /**
   * A pod whose network namespace is gone while its Pod object is still there (the kubelet tears
   * the sandbox down first) holds back no other pod: the node agent looks for it again, finds
   * nothing to clean, and sets up the pod that opts in meanwhile.
   */
  @Test
  void aPodWhoseNamespaceIsGoneHoldsBackNoOtherPod() throws Exception {
    eventually(STATIC, () -> EchoServer.sourceSeen(x.client.netns(), SERVER, PORT));
    testbed.topology().remove(x.client);
    client
        .pods()
        .inNamespace("default")
        .withName("plain")
        .edit(
            p -> {
              p.getMetadata().setAnnotations(Map.of(Sart.EGRESS_ANNOTATION_PREFIX + NS, "nat"));
              return p;
            });
    eventually(STATIC, () -> EchoServer.sourceSeen(x.plain.netns(), SERVER, PORT));
  }

  @Test
  void removingTheAnnotationThePodOrTheEgressRemovesTheTunnels() throws Exception {
    eventually(STATIC, () -> EchoServer.sourceSeen(x.client.netns(), SERVER, PORT));
    eventually(STATIC, () -> EchoServer.sourceSeen(x.coil.netns(), SERVER, PORT));

    // the annotation goes
    client
        .pods()
        .inNamespace("default")
        .withName("client")
        .edit(
            p -> {
              p.getMetadata().setAnnotations(new HashMap<>());
              return p;
            });
    await().atMost(WAIT).until(() -> !hasTunnel(x.client));
    assertEquals("", x.client.exec("ip", "route", "show", "table", "117").strip());
    assertFalse(x.client.exec("ip", "rule").contains("proto 51"));
    assertEquals(CLIENT, EchoServer.sourceSeen(x.client.netns(), SERVER, PORT));
    // the gateway dropped the client's entries
    await()
        .atMost(WAIT)
        .until(() -> !x.gw1.exec("ip", "route", "show", "table", "118").contains(CLIENT));
    assertFalse(x.gw1.exec("bridge", "fdb", "show").contains("dst " + CLIENT));

    // the Egress goes (its Service with it, by garbage collection)
    client.resources(Egress.class).inNamespace(NS).withName("nat").delete();
    client.services().inNamespace(NS).withName("nat").delete();
    await().atMost(WAIT).until(() -> !hasTunnel(x.coil));
    assertEquals("", x.coil.exec("ip", "route", "show", "table", "117").strip());
    for (var rule : x.coil.exec("ip", "rule").strip().split("\n")) {
      assertTrue(rule.matches("\\d+:\\s+from all lookup (local|main|default)\\s*"), rule);
    }
    assertEquals(COIL, EchoServer.sourceSeen(x.coil.netns(), SERVER, PORT));
    await().atMost(WAIT).until(() -> x.node.exec("ip", "route", "show", "proto", "51").isBlank());

    // a deleted client pod: the gateway forgets it
    client.pods().inNamespace("other").withName("coil").delete();
    await().atMost(WAIT).until(() -> x.gw1.exec("ip", "route", "show", "table", "118").isBlank());
    assertFalse(x.gw1.exec("bridge", "fdb", "show").contains("dst " + COIL));
    assertFalse(
        x.gw1.exec("ip", "neigh", "show", "dev", EgressIds.GATEWAY_DEVICE).contains(COIL),
        "its neighbour entry");
  }

  @Test
  void aDualStackPodReachesIpv6DestinationsAsTheIpv6StaticAddress() throws Exception {
    x.ipv6();
    // the kubelet's dual-stack pods, the controller's IPv6 static address and destinations
    for (var p :
        List.of(List.of("default", "client", CLIENT, CLIENT6), List.of(NS, "nat-1", GW1, GW1_6))) {
      client
          .pods()
          .inNamespace(p.get(0))
          .withName(p.get(1))
          .edit(
              pod -> {
                pod.getStatus().setPodIPs(List.of(new PodIP(p.get(2)), new PodIP(p.get(3))));
                return pod;
              });
    }
    client
        .resources(Egress.class)
        .inNamespace(NS)
        .withName("nat")
        .edit(
            e -> {
              e.setSpec(
                  new EgressSpec(List.of(DESTINATIONS.toString(), DESTINATIONS6.toString()), 1)
                      .withSourceAddress(new EgressSourceAddress("egress-pool")));
              e.setStatus(new EgressStatus(1, null, STATIC6, "nat-1", "node1", null));
              return e;
            });
    String static6 = InetAddress.getByName(STATIC6).getHostAddress();
    eventually(static6, () -> EchoServer.sourceSeen(x.client.netns(), SERVER6, PORT));
    // IPv4 is masqueraded now (the static address is IPv6)
    eventually(GW1, () -> EchoServer.sourceSeen(x.client.netns(), SERVER, PORT));
    assertEquals(
        InetAddress.getByName(CLIENT6).getHostAddress(),
        EchoServer.sourceSeen(x.client.netns(), OTHER6, PORT));
    assertEquals(
        InetAddress.getByName(PLAIN6).getHostAddress(),
        EchoServer.sourceSeen(x.plain.netns(), SERVER6, PORT));
    assertTrue(
        x.node.exec("ip", "-6", "route", "show", "proto", "51").contains(STATIC6 + " via " + GW1_6),
        x.node.exec("ip", "-6", "route"));

    // the client pod goes: the gateway forgets its IPv6 address too
    client.pods().inNamespace("default").withName("client").delete();
    await()
        .atMost(WAIT)
        .until(() -> !x.gw1.exec("ip", "-6", "route", "show", "table", "118").contains(CLIENT6));
    assertFalse(
        x.gw1.exec("ip", "-6", "neigh", "show", "dev", EgressIds.GATEWAY_DEVICE).contains(CLIENT6));
  }
}
