package dev.sart.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.testbed.Frr;
import dev.sart.testbed.Node;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * BGP unnumbered (RFC 8950) between {@code sartd bgp} + {@code sartd fib} and FRR on two links that
 * have no address but their IPv6 link-local ones:
 *
 * <pre>
 *   sart (AS 65001, lo 198.51.100.1) eth1 ──── eth1 FRR (AS 65002, lo 203.0.113.1)
 *                                    eth2 ──── eth2
 * </pre>
 *
 * <p>Both sides name the neighbour by interface with {@code remote-as external}. FRR's zebra learns
 * our link-local address from our Router Advertisements, we learn FRR's from its own. IPv4 routes
 * go both ways with IPv6 link-local next hops; {@code sartd fib} installs FRR's as one ECMP route
 * via both link-local addresses (RTA_VIA); sart's kernel forwards an IPv4 ping by it, and with one
 * link down the other carries it.
 */
class UnnumberedFabricTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String OURS = "198.51.100.1";
  private static final String THEIRS = "203.0.113.1";

  @RegisterExtension final Testbed testbed = new Testbed();

  private static final String FIB_CONFIG =
      """
      endpoint: 127.0.0.1:5001
      channels:
        - name: bgp-to-kernel
          ip_version: ipv4
          subscribers:
            - protocol: bgp
              endpoint: 127.0.0.1:5000
          publishers:
            - protocol: kernel
              tables: [254]
      """;

  @Test
  void ipv4OverLinkLocalNextHopsOnTwoLinksAndOneLinkDown() throws Exception {
    Topology t = testbed.topology();
    Node sart = t.node("sart");
    Node r = t.node("frr");
    t.link(sart, r); // eth1 each
    t.link(sart, r); // eth2 each
    sart.address("lo", OURS + "/32");
    r.address("lo", THEIRS + "/32");

    Frr frr = new Frr(r, RouterConfig.of(65002, "192.0.2.2").originate(THEIRS + "/32"));
    frr.start();
    frr.vtysh(
        "configure terminal",
        "router bgp 65002",
        "neighbor eth1 interface remote-as external",
        "neighbor eth2 interface remote-as external",
        "address-family ipv4 unicast",
        "neighbor eth1 activate",
        "neighbor eth2 activate",
        "exit-address-family",
        "address-family ipv6 unicast",
        "neighbor eth1 activate",
        "neighbor eth2 activate",
        "exit-address-family");

    Path config = sart.dir().resolve("sartd.yaml");
    Files.writeString(
        config,
        """
        asn: 65001
        router_id: %s
        multi_path: true
        neighbors:
          - {interface: eth1, remote_as: external, hold_time: 3, connect_retry_time: 1}
          - {interface: eth2, remote_as: external, hold_time: 3, connect_retry_time: 1}
        paths:
          - prefixes: [%s/32]
        """
            .formatted(OURS, OURS));
    SartdNode speaker = SartdNode.start(sart, "-f", config.toString());
    FibNode.start(sart, FIB_CONFIG, "sartd-fib");

    // both sessions up, on FRR's side as on ours
    await("FRR's two unnumbered sessions")
        .atMost(Duration.ofSeconds(90))
        .until(() -> established(frr) == 2);
    String neighbors = speaker.cli("bgp", "neighbor", "list");
    assertTrue(neighbors.contains("fe80:"), neighbors);

    // IPv4 sart → FRR: our route at FRR with our link-local next hop
    await("our route at FRR")
        .atMost(Duration.ofSeconds(30))
        .until(() -> frrPaths(frr, OURS + "/32") == 2);
    JsonNode path =
        JSON.readTree(frr.vtysh("show bgp ipv4 unicast " + OURS + "/32 json")).path("paths").get(0);
    String hop = path.path("nexthops").get(0).path("ip").asText();
    assertTrue(hop.startsWith("fe80:"), path.toString());

    // IPv4 FRR → sart: one ECMP route in sart's kernel, via both of FRR's link-local addresses
    await("FRR's route in our kernel, over both links")
        .atMost(Duration.ofSeconds(30))
        .until(() -> kernelDevices(sart).equals(Set.of("eth1", "eth2")));
    JsonNode route = kernelRoute(sart);
    System.out.println("kernel route: " + route + "\nFRR path: " + path + "\n" + neighbors);
    for (JsonNode nh : route.path("nexthops")) {
      assertEquals("inet6", nh.path("via").path("family").asText(), route.toString());
      assertTrue(nh.path("via").path("host").asText().startsWith("fe80:"), route.toString());
    }

    // the kernel forwards an IPv4 ping by it (and FRR's kernel answers by our route)
    await("ping " + THEIRS).atMost(Duration.ofSeconds(20)).until(() -> ping(sart));

    // one link down: the session on it ends (3 s hold time), its next hop goes, eth2 carries it
    sart.exec("ip", "link", "set", "eth1", "down");
    await("only eth2 left")
        .atMost(Duration.ofSeconds(30))
        .until(() -> kernelDevices(sart).equals(Set.of("eth2")));
    await("ping over eth2").atMost(Duration.ofSeconds(20)).until(() -> ping(sart));
  }

  private static boolean ping(Node sart) {
    return sart.tryExec("ping", "-n", "-c", "2", "-i", "0.2", "-W", "1", "-I", OURS, THEIRS).ok();
  }

  private static int established(Frr frr) throws Exception {
    int n = 0;
    for (var e : JSON.readTree(frr.vtysh("show bgp neighbors json")).properties()) {
      if ("Established".equals(e.getValue().path("bgpState").asText())) {
        n++;
      }
    }
    return n;
  }

  private static int frrPaths(Frr frr, String prefix) throws Exception {
    return JSON.readTree(frr.vtysh("show bgp ipv4 unicast " + prefix + " json"))
        .path("paths")
        .size();
  }

  /** Our kernel's route to FRR's address ({@code ip -j route show}), or an empty node. */
  private static JsonNode kernelRoute(Node sart) throws Exception {
    String out = sart.exec("ip", "-j", "route", "show", THEIRS + "/32").strip();
    JsonNode routes = JSON.readTree(out.isEmpty() ? "[]" : out);
    return routes.isEmpty() ? JSON.createObjectNode() : routes.get(0);
  }

  /** The interfaces of the route's next hops (one, or several for ECMP). */
  private static Set<String> kernelDevices(Node sart) throws Exception {
    JsonNode r = kernelRoute(sart);
    Set<String> devs = new TreeSet<>();
    if (r.has("dev")) {
      devs.add(r.get("dev").asText());
    }
    for (JsonNode nh : r.path("nexthops")) {
      if (!nh.path("flags").toString().contains("linkdown")) {
        devs.add(nh.path("dev").asText());
      }
    }
    return devs;
  }
}
