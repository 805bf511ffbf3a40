package dev.sart.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.policy.Match;
import dev.sart.bgp.policy.PeerPolicy;
import dev.sart.bgp.policy.Policy;
import dev.sart.bgp.policy.PrefixList;
import dev.sart.bgp.policy.Statement;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.server.BgpServer;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.PathAttributes;
import dev.sart.testbed.Frr;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code sart bgp neighbor get} and {@code list} for a session with FRR, FRR's own {@code show bgp
 * neighbors X json} the oracle: the capabilities each side's OPEN carried, the prefixes received,
 * accepted and advertised, and why the session went down.
 */
class NeighborDetailTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @RegisterExtension final Testbed testbed = new Testbed();
  private NamespaceSpeaker ours;
  private BgpServer speaker;
  private Frr frr;

  @AfterEach
  void stop() {
    if (ours != null) {
      ours.close();
    }
  }

  private record Run(int code, String out, String err) {}

  private Run sart(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    String[] all = new String[args.length + 2];
    all[0] = "-e";
    all[1] = ours.endpoint();
    System.arraycopy(args, 0, all, 2, args.length);
    int code = Sart.run(all, new PrintWriter(out), new PrintWriter(err));
    return new Run(code, out.toString(), err.toString());
  }

  private JsonNode neighbor() throws Exception {
    Run r = sart("-o", "json", "bgp", "neighbor", "get", "192.0.2.2");
    assertEquals(0, r.code(), r.err());
    return JSON.readTree(r.out());
  }

  /**
   * Our speaker (AS 65001) originates two prefixes; FRR (AS 65000, graceful restart with a restart
   * time of 77 s) three, one of which our import policy rejects.
   */
  private void up() throws Exception {
    Topology t = testbed.topology();
    Node nodeA = t.node("nodea");
    Node tor = t.node("tor");
    t.link(nodeA, tor).addresses("192.0.2.1/30", "192.0.2.2/30");
    ours = NamespaceSpeaker.start(nodeA, 65001, "192.0.2.1");
    speaker = ours.speaker();
    frr =
        Frr.withoutZebra(
                tor,
                RouterConfig.of(65000, "192.0.2.2")
                    .neighbor(Neighbor.of("192.0.2.1", 65001))
                    .originate("198.51.100.0/26", "198.51.100.64/26", "198.51.100.128/26"))
            .withGracefulRestart(77);
    frr.start();
    Policy notThird =
        Policy.of(
            "not-third",
            true,
            Statement.reject(Match.prefixes(PrefixList.of("third", "198.51.100.128/26"))));
    speaker.addPeer(
        PeerConfig.of(InetAddress.getByName("192.0.2.2"), 65000).toBuilder()
            .name("tor")
            .holdTime(Duration.ofSeconds(9))
            .connectRetryTime(Duration.ofSeconds(1))
            .families(Set.of(Family.IPV4_UNICAST))
            .build(),
        PeerPolicy.NONE.withImport(notThird));
    speaker.addPaths(
        List.of(Prefix.parse("203.0.113.1/32"), Prefix.parse("203.0.113.2/32")),
        PathAttributes.of(Origin.IGP));
    frr.awaitEstablished("192.0.2.1");
    frr.awaitRoute("203.0.113.2/32");
  }

  @Test
  void theCapabilitiesAndPrefixCountsAreWhatFrrSaysItSentAndGot() throws Exception {
    up();
    InetAddress us = InetAddress.getByName("192.0.2.1");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                frr.neighbor(us)
                        .path("addressFamilyInfo")
                        .path("ipv4Unicast")
                        .path("sentPrefixCounter")
                        .asLong()
                    == neighbor().path("prefixes").path(0).path("received").asLong());
    JsonNode theirs = frr.neighbor(us);
    JsonNode caps = theirs.path("neighborCapabilities");
    JsonNode ours = neighbor();

    // FRR "advertised" is our "received", FRR "received" our "advertised"
    Map<String, JsonNode> byName = new HashMap<>();
    ours.path("capabilities").forEach(c -> byName.put(c.path("name").asText(), c));
    assertSides(byName, "4-octet AS", caps.path("4byteAs").asText(), caps);
    assertSides(byName, "route refresh", caps.path("routeRefresh").asText(), caps);
    assertSides(byName, "enhanced route refresh", caps.path("enhancedRouteRefresh").asText(), caps);
    assertSides(byName, "graceful restart", caps.path("gracefulRestart").asText(), caps);
    assertSides(byName, "extended message", caps.path("extendedMessage").asText(), caps);
    JsonNode mp = caps.path("multiprotocolExtensions").path("ipv4Unicast");
    assertTrue(mp.path("advertisedAndReceived").asBoolean(), caps::toString);
    assertTrue(byName.get("multiprotocol ipv4/unicast").path("advertised").asBoolean());
    assertTrue(byName.get("multiprotocol ipv4/unicast").path("received").asBoolean());
    // what the two held
    assertEquals("AS 65001", byName.get("4-octet AS").path("advertisedValue").asText());
    assertEquals("AS 65000", byName.get("4-octet AS").path("receivedValue").asText());
    assertTrue(
        byName
            .get("graceful restart")
            .path("receivedValue")
            .asText()
            .startsWith("restart time 77 s"),
        byName.get("graceful restart")::toString);
    assertEquals(
        caps.path("hostName").path("advHostName").asText(),
        byName.get("hostname").path("receivedValue").asText(),
        caps::toString);

    // prefixes: FRR sent its 3 and our 2 back (an AS_PATH loop here), and accepted our 2; our
    // policy let 2 of its 3 through
    JsonNode v4 = theirs.path("addressFamilyInfo").path("ipv4Unicast");
    JsonNode counts = ours.path("prefixes").path(0);
    assertEquals("ipv4", counts.path("family").path("afi").asText());
    assertEquals(
        v4.path("sentPrefixCounter").asLong(), counts.path("received").asLong(), v4::toString);
    assertEquals(2, counts.path("accepted").asLong(), counts::toString);
    assertEquals(
        v4.path("acceptedPrefixCounter").asLong(),
        counts.path("advertised").asLong(),
        v4::toString);
    assertEquals(2, counts.path("advertised").asLong());
    assertEquals(5, counts.path("received").asLong());
    assertEquals(0, ours.path("flaps").asLong());

    Run plain = sart("bgp", "neighbor", "get", "192.0.2.2");
    assertEquals(0, plain.code(), plain.err());
    assertTrue(
        plain.out().lines().anyMatch(l -> l.matches("4-octet AS +AS 65001 +AS 65000")),
        plain.out());
    assertTrue(plain.out().lines().anyMatch(l -> l.matches("ipv4/unicast +5 +2 +2")), plain.out());
    assertTrue(
        plain.out().lines().anyMatch(l -> l.matches(" +policies +import not-third, export -")),
        plain.out());
    // the list's PREFIXES IN/OUT column: accepted/advertised
    Run list = sart("bgp", "neighbor", "list");
    List<String> lines = list.out().lines().toList();
    int column = lines.getFirst().indexOf("PREFIXES IN/OUT");
    String row = lines.stream().filter(l -> l.startsWith("192.0.2.2")).findFirst().orElseThrow();
    assertEquals("2/2", row.substring(column).split("\\s+")[0], list.out());
  }

  /** Our two sides of one capability as FRR's word for it says ("advertisedAndReceived", ...). */
  private static void assertSides(
      Map<String, JsonNode> ours, String name, String frrWord, JsonNode frrCaps) {
    boolean frrAdvertised = frrWord.startsWith("advertised");
    boolean frrReceived = frrWord.contains("eceived");
    JsonNode c = ours.get(name);
    if (c == null) {
      assertTrue(!frrAdvertised && !frrReceived, name + ": " + frrCaps);
      return;
    }
    assertEquals(frrAdvertised, c.path("received").asBoolean(), name + ": " + frrCaps);
    assertEquals(frrReceived, c.path("advertised").asBoolean(), name + ": " + frrCaps);
  }

  @Test
  void aShutdownByTheNeighbourIsTheLastErrorWithItsCommunication() throws Exception {
    up();
    frr.vtysh(
        "configure terminal",
        "router bgp 65000",
        "neighbor 192.0.2.1 shutdown message maintenance window");
    await().atMost(Duration.ofSeconds(10)).until(() -> neighbor().path("flaps").asLong() == 1);
    JsonNode ours = neighbor();
    assertTrue(!ours.path("state").asText().equals("Established"), ours::toString);
    String reason = ours.path("lastReset").path("reason").asText();
    assertTrue(reason.startsWith("received Cease / Administrative Shutdown"), ours::toString);
    assertTrue(reason.endsWith("\"maintenance window\""), reason);
    assertEquals(0, ours.path("capabilities").size(), "no session, no OPENs: " + ours);
    Run plain = sart("bgp", "neighbor", "get", "192.0.2.2");
    assertTrue(
        plain
            .out()
            .lines()
            .anyMatch(
                l -> l.matches(" +last reset +\\d\\d:\\d\\d:\\d\\d ago: .*") && l.endsWith(reason)),
        plain.out());
    assertTrue(plain.out().contains(", flaps 1"), plain.out());
    Run list = sart("bgp", "neighbor", "list");
    assertTrue(list.out().contains("192.0.2.2 (down "), list.out());
  }
}
