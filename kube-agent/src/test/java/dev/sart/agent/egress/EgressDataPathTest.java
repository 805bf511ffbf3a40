package dev.sart.agent.egress;

import static dev.sart.agent.egress.EgressTopology.*;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.Netns;
import dev.sart.net.IpPrefix;
import dev.sart.testbed.Node;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The egress data path on the real kernel, namespaces as pods: a "node" namespace routes between
 * the pods (each a /32 behind a veth, the node's address as gateway, as sart's CNI does) and two
 * "external" servers, and plays kube-proxy (nftables DNAT of the egress Service's ClusterIP to an
 * egress pod) and the agent's route of the static address to its holder. The client end is {@link
 * ClientTunnels}, the gateway end {@link GatewayTunnel} and {@link GatewayNat}: what the agent and
 * {@code sartd egress} run. The servers report the source address they see.
 */
class EgressDataPathTest {
  @RegisterExtension final Testbed testbed = new Testbed();

  private Topology t;
  private EgressTopology x;
  private Node node;
  private Node client;
  private Node plain;
  private Node gw1;
  private Node gw2;
  private Node server;
  private final List<AutoCloseable> closing = new ArrayList<>();
  private final java.util.Map<Node, List<AutoCloseable>> handles = new java.util.HashMap<>();
  private final int vni = EgressIds.vni("internet-egress", "nat");

  @BeforeEach
  void topology() {
    t = testbed.topology();
    x = new EgressTopology(t);
    closing.add(x);
    node = x.node;
    client = x.client;
    plain = x.plain;
    gw1 = x.gw1;
    gw2 = x.gw2;
    server = x.server;
  }

  @AfterEach
  void close() throws Exception {
    for (var c : closing.reversed()) {
      c.close();
    }
  }

  private void kubeProxy(String... gateways) {
    x.kubeProxy(gateways);
  }

  /** The agent's part on the holder's node: the static address routed to the holder. */
  private void staticRoute(String holder) {
    node.exec("ip", "route", "replace", STATIC + "/32", "via", holder);
  }

  private GatewayTunnel gateway(Node pod, InetAddress source, List<GatewayNat.Forward> forwards)
      throws Exception {
    var ns = Netns.named(pod.netns());
    var nl = Netlink.open(ns);
    closing.add(ns);
    closing.add(nl);
    handles.computeIfAbsent(pod, k -> new ArrayList<>()).addAll(List.of(nl, ns));
    var tunnel = new GatewayTunnel(nl, UPLINK, vni, 4789);
    ns.run(
        () -> {
          tunnel.setUp();
          return null;
        });
    tunnel.clients(Set.of(InetAddress.getByName(CLIENT)));
    EgressTopology.nat(pod).apply(UPLINK, source, forwards);
    return tunnel;
  }

  private Netlink clientTunnel(Node pod, String address, List<IpPrefix> destinations)
      throws Exception {
    return x.clientTunnels(pod, address, EGRESS_CLUSTER_IP, destinations);
  }

  @Test
  void theServerSeesTheStaticAddressOnlyForOptedInPodsAndOnlyForTheDestinations() throws Exception {
    kubeProxy(GW1);
    staticRoute(GW1);
    gateway(gw1, InetAddress.getByName(STATIC), List.of());
    clientTunnel(client, CLIENT, List.of(DESTINATIONS));

    assertEquals(
        STATIC, EchoServer.sourceSeen(client.netns(), SERVER, PORT), "through the gateway");
    assertEquals(PLAIN, EchoServer.sourceSeen(plain.netns(), SERVER, PORT), "a pod not opted in");
    assertEquals(
        CLIENT, EchoServer.sourceSeen(client.netns(), OTHER, PORT), "outside the destinations");
    // the reply came back through the tunnel: the client's tunnel device received it
    var rx =
        node.topology().nodes().stream()
            .filter(n -> n == client)
            .findFirst()
            .orElseThrow()
            .exec(
                "cat", "/sys/class/net/" + EgressIds.clientDevice(vni) + "/statistics/rx_packets");
    assertTrue(Long.parseLong(rx.strip()) > 0, "replies decapsulated in the client: " + rx);
  }

  @Test
  void withoutAStaticAddressEachGatewayMasqueradesAndAStreamStaysOnOne() throws Exception {
    kubeProxy(GW1, GW2);
    gateway(gw1, null, List.of());
    gateway(gw2, null, List.of());
    clientTunnel(client, CLIENT, List.of(DESTINATIONS));

    // new flows are spread over both gateways (kube-proxy picks per outer UDP flow, and the
    // outer source port follows the inner flow's hash)
    var seen = new HashSet<String>();
    for (int i = 0; i < 40 && seen.size() < 2; i++) {
      seen.add(EchoServer.sourceSeen(client.netns(), SERVER, PORT));
    }
    assertEquals(Set.of(GW1, GW2), seen);

    // one stream: 200 exchanges, all through one gateway
    try (var stream = EchoServer.connect(client.netns(), SERVER, PORT, Duration.ofSeconds(3))) {
      var first = stream.ask();
      for (int i = 0; i < 200; i++) {
        assertEquals(first, stream.ask(), "exchange " + i + " of one stream");
      }
      // its gateway goes away (the pod is deleted; kube-proxy drops the endpoint)
      var gone = first.equals(GW1) ? gw1 : gw2;
      var stays = first.equals(GW1) ? GW2 : GW1;
      long t0 = System.nanoTime();
      // our own handles would keep the namespace (and its veth) alive
      for (var h : handles.remove(gone)) {
        h.close();
      }
      t.remove(gone);
      kubeProxy(stays);
      // new connections work through the other gateway
      await()
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(50))
          .ignoreExceptions()
          .until(() -> stays.equals(EchoServer.sourceSeen(client.netns(), SERVER, PORT)));
      long ms = (System.nanoTime() - t0) / 1_000_000;
      System.out.println(
          "egress fail-over: new connections through " + stays + " after " + ms + " ms");
      assertThrows(IOException.class, () -> stream.ask(), "the stream went with its gateway");
    }
  }

  @Test
  void theReversePathReachesTheMappedServiceAndNothingElse() throws Exception {
    kubeProxy(GW1);
    staticRoute(GW1);
    gateway(
        gw1,
        InetAddress.getByName(STATIC),
        List.of(new GatewayNat.Forward("tcp", 8080, InetAddress.getByName(WEB_CLUSTER_IP), 80)));
    // the outside reaches the static address on the declared port: the web pod answers (and sees
    // the gateway, which masqueraded the connection so that the answer comes back through it)
    assertEquals(GW1, EchoServer.sourceSeen(server.netns(), STATIC, 8080));
    // any other port is refused
    var refused =
        assertThrows(IOException.class, () -> EchoServer.sourceSeen(server.netns(), STATIC, 8081));
    assertTrue(refused instanceof java.net.ConnectException, "refused, not timed out: " + refused);
  }

  @Test
  void removingTheEgressLeavesNothingInTheClientOrTheGateway() throws Exception {
    kubeProxy(GW1);
    staticRoute(GW1);
    var gateway = gateway(gw1, InetAddress.getByName(STATIC), List.of());
    var nl = clientTunnel(client, CLIENT, List.of(DESTINATIONS, IpPrefix.parse("0.0.0.0/0")));
    assertEquals(STATIC, EchoServer.sourceSeen(client.netns(), SERVER, PORT));
    // what was made, as `ip` shows it
    assertTrue(
        client
            .exec("ip", "-d", "link", "show", EgressIds.clientDevice(vni))
            .contains("vxlan id " + vni));
    assertTrue(client.exec("ip", "rule").contains("lookup 117"));
    assertTrue(
        client
            .exec("ip", "route", "show", "table", "118")
            .contains("default via " + EGRESS_CLUSTER_IP));

    ClientTunnels.apply(nl, InetAddress.getByName(CLIENT), UPLINK, List.of());
    assertFalse(client.exec("ip", "link").contains("egr"), client.exec("ip", "link"));
    assertEquals("", client.exec("ip", "route", "show", "table", "117").strip());
    assertEquals("", client.exec("ip", "route", "show", "table", "118").strip());
    assertFalse(client.exec("ip", "rule").contains("proto 51"));
    for (var rule : client.exec("ip", "rule").strip().split("\n")) {
      assertTrue(
          rule.matches("\\d+:\\s+from all lookup (local|main|default)\\s*"),
          "only the kernel's rules are left: " + rule);
    }
    // and the client is back on its own address
    assertEquals(CLIENT, EchoServer.sourceSeen(client.netns(), SERVER, PORT));

    gateway.clients(Set.of());
    assertEquals("", gw1.exec("ip", "route", "show", "table", "118").strip());
    assertEquals("", gw1.exec("bridge", "fdb", "show", "dev", EgressIds.GATEWAY_DEVICE).strip());
    gateway.tearDown();
    EgressTopology.nat(gw1).remove();
    assertFalse(gw1.exec("ip", "link").contains(EgressIds.GATEWAY_DEVICE));
    assertFalse(gw1.exec("ip", "rule").contains("lookup 118"));
    assertEquals("", gw1.exec("nft", "list", "ruleset").strip());
  }
}
