package dev.sart.agent.egress;

import static dev.sart.agent.egress.EgressTopology.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.net.IpPrefix;
import dev.sart.testbed.Node;
import dev.sart.testbed.Testbed;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An IPv6-only cluster on the real kernel: the egress Service's ClusterIP is IPv6, the client and
 * gateway pods have only IPv6 addresses, so the VXLAN tunnel runs over an IPv6 underlay (RFC 7348
 * §5: the outer header may be IPv6) and the client MAC comes from the pod's IPv6 address.
 */
class EgressIpv6OnlyTest {
  @RegisterExtension final Testbed testbed = new Testbed();

  private EgressTopology x;
  private Node client;
  private Node gw;
  private final List<AutoCloseable> closing = new ArrayList<>();
  private final int vni = VNI;

  @BeforeEach
  void topology() {
    x = new EgressTopology(testbed.topology());
    closing.add(x);
    x.ipv6();
    client = x.pod6("client6", CLIENT6_ONLY);
    gw = x.pod6("gw6", GW6_ONLY);
    x.kubeProxy6(GW6_ONLY);
  }

  @AfterEach
  void close() throws Exception {
    for (var c : closing.reversed()) {
      c.close();
    }
  }

  private static void assertSame(String expected, String seen, String what) throws Exception {
    assertEquals(InetAddress.getByName(expected), InetAddress.getByName(seen), what + ": " + seen);
  }

  @Test
  void anIpv6OnlyPodReachesTheServerThroughTheGatewayOverAnIpv6Underlay() throws Exception {
    var tunnel = x.gatewayTunnel(gw);
    tunnel.clients(Map.of(InetAddress.getByName(CLIENT6_ONLY), List.of()));
    EgressTopology.nat(gw).apply(UPLINK, null, List.of());

    var podAddress = InetAddress.getByName(CLIENT6_ONLY);
    var nl = x.clientTunnels(client, CLIENT6_ONLY, EGRESS_CLUSTER_IP6, List.of(DESTINATIONS6));

    assertSame(GW6_ONLY, EchoServer.sourceSeen(client.netns(), SERVER6, PORT), "through");
    assertSame(
        CLIENT6_ONLY, EchoServer.sourceSeen(client.netns(), OTHER6, PORT), "outside: direct");
    // what carried it: a VXLAN device to the IPv6 ClusterIP, the MAC not from an IPv4 address
    var device = client.exec("ip", "-d", "link", "show", EgressIds.clientDevice(vni));
    assertTrue(device.contains("remote " + EGRESS_CLUSTER_IP6), device);
    var mac = EgressIds.clientMac(podAddress).toString();
    assertTrue(device.contains("link/ether " + mac), device);
    assertTrue(mac.startsWith("06:"), mac);
    var gwDevice = gw.exec("ip", "-d", "link", "show", EgressIds.GATEWAY_DEVICE6);
    assertTrue(gwDevice.contains("local " + GW6_ONLY), gwDevice);
    var fdb = gw.exec("bridge", "fdb", "show", "dev", EgressIds.GATEWAY_DEVICE6);
    assertTrue(fdb.contains(mac + " dst " + CLIENT6_ONLY), fdb);
    assertTrue(
        gw.exec("ip", "-6", "route", "show", "table", "118")
            .contains(CLIENT6_ONLY + " dev " + EgressIds.GATEWAY_DEVICE6));

    // clean-up: nothing of ours left at either end
    ClientTunnels.apply(nl, podAddress, UPLINK, List.of());
    assertFalse(client.exec("ip", "link").contains("egr"));
    for (var family : List.of("-4", "-6")) {
      for (var rule : client.exec("ip", family, "rule").strip().split("\n")) {
        assertTrue(
            rule.matches("\\d+:\\s+from all lookup (local|main|default)\\s*"),
            "only the kernel's rules are left (" + family + "): " + rule);
      }
    }
    assertSame(CLIENT6_ONLY, EchoServer.sourceSeen(client.netns(), SERVER6, PORT), "direct");
    tunnel.clients(Map.of());
    assertEquals("", gw.exec("ip", "-6", "route", "show", "table", "118").strip());
    assertEquals(
        "",
        gw.exec("bridge", "fdb", "show", "dev", EgressIds.GATEWAY_DEVICE6)
            .strip()
            .lines()
            .filter(l -> l.contains("dst"))
            .reduce("", String::concat));
    tunnel.tearDown();
    EgressTopology.nat(gw).remove();
    assertFalse(gw.exec("ip", "link").contains("egress"));
    assertEquals("", gw.exec("nft", "list", "ruleset").strip());
  }

  @Test
  void aDualStackPodWithAnIpv6ServiceIsSkippedNotHalfMade() throws Exception {
    // the tunnel's underlay must be the Service's family; an IPv4 pod address cannot carry it
    x.clientTunnels(
        x.plain, PLAIN, EGRESS_CLUSTER_IP6, List.of(DESTINATIONS6, IpPrefix.parse("::/0")));
    assertFalse(x.plain.exec("ip", "link").contains("egr"));
    assertFalse(x.plain.exec("ip", "-6", "rule").contains("proto 51"));
  }
}
