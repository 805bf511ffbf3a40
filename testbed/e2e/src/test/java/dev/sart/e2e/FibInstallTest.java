package dev.sart.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.fib.netlink.Family;
import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.Netns;
import dev.sart.fib.netlink.NextHop;
import dev.sart.fib.netlink.Route;
import dev.sart.fib.netlink.RouteFilter;
import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import dev.sart.testbed.Frr;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code sartd fib} installing what {@code sartd bgp} learned from FRR into a kernel table of the
 * speaker's namespace: 1,022 IPv4 and 10,000 IPv6 prefixes, ECMP once a second FRR announces the
 * same ones, withdrawals, and crash/restart convergence. Oracles: a netlink dump and {@code ip -j
 * route}.
 *
 * <p>The issue asks for 10,000 IPv4 prefixes, but every address and prefix of a test must come from
 * the documentation ranges, and the two IPv4 /24s the links do not use (198.51.100.0/24 and
 * 203.0.113.0/24) hold 1,022 prefixes of length 24..32: those are all announced, nested ones
 * included, and the count is made up with IPv6 /64s of 2001:db8:100::/48.
 */
class FibInstallTest {
  private static final int V4 = 1_022;
  private static final int V6 = 10_000;
  private static final int TABLE = 120;
  private static final int PROTOCOL = 186;
  private static final Duration CONVERGE = Duration.ofSeconds(90);

  @RegisterExtension final Testbed testbed = new Testbed();

  private static List<String> prefixes() {
    List<String> out = new ArrayList<>();
    for (String net : List.of("198.51.100.", "203.0.113.")) {
      for (int len = 24; len <= 32; len++) {
        int step = 1 << (32 - len);
        for (int host = 0; host < 256; host += step) {
          out.add(net + host + "/" + len);
        }
      }
    }
    if (out.size() != V4) {
      throw new AssertionError("IPv4 prefixes: " + out.size());
    }
    for (int i = 0; i < V6; i++) {
      // as the kernel and the speaker print it (RFC 5952: 2001:db8:100::/64 for i = 0)
      out.add(IpPrefix.parse("2001:db8:100:" + Integer.toHexString(i) + "::/64").toString());
    }
    return out;
  }

  private Frr frr(Node node, String v4, String v6, String routerId, List<String> prefixes) {
    RouterConfig c =
        RouterConfig.of(65000, routerId)
            .neighbor(Neighbor.of("192.0.2.1", 65001))
            .neighbor(Neighbor.of("2001:db8::1", 65001))
            .originate(prefixes.toArray(String[]::new));
    Frr f = Frr.withoutZebra(node, c);
    f.start();
    return f;
  }

  /**
   * FRR stops announcing everything to sart (an outbound deny-all route-map): withdrawals on the
   * wire.
   */
  private static void withdrawAll(Frr f) {
    f.vtysh(
        "configure terminal",
        "route-map DENY-ALL deny 10",
        "exit",
        "router bgp 65000",
        "address-family ipv4 unicast",
        "neighbor 192.0.2.1 route-map DENY-ALL out",
        "exit-address-family",
        "address-family ipv6 unicast",
        "neighbor 2001:db8::1 route-map DENY-ALL out",
        "exit-address-family");
    f.vtysh("clear bgp ipv4 unicast 192.0.2.1 soft out");
    f.vtysh("clear bgp ipv6 unicast 2001:db8::1 soft out");
  }

  /** destination → sorted gateways, of our protocol in TABLE, as this library's dump shows it. */
  private static Map<String, String> dump(Node node) {
    Map<String, String> out = new TreeMap<>();
    try (Netns ns = Netns.named(node.netns());
        Netlink nl = Netlink.open(ns)) {
      for (Family f : Family.values()) {
        for (Route r :
            nl.routes().list(RouteFilter.ALL.family(f).table(TABLE).protocol(PROTOCOL))) {
          TreeSet<String> gws = new TreeSet<>();
          r.nextHops().stream().map(NextHop::gateway).forEach(g -> gws.add(Ip.format(g)));
          out.put(r.destination().toString(), "m" + r.metric() + " " + String.join(",", gws));
        }
      }
    }
    return out;
  }

  /** The same from {@code ip -j route show table 120 proto 186}. */
  private static Map<String, String> ip(Node node) {
    Map<String, String> out = new TreeMap<>();
    for (String fam : List.of("-4", "-6")) {
      JsonNode routes;
      try {
        String text =
            node.exec(
                    "ip",
                    "-N",
                    fam,
                    "-j",
                    "route",
                    "show",
                    "table",
                    Integer.toString(TABLE),
                    "proto",
                    Integer.toString(PROTOCOL))
                .strip();
        routes = new ObjectMapper().readTree(text.isEmpty() ? "[]" : text);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      for (JsonNode r : routes) {
        TreeSet<String> gws = new TreeSet<>();
        if (r.has("gateway")) {
          gws.add(r.get("gateway").asText());
        }
        r.path("nexthops").forEach(h -> gws.add(h.get("gateway").asText()));
        String dst = r.get("dst").asText(); // ip prints a host route without its length
        if (!dst.contains("/")) {
          dst += dst.contains(":") ? "/128" : "/32";
        }
        out.put(dst, "m" + r.path("metric").asInt() + " " + String.join(",", gws));
      }
    }
    return out;
  }

  private static Map<String, String> expect(
      List<String> prefixes, String v4Gateways, String v6Gateways) {
    Map<String, String> out = new TreeMap<>();
    // eBGP: distance 20 is the metric
    prefixes.forEach(p -> out.put(p, "m20 " + (p.contains(":") ? v6Gateways : v4Gateways)));
    return out;
  }

  private static void awaitTable(Node node, Map<String, String> expected) {
    await()
        .atMost(CONVERGE)
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> assertEquals("", diff(expected, dump(node)), "netlink dump of table " + TABLE));
    assertEquals("", diff(expected, ip(node)), "ip -j route show table " + TABLE);
  }

  /** "" when equal, else the sizes and the first differences (11,000 routes do not print well). */
  private static String diff(Map<String, String> expected, Map<String, String> actual) {
    if (expected.equals(actual)) {
      return "";
    }
    List<String> d = new ArrayList<>();
    TreeSet<String> keys = new TreeSet<>(expected.keySet());
    keys.addAll(actual.keySet());
    for (String k : keys) {
      if (!java.util.Objects.equals(expected.get(k), actual.get(k))) {
        d.add(k + ": want " + expected.get(k) + ", have " + actual.get(k));
      }
    }
    return "want "
        + expected.size()
        + " routes, have "
        + actual.size()
        + "; "
        + d.size()
        + " differ, e.g. "
        + d.subList(0, Math.min(5, d.size()));
  }

  private static String speakerConfig() {
    return """
        asn: 65001
        router_id: 192.0.2.1
        multi_path: true
        neighbors:
          - {asn: 65000, address: 192.0.2.10, connect_retry_time: 1}
          - {asn: 65000, address: "2001:db8::10", connect_retry_time: 1}
          - {asn: 65000, address: 192.0.2.11, connect_retry_time: 1}
          - {asn: 65000, address: "2001:db8::11", connect_retry_time: 1}
        """;
  }

  private static final String FIB_CONFIG =
      """
      endpoint: 127.0.0.1:5001
      channels:
        - name: bgp-to-kernel
          subscribers:
            - protocol: bgp
              endpoint: 127.0.0.1:5000
          publishers:
            - protocol: kernel
              tables: [120]
      """;

  @Test
  void installsEcmpWithdrawsAndConvergesAfterACrash() throws IOException {
    Topology t = testbed.topology();
    Node lan = t.bridge("lan");
    Node s = t.node("sart");
    Node r1 = t.node("frr1");
    Node r2 = t.node("frr2");
    t.attach(s, lan).a().address("eth1", "192.0.2.1/24").address("eth1", "2001:db8::1/64");
    t.attach(r1, lan).a().address("eth1", "192.0.2.10/24").address("eth1", "2001:db8::10/64");
    t.attach(r2, lan).a().address("eth1", "192.0.2.11/24").address("eth1", "2001:db8::11/64");
    Path bgpConfig = s.dir().resolve("sartd.yaml");
    Files.writeString(bgpConfig, speakerConfig());
    SartdNode sart = SartdNode.start(s, "-f", bgpConfig.toString());
    FibNode fib = FibNode.start(s, FIB_CONFIG, "sartd-fib");
    List<String> prefixes = prefixes();

    // one router: every prefix through it
    Frr frr1 = frr(r1, "192.0.2.10", "2001:db8::10", "192.0.2.10", prefixes);
    awaitTable(s, expect(prefixes, "192.0.2.10", "2001:db8::10"));

    // a second router announcing the same: ECMP, one multipath route per prefix
    Frr frr2 = frr(r2, "192.0.2.11", "2001:db8::11", "192.0.2.11", prefixes);
    Map<String, String> ecmp =
        expect(prefixes, "192.0.2.10,192.0.2.11", "2001:db8::10,2001:db8::11");
    awaitTable(s, ecmp);
    String metrics = fib.metrics();
    assertTrue(
        metrics.contains(
            "sart_fib_routes_installed{channel=\"bgp-to-kernel\",table=\"120\"} "
                + (V4 + V6)
                + ".0"),
        metrics);
    JsonNode routes = sart.json("fib", "channel", "route", "bgp-to-kernel").get("routes");
    assertEquals(V4 + V6, routes.size(), "sart fib channel route");
    assertEquals(2, routes.get(0).get("nextHops").size());

    // a crash and a restart converge to the same table
    fib.kill();
    fib = FibNode.start(s, FIB_CONFIG, "sartd-fib-2");
    awaitTable(s, ecmp);
    assertTrue(
        fib.metrics()
            .contains(
                "sart_fib_reconcile_runs_total{channel=\"bgp-to-kernel\",table=\"120\"} 1.0"));

    // the second router withdraws: the routes go back to one next hop
    withdrawAll(frr2);
    awaitTable(s, expect(prefixes, "192.0.2.10", "2001:db8::10"));

    // a crash, then the first router withdraws while the FIB is down: the restart removes them all
    fib.kill();
    withdrawAll(frr1);
    await().atMost(CONVERGE).until(() -> sart.paths("ipv4", prefixes.getFirst()).isEmpty());
    FibNode.start(s, FIB_CONFIG, "sartd-fib-3");
    awaitTable(s, Map.of());
  }
}
