package dev.sart.agent.egress;

import static dev.sart.agent.egress.EgressTopology.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.fib.netlink.Netlink;
import dev.sart.net.IpPrefix;
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
 * IPv6 through the egress tunnel on the real kernel (issue 26: destinations are v4 and v6): a
 * dual-stack client pod's IPv6 packets ride the same VXLAN device over the IPv4 underlay to the
 * gateway, which SNATs them with {@code ip6 sart_egress}; the IPv6 servers report the source they
 * see. Same topology as {@link EgressDataPathTest}, made dual-stack ({@link EgressTopology#ipv6}).
 */
class EgressIpv6Test {
  @RegisterExtension final Testbed testbed = new Testbed();

  private EgressTopology x;
  private final List<AutoCloseable> closing = new ArrayList<>();
  private final int vni = VNI;

  @BeforeEach
  void topology() {
    x = new EgressTopology(testbed.topology());
    closing.add(x);
    x.ipv6();
    x.kubeProxy(GW1);
  }

  @AfterEach
  void close() throws Exception {
    for (var c : closing.reversed()) {
      c.close();
    }
  }

  private GatewayTunnel gateway(InetAddress source) throws Exception {
    var tunnel = x.gatewayTunnel(x.gw1);
    tunnel.clients(Map.of(InetAddress.getByName(CLIENT), List.of(InetAddress.getByName(CLIENT6))));
    EgressTopology.nat(x.gw1).apply(UPLINK, source, List.of());
    return tunnel;
  }

  private Netlink client(List<IpPrefix> destinations) throws Exception {
    return x.clientTunnels(x.client, CLIENT, EGRESS_CLUSTER_IP, destinations);
  }

  /** The gateway's link-local next hop as {@code ip} prints it. */
  private String linkLocal() {
    return String.format("fe80::53:ff:fe%02x:%x", (vni >> 16) & 0xff, vni & 0xffff);
  }

  private static void assertSame(String expected, String seen, String what) throws Exception {
    assertEquals(InetAddress.getByName(expected), InetAddress.getByName(seen), what + ": " + seen);
  }

  @Test
  void aDualStackPodReachesAnIpv6ServerThroughTheGatewayAndOnlyForTheDestinations()
      throws Exception {
    // the static address is IPv4: IPv4 is SNATed to it, IPv6 masqueraded to the gateway's own
    x.node.exec("ip", "route", "replace", STATIC + "/32", "via", GW1);
    gateway(InetAddress.getByName(STATIC));
    client(List.of(DESTINATIONS, DESTINATIONS6));

    assertSame(GW1_6, EchoServer.sourceSeen(x.client.netns(), SERVER6, PORT), "through, IPv6");
    assertSame(STATIC, EchoServer.sourceSeen(x.client.netns(), SERVER, PORT), "through, IPv4");
    assertSame(
        CLIENT6, EchoServer.sourceSeen(x.client.netns(), OTHER6, PORT), "outside, IPv6: direct");
    assertSame(PLAIN6, EchoServer.sourceSeen(x.plain.netns(), SERVER6, PORT), "a pod not opted in");
    // what carried it, as `ip` shows it
    assertTrue(
        x.client
            .exec("ip", "-6", "route", "show", "table", "117")
            .contains(
                DESTINATIONS6 + " via " + linkLocal() + " dev " + EgressIds.clientDevice(vni)),
        x.client.exec("ip", "-6", "route", "show", "table", "117"));
    assertTrue(x.client.exec("ip", "-6", "rule").contains("lookup 117"));
    assertTrue(
        x.gw1.exec("ip", "-6", "route", "show", "table", "118").contains(CLIENT6 + " dev egress0"));
    assertTrue(x.gw1.exec("nft", "list", "table", "ip6", "sart_egress").contains("masquerade"));
  }

  @Test
  void anIpv6StaticAddressIsWhatTheIpv6ServerSees() throws Exception {
    x.node.exec("ip", "-6", "route", "replace", STATIC6 + "/128", "via", GW1_6);
    gateway(InetAddress.getByName(STATIC6));
    client(List.of(DESTINATIONS, DESTINATIONS6));

    assertSame(STATIC6, EchoServer.sourceSeen(x.client.netns(), SERVER6, PORT), "IPv6 static");
    assertSame(GW1, EchoServer.sourceSeen(x.client.netns(), SERVER, PORT), "IPv4 masqueraded");
  }

  @Test
  void removingTheEgressLeavesNoIpv6RuleRouteOrTable() throws Exception {
    var gateway = gateway(null);
    var nl = client(List.of(DESTINATIONS6, IpPrefix.parse("::/0")));
    assertSame(GW1_6, EchoServer.sourceSeen(x.client.netns(), SERVER6, PORT), "through");
    assertTrue(x.client.exec("ip", "-6", "route", "show", "table", "118").contains("default via"));

    ClientTunnels.apply(nl, InetAddress.getByName(CLIENT), UPLINK, List.of());
    assertFalse(x.client.exec("ip", "link").contains("egr"));
    assertEquals("", x.client.exec("ip", "-6", "route", "show", "table", "117").strip());
    assertEquals("", x.client.exec("ip", "-6", "route", "show", "table", "118").strip());
    for (var family : List.of("-4", "-6")) {
      for (var rule : x.client.exec("ip", family, "rule").strip().split("\n")) {
        assertTrue(
            rule.matches("\\d+:\\s+from all lookup (local|main|default)\\s*"),
            "only the kernel's rules are left (" + family + "): " + rule);
      }
    }
    assertSame(CLIENT6, EchoServer.sourceSeen(x.client.netns(), SERVER6, PORT), "direct again");

    gateway.clients(Map.of());
    assertEquals("", x.gw1.exec("ip", "-6", "route", "show", "table", "118").strip());
    assertFalse(x.gw1.exec("ip", "-6", "neigh", "show").contains(CLIENT6));
    gateway.tearDown();
    EgressTopology.nat(x.gw1).remove();
    assertFalse(x.gw1.exec("ip", "-6", "rule").contains("lookup 118"));
    assertEquals("", x.gw1.exec("nft", "list", "ruleset").strip());
  }
}
