package dev.sart.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.bgp.api.BgpApiService;
import dev.sart.bgp.server.BgpServer;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The CLI against the real API service of a speaker that does not listen for BGP (peers are
 * passive, so nothing leaves loopback): sart's commands, its JSON field names, errors.
 */
class SartCliTest {
  private BgpServer speaker;
  private Server api;
  private String endpoint;

  @BeforeEach
  void start() throws Exception {
    speaker = new BgpServer(0);
    api =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(new BgpApiService(speaker))
            .build()
            .start();
    endpoint = "127.0.0.1:" + api.getPort();
  }

  @AfterEach
  void stop() {
    api.shutdownNow();
    speaker.close();
  }

  record Run(int code, String out, String err) {}

  private Run sart(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    String[] all = new String[args.length + 2];
    all[0] = "-e";
    all[1] = endpoint;
    System.arraycopy(args, 0, all, 2, args.length);
    int code = Sart.run(all, new PrintWriter(out), new PrintWriter(err));
    return new Run(code, out.toString(), err.toString());
  }

  private JsonNode json(String... args) throws Exception {
    Run r = sart(args);
    assertEquals(0, r.code(), r.err());
    return new ObjectMapper().readTree(r.out());
  }

  @Test
  void globalSetThenGetShowsSartsJsonFields() throws Exception {
    assertEquals(
        0,
        sart(
                "bgp",
                "global",
                "set",
                "--asn",
                "65001",
                "--router-id",
                "192.0.2.1",
                "--multi-path",
                "true")
            .code());
    JsonNode g = json("-o", "json", "bgp", "global", "get");
    assertEquals(65001, g.get("asn").asLong());
    assertEquals("192.0.2.1", g.get("routerId").asText());
    assertTrue(g.get("multiPath").asBoolean());
    assertTrue(g.has("port"));
  }

  @Test
  void neighborAddListGetAndDelete() throws Exception {
    sart("bgp", "global", "set", "--asn", "65001", "--router-id", "192.0.2.1");
    Run add =
        sart(
            "bgp",
            "neighbor",
            "add",
            "192.0.2.2",
            "65002",
            "--passive",
            "--hold-time",
            "30",
            "--name",
            "tor1");
    assertEquals(0, add.code(), add.err());
    JsonNode list = json("-o", "json", "bgp", "neighbor", "list");
    assertEquals(1, list.get("peers").size());
    JsonNode p = json("-o", "json", "bgp", "neighbor", "get", "192.0.2.2");
    assertEquals("tor1", p.get("name").asText());
    assertEquals(65002, p.get("asn").asLong());
    assertEquals(30, p.get("holdTime").asInt(), "the hold time of AddPeer is honoured");
    assertEquals(10, p.get("keepAliveTime").asInt());
    assertEquals("Active", p.get("state").asText(), "a passive peer waits in Active");
    assertEquals("ipv4", p.get("families").get(0).get("afi").asText());
    assertTrue(p.get("receiveCounter").has("keepAlive"));
    Run plain = sart("bgp", "neighbor", "list");
    assertTrue(
        plain.out().lines().anyMatch(l -> l.startsWith("192.0.2.2") && l.contains("Active")),
        plain.out());
    assertEquals(0, sart("bgp", "neighbor", "del", "192.0.2.2").code());
    assertEquals(0, json("-o", "json", "bgp", "neighbor", "list").get("peers").size());
  }

  @Test
  void neighborAddTakesPoliciesAndAPrefixLimit() throws Exception {
    sart("bgp", "global", "set", "--asn", "65001", "--router-id", "192.0.2.1");
    speaker.policies().define(dev.sart.bgp.policy.Policy.of("from-tor", true));
    Run add =
        sart(
            "bgp",
            "neighbor",
            "add",
            "192.0.2.2",
            "65002",
            "--passive",
            "--import-policy",
            "from-tor",
            "--max-prefix",
            "100",
            "--max-prefix-restart",
            "60",
            "--soft-reconfiguration-inbound",
            "--multihop",
            "2",
            "--connect-retry-time",
            "7");
    assertEquals(0, add.code(), add.err());
    JsonNode p = json("-o", "json", "bgp", "neighbor", "get", "192.0.2.2");
    assertEquals(2, p.get("multihopTtl").asInt(), p::toString);
    assertEquals(7, p.get("connectRetryTime").asInt(), p::toString);
    assertFalse(p.has("ttlSecurity"), p::toString);
    Run plain = sart("bgp", "neighbor", "get", "192.0.2.2");
    assertTrue(
        plain.out().lines().anyMatch(l -> l.matches(" +transport +TCP port 179, multihop TTL 2")),
        plain.out());
    assertTrue(
        plain.out().lines().anyMatch(l -> l.matches(" +state +Active, flaps 0, passive")),
        plain.out());
    assertEquals("from-tor", p.get("importPolicy").asText());
    assertEquals(100, p.get("maxPrefix").get("limit").asLong());
    assertEquals(60, p.get("maxPrefix").get("restartTime").asInt());
    assertTrue(p.get("softReconfigurationInbound").asBoolean());
    Run unknown = sart("bgp", "neighbor", "add", "192.0.2.3", "65002", "--export-policy", "nope");
    assertEquals(1, unknown.code());
    assertTrue(unknown.err().contains("no policy 'nope'"), unknown.err());
    Run bad = sart("bgp", "neighbor", "add", "192.0.2.3", "65002", "--max-prefix-restart", "5");
    assertTrue(bad.err().contains("need --max-prefix"), bad.err());
    // a passive peer that is not up: the refresh is accepted (and does nothing until it is)
    assertEquals(0, sart("bgp", "neighbor", "refresh", "192.0.2.2", "--out").code());
    assertEquals(1, sart("bgp", "neighbor", "refresh", "192.0.2.9").code());
  }

  @Test
  void neighborAddAdvertisePeerAsIsShownOnlyWhenOn() throws Exception {
    sart("bgp", "global", "set", "--asn", "65001", "--router-id", "192.0.2.1");
    assertEquals(0, sart("bgp", "neighbor", "add", "192.0.2.2", "65002", "--passive").code());
    Run add =
        sart("bgp", "neighbor", "add", "192.0.2.3", "65002", "--passive", "--advertise-peer-as");
    assertEquals(0, add.code(), add.err());
    assertFalse(json("-o", "json", "bgp", "neighbor", "get", "192.0.2.2").has("advertisePeerAs"));
    assertTrue(
        json("-o", "json", "bgp", "neighbor", "get", "192.0.2.3")
            .get("advertisePeerAs")
            .asBoolean());
    assertTrue(
        speaker.peer(java.net.InetAddress.ofLiteral("192.0.2.3")).policy().advertisePeerAs());
    assertFalse(
        speaker.peer(java.net.InetAddress.ofLiteral("192.0.2.2")).policy().advertisePeerAs());
    Run yaml = sart("-o", "yaml", "bgp", "neighbor", "get", "192.0.2.3");
    assertTrue(
        yaml.out().lines().anyMatch(l -> l.strip().equals("advertisePeerAs: true")), yaml.out());
  }

  @Test
  void aMissingPeerIsNotFoundAtOnce() {
    Run r = sart("bgp", "neighbor", "get", "192.0.2.9");
    assertEquals(1, r.code());
    assertTrue(r.err().contains("not found"), r.err());
  }

  @Test
  void ribAddShowsLocalPathsWithAttributesAndDelRemovesThem() throws Exception {
    sart("bgp", "global", "set", "--asn", "65001", "--router-id", "192.0.2.1");
    Run add =
        sart(
            "bgp",
            "global",
            "rib",
            "add",
            "203.0.113.0/24",
            "198.51.100.0/25",
            "-t",
            "origin=egp",
            "-t",
            "med=20",
            "-t",
            "local_pref=300");
    assertEquals(0, add.code(), add.err());
    JsonNode paths = json("-o", "json", "bgp", "global", "rib", "get").get("paths");
    assertEquals(2, paths.size());
    JsonNode first = paths.get(0);
    assertEquals("198.51.100.0/25", first.get("nlri").asText());
    assertEquals(1, first.get("origin").asInt());
    assertEquals(20, first.get("med").asInt());
    assertEquals(300, first.get("localPref").asInt());
    assertTrue(first.get("best").asBoolean());
    assertEquals(0, sart("bgp", "global", "rib", "-a", "ipv6", "add", "2001:db8:1::/48").code());
    // a path without LOCAL_PREF and MED: sart's JSON says 0, the table "-" (not a value of 0)
    JsonNode bare =
        json("-o", "json", "bgp", "global", "rib", "-a", "ipv6", "get").get("paths").get(0);
    assertEquals(0, bare.get("localPref").asInt());
    assertEquals(0, bare.get("med").asInt());
    Run table = sart("bgp", "global", "rib", "-a", "ipv6", "get");
    assertTrue(
        table
            .out()
            .lines()
            .anyMatch(l -> l.matches("\\*\\s+2001:db8:1::/48 .* i\\s+-\\s+-\\s+local")),
        table.out());
    assertTrue(
        sart("bgp", "global", "rib", "get")
            .out()
            .lines()
            .anyMatch(l -> l.matches("\\*\\s+198\\.51\\.100\\.0/25 .* e\\s+300\\s+20\\s+local")));
    assertEquals(
        "2001:db8:1::/48",
        json("-o", "json", "bgp", "global", "rib", "-a", "ipv6", "get")
            .get("paths")
            .get(0)
            .get("nlri")
            .asText());
    assertEquals(
        0, sart("bgp", "global", "rib", "del", "203.0.113.0/24", "198.51.100.0/25").code());
    assertEquals(0, json("-o", "json", "bgp", "global", "rib", "get").get("paths").size());
  }

  @Test
  void badInputGetsAClearError() {
    sart("bgp", "global", "set", "--asn", "65001", "--router-id", "192.0.2.1");
    Run r = sart("bgp", "global", "rib", "add", "203.0.113.300/24");
    assertEquals(1, r.code());
    assertTrue(
        r.err().contains("invalid argument") && r.err().contains("203.0.113.300/24"), r.err());
    Run attr = sart("bgp", "global", "rib", "add", "203.0.113.0/24", "-t", "colour=blue");
    assertTrue(attr.err().contains("unknown attribute colour"), attr.err());
  }

  @Test
  void anUnreachableSpeakerIsSaidPlainly() {
    api.shutdownNow();
    Run r = sart("bgp", "global", "get");
    assertEquals(2, r.code());
    assertTrue(r.err().contains("cannot reach the sart API at " + endpoint), r.err());
  }

  @Test
  void yamlOutputWorks() {
    sart("bgp", "global", "set", "--asn", "65001", "--router-id", "192.0.2.1");
    Run r = sart("-o", "yaml", "bgp", "global", "get");
    assertTrue(r.out().contains("routerId: 192.0.2.1"), r.out());
  }
}
