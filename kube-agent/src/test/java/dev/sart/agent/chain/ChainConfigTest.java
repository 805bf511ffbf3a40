package dev.sart.agent.chain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sart.net.IpPrefix;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The design's keys as the agent reads them, and the result a chained plugin prints. */
class ChainConfigTest {
  static final Map<String, String> ADD =
      Map.of(
          "CNI_COMMAND", "ADD",
          "CNI_CONTAINERID", "c1",
          "CNI_NETNS", "/var/run/netns/x",
          "CNI_IFNAME", "net1");

  static final String PREV =
      "{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"net1\",\"mac\":\"02:00:00:00:00:01\","
          + "\"sandbox\":\"/var/run/netns/x\"}],\"ips\":[{\"interface\":0,"
          + "\"address\":\"203.0.113.10/24\",\"gateway\":\"203.0.113.254\"}],\"dns\":{}}";

  static JsonNode json(String s) throws Exception {
    return Conflist.JSON.readTree(s);
  }

  static String conf(String version, String keys) {
    return "{\"cniVersion\":\"" + version + "\",\"name\":\"n\",\"type\":\"sart-veth\"" + keys + "}";
  }

  static ChainException error(Map<String, String> env, String conf) {
    return assertThrows(
        ChainException.class, () -> ChainConfig.parse("sart-veth", env, json(conf)), conf);
  }

  @Test
  void theDesignsKeysAreReadInBothOfTheirForms() throws Exception {
    ChainConfig c =
        ChainConfig.parse(
            "sart-router",
            ADD,
            json(
                conf(
                    "1.0.0",
                    ",\"overlay_hijack_subnet\":\"198.51.100.0/28\","
                        + "\"service_hijack_subnet\":[\"198.51.100.192/27\",\"2001:db8:5::/108\"],"
                        + "\"additional_hijack_subnet\":[],\"migrate_route\":1,\"skip_call\":false,"
                        + "\"rp_filter\":0,\"mac_prefix\":\"1A:2b\",\"only_op_mac\":true,"
                        + "\"overlay_interface\":\"eth1\",\"log_options\":{\"log_level\":\"debug\"},"
                        + "\"prevResult\":"
                        + PREV)));
    assertEquals(List.of(IpPrefix.parse("198.51.100.0/28")), c.overlaySubnets());
    assertEquals(
        List.of(IpPrefix.parse("198.51.100.192/27"), IpPrefix.parse("2001:db8:5::/108")),
        c.serviceSubnets());
    assertEquals(3, c.hijacked().size());
    assertEquals(1, c.migrateRoute());
    assertEquals(0, c.rpFilter());
    assertEquals(0x1a2b, c.macPrefix());
    assertTrue(c.onlyOpMac());
    assertEquals("eth1", c.overlayInterface());
    assertEquals(1, c.prevResult().ipsOn("net1").size());
    ChainConfig d = ChainConfig.parse("sart-veth", ADD, json(conf("0.4.0", "")));
    assertEquals(-1, d.migrateRoute(), "migrate_route defaults to -1");
    assertEquals(2, d.rpFilter(), "rp_filter defaults to 2 (loose)");
    assertEquals(-1, d.macPrefix());
    assertEquals("eth0", d.overlayInterface());
  }

  @Test
  void aBadValueIsErrorSevenNamingTheKey() {
    Map<String, String> bad =
        Map.ofEntries(
            Map.entry(",\"migrate_route\":2", "\"migrate_route\""),
            Map.entry(",\"migrate_route\":\"1\"", "\"migrate_route\""),
            Map.entry(",\"rp_filter\":3", "\"rp_filter\""),
            Map.entry(",\"mac_prefix\":\"1a2b\"", "\"mac_prefix\""),
            Map.entry(",\"mac_prefix\":\"01:00\"", "multicast"),
            Map.entry(",\"only_op_mac\":\"yes\"", "\"only_op_mac\""),
            Map.entry(",\"skip_call\":1", "\"skip_call\""),
            Map.entry(",\"overlay_hijack_subnet\":[\"198.51.100.1/28\"]", "[0]\" has host bits"),
            Map.entry(",\"service_hijack_subnet\":5", "\"service_hijack_subnet\""),
            Map.entry(
                ",\"additional_hijack_subnet\":[\"x/24\"]", "\"additional_hijack_subnet[0]\""),
            Map.entry(",\"additional_hijack_subnet\":[\"192.0.2.0\"]", "not a CIDR"),
            Map.entry(",\"overlay_interface\":\"\"", "\"overlay_interface\""),
            Map.entry(",\"log_options\":\"debug\"", "\"log_options\""),
            Map.entry(",\"prevResult\":[]", "\"prevResult\""),
            Map.entry(
                ",\"prevResult\":{\"ips\":[{\"address\":\"203.0.113.10\"}]}",
                "\"prevResult.ips[0].address\""),
            Map.entry(
                ",\"prevResult\":{\"ips\":[{\"address\":\"203.0.113.10/24\",\"interface\":3}]}",
                "\"prevResult.ips[0].interface\""));
    bad.forEach(
        (keys, named) -> {
          ChainException e = error(ADD, conf("1.0.0", keys));
          assertEquals(7, e.code(), keys);
          assertTrue(e.getMessage().contains(named), keys + " -> " + e.getMessage());
        });
  }

  @Test
  void versionsWithoutPrevResultOrCheckAndBadParametersAreRefused() {
    assertEquals(1, error(ADD, conf("0.3.1", "")).code());
    assertEquals(1, error(ADD, conf("2.0.0", "")).code());
    assertEquals(7, error(ADD, "{\"name\":\"n\"}").code(), "no cniVersion");
    assertEquals(
        1, error(Map.of("CNI_COMMAND", "STATUS"), conf("1.0.0", "")).code(), "STATUS from 1.1.0");
    assertEquals(
        4,
        error(
                Map.of("CNI_COMMAND", "ADD", "CNI_CONTAINERID", "c1", "CNI_NETNS", "/x"),
                conf("1.0.0", ""))
            .code(),
        "no CNI_IFNAME");
    assertEquals(
        4,
        error(
                Map.of("CNI_COMMAND", "CHECK", "CNI_CONTAINERID", "c1", "CNI_IFNAME", "net1"),
                conf("1.0.0", ""))
            .code(),
        "no CNI_NETNS");
  }

  @Test
  void theResultIsPrevResultInTheConfiguredVersionWithTheAddedInterfaces() throws Exception {
    PrevResult prev = PrevResult.parse(json(PREV), "1.0.0");
    List<PrevResult.Added> added =
        List.of(
            new PrevResult.Added("vethabc", "02:00:00:00:00:02", 1500, null),
            new PrevResult.Added("veth0", "02:00:00:00:00:03", 1500, "/var/run/netns/x"));
    JsonNode v04 =
        json(new String(prev.toJson("0.4.0", added, null, null), StandardCharsets.UTF_8));
    assertEquals("0.4.0", v04.path("cniVersion").asText());
    assertEquals("4", v04.path("ips").get(0).path("version").asText(), "0.4.0 ips carry version");
    assertEquals(List.of("net1", "vethabc", "veth0"), Conflist.interfaces(v04));
    assertTrue(v04.path("interfaces").get(1).path("mtu").isMissingNode(), "mtu only in 1.1.0");
    assertTrue(v04.path("dns").isObject(), "keys we do not know pass through");
    JsonNode v11 =
        json(
            new String(
                prev.toJson("1.1.0", added, "net1", "1a:2b:cb:00:71:0a"), StandardCharsets.UTF_8));
    assertEquals(1500, v11.path("interfaces").get(2).path("mtu").asInt());
    assertEquals("/var/run/netns/x", v11.path("interfaces").get(2).path("sandbox").asText());
    assertTrue(v11.path("interfaces").get(1).path("sandbox").isMissingNode(), "host end");
    assertEquals("1a:2b:cb:00:71:0a", v11.path("interfaces").get(0).path("mac").asText());
    assertTrue(v11.path("ips").get(0).path("version").isMissingNode());
    assertEquals(
        "1a:2b:cb:00:71:0a",
        Kernel.macFor(0x1a2b, prev.ipsOn("net1")).toString(),
        "mac_prefix + the IPv4 address's octets");
  }
}
