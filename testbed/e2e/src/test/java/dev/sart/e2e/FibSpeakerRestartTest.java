package dev.sart.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sart.fib.netlink.Family;
import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.Netns;
import dev.sart.fib.netlink.Route;
import dev.sart.fib.netlink.RouteFilter;
import dev.sart.testbed.Frr;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The FIB against a speaker that restarts: the routes stay while it is away, and the new snapshot
 * replaces them (prefixes it no longer has are removed). And kernel → BGP: a route put into table
 * 130 is originated by the speaker through AddPath (FRR receives it), again after the speaker's
 * restart, and withdrawn when it leaves the table.
 */
class FibSpeakerRestartTest {
  private static final int TABLE = 120;

  @RegisterExtension final Testbed testbed = new Testbed();

  /** 198.51.100.0/24 in 64 /30s. */
  private static List<String> prefixes() {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      out.add("198.51.100." + (i * 4) + "/30");
    }
    return out;
  }

  private static Set<String> installed(Node node) {
    Set<String> out = new TreeSet<>();
    try (Netns ns = Netns.named(node.netns());
        Netlink nl = Netlink.open(ns)) {
      for (Route r :
          nl.routes().list(RouteFilter.ALL.family(Family.INET).table(TABLE).protocol(186))) {
        out.add(r.destination().toString());
      }
    }
    return out;
  }

  private static final String FIB_CONFIG =
      """
      channels:
        - name: bgp-to-kernel
          ip_version: ipv4
          subscribers: [{protocol: bgp, endpoint: 127.0.0.1:5000}]
          publishers: [{protocol: kernel, tables: [120]}]
        - name: kernel-to-bgp
          ip_version: ipv4
          subscribers: [{protocol: kernel, tables: [130]}]
          publishers: [{protocol: bgp, endpoint: 127.0.0.1:5000}]
      """;

  @Test
  void aRestartedSpeakersSnapshotReplacesItsRoutesAndGetsOurRoutesAgain() throws IOException {
    Topology t = testbed.topology();
    Node s = t.node("sart");
    Node r = t.node("frr");
    t.link(s, r).addresses("192.0.2.1/24", "192.0.2.10/24");
    Path bgpConfig = s.dir().resolve("sartd.yaml");
    Files.writeString(
        bgpConfig,
        """
        asn: 65001
        router_id: 192.0.2.1
        neighbors:
          - {asn: 65000, address: 192.0.2.10}
        """);
    // both sides connect: a restarted speaker meets connection collisions (RFC 4271 §6.8), which
    // once left it Idle while the surviving session delivered FRR's routes and never got ours
    List<String> prefixes = prefixes();
    SartdNode sart = SartdNode.start(s, "-f", bgpConfig.toString());
    Frr frr =
        Frr.withoutZebra(
            r,
            RouterConfig.of(65000, "192.0.2.10")
                .neighbor(Neighbor.of("192.0.2.1", 65001))
                .originate(prefixes.toArray(String[]::new)));
    frr.start();
    FibNode.start(s, FIB_CONFIG, "sartd-fib");
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> installed(s).equals(new TreeSet<>(prefixes)));

    // kernel → BGP: FRR learns a route of table 130 from sart
    s.exec("ip", "route", "add", "203.0.113.0/24", "via", "192.0.2.10", "table", "130");
    frr.awaitRoute("203.0.113.0/24");

    // the speaker crashes; FRR withdraws the upper half meanwhile; the FIB keeps the routes
    ProcessHandle.of(sart.process.pid()).ifPresent(ProcessHandle::destroyForcibly);
    await().atMost(Duration.ofSeconds(10)).until(() -> !sart.process.isAlive());
    frr.vtysh(
        "configure terminal",
        "ip prefix-list UPPER seq 5 permit 198.51.100.128/25 le 32",
        "route-map OUT deny 10",
        "match ip address prefix-list UPPER",
        "exit",
        "route-map OUT permit 20",
        "exit",
        "router bgp 65000",
        "address-family ipv4 unicast",
        "neighbor 192.0.2.1 route-map OUT out");
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(5))
        .until(() -> installed(s).size() == prefixes.size());

    // the new speaker's snapshot replaces what the old one had
    SartdNode sart2 = SartdNode.startAs(s, "sartd-2", "-f", bgpConfig.toString());
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> installed(s).equals(new TreeSet<>(prefixes.subList(0, 32))));
    // and it originates our kernel route again (first in its RIB: the FIB's part; then at FRR: the
    // speaker's)
    await("AddPath again after the restart")
        .atMost(Duration.ofSeconds(60))
        .until(() -> !sart2.paths("ipv4", "203.0.113.0/24").isEmpty());
    frr.awaitRoute("203.0.113.0/24");
    s.exec("ip", "route", "del", "203.0.113.0/24", "table", "130");
    frr.awaitNoRoute("203.0.113.0/24");
    assertEquals(32, installed(s).size());
  }
}
