package dev.sart.agent.egress;

import static dev.sart.agent.egress.EgressTopology.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.sart.crds.TunnelMode;
import dev.sart.fib.netlink.GenericNetlink;
import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.Netns;
import dev.sart.net.IpPrefix;
import dev.sart.testbed.Node;
import dev.sart.testbed.Testbed;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The FoU data path against this kernel, which has no {@code fou}, {@code ipip} or {@code
 * ip6_tunnel} module (issue 26): each request is really sent and refused, the error says what is
 * missing and what to do, and nothing half-made is left (asserted with {@code ip}). Where the
 * modules exist these tests are skipped: nothing here could check a working FoU tunnel.
 */
class FouTunnelTest {
  @RegisterExtension final Testbed testbed = new Testbed();

  private EgressTopology x;
  private final List<AutoCloseable> closing = new ArrayList<>();

  @BeforeEach
  void topology() {
    assumeFalse(Files.isDirectory(Path.of("/sys/module/fou")), "this kernel has fou");
    x = new EgressTopology(testbed.topology());
    closing.add(x);
  }

  @AfterEach
  void close() throws Exception {
    for (var c : closing.reversed()) {
      c.close();
    }
  }

  private <T extends AutoCloseable> T closing(T c) {
    closing.add(c);
    return c;
  }

  @Test
  void theGatewayRefusesFouNamingTheModuleAndLeavesNothing() throws Exception {
    var ns = closing(Netns.named(x.gw1.netns()));
    var nl = closing(Netlink.open(ns));
    var genl = closing(GenericNetlink.open(ns));
    var tunnel = new FouGatewayTunnel(nl, genl, UPLINK, 5555, true);
    var e =
        assertThrows(
            IllegalStateException.class,
            () ->
                ns.run(
                    () -> {
                      tunnel.setUp();
                      return null;
                    }));
    assertEquals(
        "FoU: this kernel has no fou module (generic netlink family \"fou\" not found);"
            + " use tunnel: vxlan in the Egress, or a kernel with fou, ipip and ip6_tunnel",
        e.getMessage());
    assertNothingOfOurs(x.gw1);
    tunnel.tearDown(); // and tearing down what is not there is quiet
    assertNothingOfOurs(x.gw1);
  }

  @Test
  void anIpipLinkWithFouEncapsulationIsRefusedNamingTheModule() throws Exception {
    var ns = closing(Netns.named(x.client.netns()));
    var nl = closing(Netlink.open(ns));
    var e =
        assertThrows(
            IllegalStateException.class,
            () ->
                Fou.link(
                    nl,
                    EgressIds.fouDevice(InetAddress.getByName(EGRESS_CLUSTER_IP)),
                    InetAddress.getByName(CLIENT),
                    InetAddress.getByName(EGRESS_CLUSTER_IP),
                    0,
                    5555,
                    1500));
    assertEquals(
        "FoU: this kernel has no ipip module (link kind ipip unknown); use tunnel: vxlan in the"
            + " Egress",
        e.getMessage());
    var v6 = assertThrows(IllegalStateException.class, () -> Fou.receiver(nl, true, 5555, 1500));
    assertTrue(
        v6.getMessage().startsWith("FoU: this kernel has no ip6_tunnel module"), v6.getMessage());
    assertNothingOfOurs(x.client);
  }

  @Test
  void aClientsFouEgressFailsAloneAndTheVxlanOneBesideItIsMade() throws Exception {
    var ns = closing(Netns.named(x.client.netns()));
    var nl = closing(Netlink.open(ns));
    var genl = closing(GenericNetlink.open(ns));
    var peer = InetAddress.getByName(EGRESS_CLUSTER_IP);
    var vxlan = new ClientEgress("internet-egress", "nat", peer, 4789, List.of(DESTINATIONS));
    var fou =
        new ClientEgress(
            "internet-egress",
            "fou",
            InetAddress.getByName("192.0.2.102"),
            5555,
            List.of(IpPrefix.parse(OTHER + "/32")),
            TunnelMode.FOU,
            true);
    var e =
        assertThrows(
            IllegalStateException.class,
            () ->
                ClientTunnels.apply(
                    nl, () -> genl, InetAddress.getByName(CLIENT), UPLINK, List.of(vxlan, fou)));
    assertTrue(e.getMessage().startsWith("FoU: this kernel has no fou module"), e.getMessage());
    // the VXLAN Egress is set up, nothing of the FoU one: no device, no route, no peer rule
    assertTrue(x.client.exec("ip", "link").contains(EgressIds.clientDevice(vxlan.vni())));
    var table117 = x.client.exec("ip", "route", "show", "table", "117");
    assertTrue(table117.contains(DESTINATIONS.toString()), table117);
    assertFalse(table117.contains(OTHER), table117);
    assertFalse(x.client.exec("ip", "rule").contains("192.0.2.102"));
    assertFalse(x.client.exec("ip", "-d", "link").contains("ipip"));
    assertFalse(x.client.exec("ip", "link").contains("fou"));
    // the VXLAN tunnel works (kube-proxy sends it to the first gateway)
    x.kubeProxy(GW1);
    var gwNs = closing(Netns.named(x.gw1.netns()));
    var gwNl = closing(Netlink.open(gwNs));
    var gateway = new GatewayTunnel(gwNl, UPLINK, vxlan.vni(), 4789);
    gwNs.run(
        () -> {
          gateway.setUp();
          return null;
        });
    gateway.clients(Map.of(InetAddress.getByName(CLIENT), List.of()));
    EgressTopology.nat(x.gw1).apply(UPLINK, null, List.of());
    assertEquals(GW1, EchoServer.sourceSeen(x.client.netns(), SERVER, PORT));
    // nothing wanted: all gone
    ClientTunnels.apply(nl, () -> genl, InetAddress.getByName(CLIENT), UPLINK, List.of());
    assertNothingOfOurs(x.client);
  }

  private static void assertNothingOfOurs(Node pod) {
    var links = pod.exec("ip", "-d", "link");
    assertFalse(links.contains("fou"), links);
    assertFalse(links.contains("ipip"), links);
    assertFalse(links.contains("ip6tnl"), links);
    assertFalse(links.contains("vxlan"), links);
    for (var family : List.of("-4", "-6")) {
      for (var rule : pod.exec("ip", family, "rule").strip().split("\n")) {
        assertTrue(
            rule.matches("\\d+:\\s+from all lookup (local|main|default)\\s*"),
            "only the kernel's rules are left: " + rule);
      }
      var routes = pod.exec("ip", family, "route", "show", "table", "all");
      assertFalse(routes.contains("table 117") || routes.contains("table 118"), routes);
    }
  }
}
