package dev.sart.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.testbed.Frr;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Path attributes set through the API ({@code sart bgp global rib add -t ...}) as FRR's own JSON
 * shows them: communities (a well-known one too), large communities, MED, LOCAL_PREF, ORIGIN.
 */
class SartdAttributesTest {
  @RegisterExtension final Testbed testbed = new Testbed();

  private SartdNode sart;

  private Frr pair(long sartAs, long frrAs, String... communities) {
    Topology t = testbed.topology();
    Node s = t.node("sart");
    Node p = t.node("peer");
    t.link(s, p).addresses("192.0.2.2/24", "192.0.2.1/24");
    sart = SartdNode.start(s, "--as", Long.toString(sartAs), "--router-id", "192.0.2.2");
    Frr frr =
        new Frr(p, RouterConfig.of(frrAs, "192.0.2.1").neighbor(Neighbor.of("192.0.2.2", sartAs)));
    frr.start();
    sart.cli(
        "bgp", "neighbor", "add", "192.0.2.1", Long.toString(frrAs), "--connect-retry-time", "1");
    java.util.List<String> args =
        new java.util.ArrayList<>(
            java.util.List.of(
                "bgp",
                "global",
                "rib",
                "add",
                "203.0.113.0/24",
                "-t",
                "origin=egp",
                "-t",
                "local_pref=250",
                "-t",
                "med=42",
                "-t",
                "large_community=65001:7:8"));
    for (String c : communities) {
      args.addAll(java.util.List.of("-t", "community=" + c));
    }
    sart.cli(args.toArray(String[]::new));
    frr.awaitEstablished("192.0.2.2");
    frr.awaitRoute("203.0.113.0/24");
    return frr;
  }

  /** FRR's one path for the prefix, from {@code show bgp ipv4 unicast PREFIX json}. */
  private static JsonNode path(Frr frr) throws Exception {
    JsonNode paths =
        new ObjectMapper()
            .readTree(frr.vtysh("show bgp ipv4 unicast 203.0.113.0/24 json"))
            .path("paths");
    assertEquals(1, paths.size(), paths::toString);
    return paths.get(0);
  }

  @Test
  void anInternalPeerGetsEveryAttribute() throws Exception {
    JsonNode p = path(pair(65001, 65001, "65001:100", "65535:65281"));
    assertEquals("EGP", p.path("origin").asText(), p::toString);
    assertEquals(250, p.path("locPrf").asLong(), p::toString);
    assertEquals(42, p.path("metric").asLong(), p::toString);
    assertEquals("65001:100 no-export", p.path("community").path("string").asText(), p::toString);
    assertEquals("65001:7:8", p.path("largeCommunity").path("string").asText(), p::toString);
    assertEquals(0, p.path("aspath").path("length").asInt(-1), "iBGP: no AS prepended");
  }

  @Test
  void anExternalPeerGetsOurMedAndCommunitiesButNotOurLocalPref() throws Exception {
    Frr frr = pair(65001, 65002, "65001:100", "65001:200");
    JsonNode p = path(frr);
    assertEquals(42, p.path("metric").asLong(), p::toString);
    assertEquals("65001:100 65001:200", p.path("community").path("string").asText(), p::toString);
    assertEquals("65001:7:8", p.path("largeCommunity").path("string").asText(), p::toString);
    assertEquals("65001", p.path("aspath").path("string").asText(), p::toString);
    // RFC 4271 §5.1.5: LOCAL_PREF is not sent to an external peer; FRR shows none, or its default
    // 100
    assertFalse(p.has("locPrf") && p.path("locPrf").asLong() != 100, p::toString);

    // RFC 1997: a route with NO_EXPORT stays inside our AS
    sart.cli("bgp", "global", "rib", "add", "198.51.100.0/24", "-t", "community=65535:65281");
    sart.cli("bgp", "global", "rib", "add", "198.51.100.0/25");
    frr.awaitRoute("198.51.100.0/25");
    org.awaitility.Awaitility.await()
        .during(java.time.Duration.ofSeconds(2))
        .atMost(java.time.Duration.ofSeconds(4))
        .until(() -> frr.routes(dev.sart.net.IpPrefix.parse("198.51.100.0/24")).isEmpty());
  }
}
