package dev.sart.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.testbed.Frr;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code sartd bgp} serves Prometheus metrics: scraped over HTTP inside its node (as a Prometheus
 * on that host would) while it peers with FRR, and checked against what FRR says it sent.
 */
class SartdMetricsTest {
  private static final Pattern SAMPLE =
      Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*\\})? (\\S+)$");

  @RegisterExtension final Testbed testbed = new Testbed();

  @Test
  void metricsShowTheSessionItsMessagesAndItsPrefixes() {
    Topology t = testbed.topology();
    Node s = t.node("sart");
    Node p = t.node("peer");
    t.link(s, p).addresses("192.0.2.2/24", "192.0.2.1/24");
    SartdNode sart = SartdNode.start(s, "--as", "65001", "--router-id", "192.0.2.2");
    // three prefixes, one of which FRR sends with our AS in its path (a loop: received, not
    // accepted); FRR waits for sartd's connection, so that there is one OPEN each way (when both
    // connect at once, the collision (RFC 4271 §6.8) makes it two)
    Frr frr =
        new Frr(
            p,
            RouterConfig.of(65000, "192.0.2.1")
                .neighbor(Neighbor.of("192.0.2.2", 65001).asPassive())
                .originate("198.51.100.0/25", "198.51.100.128/25", "203.0.113.0/24"));
    frr.start();
    frr.vtysh(
        "configure terminal",
        "ip prefix-list LOOP seq 5 permit 203.0.113.0/24",
        "route-map OUT permit 10",
        "match ip address prefix-list LOOP",
        "set as-path prepend 65001",
        "exit",
        "route-map OUT permit 20",
        "exit",
        "router bgp 65000",
        "address-family ipv4 unicast",
        "neighbor 192.0.2.2 route-map OUT out");

    assertTrue(scrape(s, "/healthz").startsWith("ok"));
    String before = scrape(s, "/metrics");
    assertTrue(before.contains("jvm_memory_used_bytes"), "JVM metrics are served too");
    assertTrue(!before.contains("peer=\""), "no peer yet, no per-peer series");

    sart.cli("bgp", "neighbor", "add", "192.0.2.1", "65000", "--connect-retry-time", "1");
    sart.cli("bgp", "global", "rib", "add", "192.0.2.128/25");
    sart.awaitEstablished("192.0.2.1");
    frr.awaitRoute("192.0.2.128/25");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> sart.paths("ipv4", "198.51.100.128/25").size() == 1);

    String peer = "{afi=\"ipv4\",peer=\"192.0.2.1\",peer_asn=\"65000\",safi=\"unicast\"}";
    String labels = "{peer=\"192.0.2.1\",peer_asn=\"65000\"}";
    Map<String, Double> m = samples(scrape(s, "/metrics"));
    assertEquals(1.0, m.get("sart_bgp_session_up" + labels), m::toString);
    assertEquals(
        1.0,
        m.get(
            "sart_bgp_session_state{peer=\"192.0.2.1\",peer_asn=\"65000\",state=\"Established\"}"));
    assertEquals(
        0.0, m.get("sart_bgp_session_state{peer=\"192.0.2.1\",peer_asn=\"65000\",state=\"Idle\"}"));
    assertEquals(0.0, m.get("sart_bgp_session_flaps_total" + labels));

    // what FRR counts it sent and received is what sartd counts it received and sent
    var frrPeer = json(frr.vtysh("show bgp neighbors 192.0.2.2 json")).get("192.0.2.2");
    long frrUpdatesSent = frrPeer.path("messageStats").path("updatesSent").asLong();
    double updatesIn =
        m.get(
            "sart_bgp_messages_received_total{peer=\"192.0.2.1\",peer_asn=\"65000\",type=\"update\"}");
    assertTrue(
        updatesIn > 0 && updatesIn <= frrUpdatesSent,
        updatesIn + " UPDATEs counted, FRR sent " + frrUpdatesSent);
    assertEquals(
        1.0,
        m.get(
            "sart_bgp_messages_received_total{peer=\"192.0.2.1\",peer_asn=\"65000\",type=\"open\"}"));
    assertEquals(
        1.0,
        m.get("sart_bgp_messages_sent_total{peer=\"192.0.2.1\",peer_asn=\"65000\",type=\"open\"}"));
    assertTrue(
        m.get("sart_bgp_messages_sent_total{peer=\"192.0.2.1\",peer_asn=\"65000\",type=\"update\"}")
            >= 1);

    // FRR's own count of what it advertised to us is what we count received: its three routes and
    // ours, which FRR sends back (no split horizon towards an eBGP peer); the loops are not
    // accepted
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                samples(scrape(s, "/metrics")).get("sart_bgp_received_prefixes" + peer)
                    == frrSentPrefixes(frr));
    assertEquals(4, frrSentPrefixes(frr));
    m = samples(scrape(s, "/metrics"));
    assertEquals(
        2.0, m.get("sart_bgp_accepted_prefixes" + peer), "203.0.113.0/24 and our own route loop");
    assertEquals(1.0, m.get("sart_bgp_announced_prefixes" + peer), "our one route");
    assertEquals(
        1,
        json(frr.vtysh("show bgp neighbors 192.0.2.2 json"))
            .get("192.0.2.2")
            .path("addressFamilyInfo")
            .path("ipv4Unicast")
            .path("acceptedPrefixCounter")
            .asLong(),
        "FRR accepted our one route");
    assertEquals(
        0.0,
        m.get(
            "sart_bgp_received_prefixes{afi=\"ipv6\",peer=\"192.0.2.1\",peer_asn=\"65000\",safi=\"unicast\"}"));

    // a flap: FRR resets the session; the counter says so and the prefixes come back
    frr.vtysh("clear bgp 192.0.2.2");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                samples(scrape(s, "/metrics")).get("sart_bgp_session_flaps_total" + labels) == 1.0);
    sart.awaitEstablished("192.0.2.1");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              Map<String, Double> again = samples(scrape(s, "/metrics"));
              return again.get("sart_bgp_session_up" + labels) == 1.0
                  && again.get("sart_bgp_received_prefixes" + peer) == 4.0
                  && again.get("sart_bgp_accepted_prefixes" + peer) == 2.0;
            });

    // a deleted peer disappears from the metrics
    sart.cli("bgp", "neighbor", "del", "192.0.2.1");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> !scrape(s, "/metrics").contains("peer=\"192.0.2.1\""));
  }

  /**
   * GET over HTTP from inside the node, where sartd's metrics listen on 127.0.0.1:7472 by default.
   */
  private static String scrape(Node node, String path) {
    return node.exec("curl", "-sf", "--max-time", "10", "http://127.0.0.1:7472" + path);
  }

  private static long frrSentPrefixes(Frr frr) {
    return json(frr.vtysh("show bgp neighbors 192.0.2.2 json"))
        .get("192.0.2.2")
        .path("addressFamilyInfo")
        .path("ipv4Unicast")
        .path("sentPrefixCounter")
        .asLong();
  }

  private static com.fasterxml.jackson.databind.JsonNode json(String text) {
    try {
      return new com.fasterxml.jackson.databind.ObjectMapper().readTree(text);
    } catch (java.io.IOException e) {
      throw new AssertionError(text, e);
    }
  }

  /**
   * The samples of a text exposition, by name with labels, e.g. {@code a_total{peer="x"}} → 3.0.
   */
  static Map<String, Double> samples(String text) {
    Map<String, Double> out = new HashMap<>();
    for (String line : text.split("\n")) {
      Matcher m = SAMPLE.matcher(line);
      if (!line.startsWith("#") && m.matches()) {
        out.put(
            m.group(1) + (m.group(2) == null ? "" : m.group(2)), Double.parseDouble(m.group(3)));
      }
    }
    return out;
  }
}
