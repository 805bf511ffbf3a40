package dev.sart.fib.netlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sart.net.Ip;
import dev.sart.testbed.Node;
import dev.sart.testbed.Testbed;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class LinksTest {
  @RegisterExtension final Testbed testbed = new Testbed();

  private Node node;
  private Netns ns;
  private Netlink nl;

  @BeforeEach
  void open() {
    node = testbed.topology().node("a");
    ns = Netns.named(node.netns());
    nl = Netlink.open(ns);
  }

  @AfterEach
  void close() {
    nl.close();
    ns.close();
  }

  @Test
  void listAndGetAgreeWithIpLink() {
    nl.links().addVeth("v0", "v1");
    List<Link> links = nl.links().list();
    JsonNode ip = Oracle.ip(node, "link", "show");
    assertEquals(ip.size(), links.size());
    for (JsonNode j : ip) {
      Link l = nl.links().get(j.get("ifname").asText());
      assertEquals(j.get("ifindex").asInt(), l.index());
      assertEquals(j.get("mtu").asInt(), l.mtu());
      assertEquals(j.get("address").asText(), String.valueOf(l.mac()));
      assertEquals(l, nl.links().get(l.index()), "by name and by index");
      assertTrue(links.contains(l), "the dump holds " + l);
    }
    Link lo = nl.links().get("lo");
    assertEquals("", lo.kind());
    assertTrue(lo.flags().contains(LinkFlag.LOOPBACK));
    assertTrue(lo.isUp(), "the test bed sets lo up");
  }

  @Test
  void aMissingLinkIsEmptyOrEnodev() {
    assertTrue(nl.links().find("nosuch0").isEmpty());
    assertTrue(nl.links().find(999_999).isEmpty());
    NetlinkException e = assertThrows(NetlinkException.class, () -> nl.links().setUp("nosuch0"));
    assertEquals(Errno.ENODEV, e.errno());
    assertTrue(
        e.getMessage().startsWith("set link nosuch0 up: No such device (ENODEV)"), e.getMessage());
  }

  @Test
  void vethPairInOneNamespace() {
    nl.links().addVeth("v0", "v1");
    Link v0 = nl.links().get("v0");
    Link v1 = nl.links().get("v1");
    assertEquals("veth", v0.kind());
    assertEquals(v1.index(), v0.linkIndex(), "IFLA_LINK names the peer");
    assertEquals("v1", Oracle.link(node, "v0").get("link").asText());
    NetlinkException e = assertThrows(NetlinkException.class, () -> nl.links().addVeth("v0", "v2"));
    assertEquals(Errno.EEXIST, e.errno());
    assertTrue(
        e.getMessage().startsWith("add veth v0 peer v2: File exists (EEXIST)"), e.getMessage());
  }

  @Test
  void vethPeerCreatedDirectlyInAnotherNamespace() {
    Node other = testbed.topology().node("b");
    try (Netns otherNs = Netns.named(other.netns());
        Netlink otherNl = Netlink.open(otherNs)) {
      nl.links().addVeth("host0", "eth0", otherNs);
      assertTrue(nl.links().find("eth0").isEmpty(), "the peer is not here");
      Link peer = otherNl.links().get("eth0");
      assertEquals("veth", peer.kind());
      assertEquals("veth", Oracle.link(other, "eth0").get("linkinfo").get("info_kind").asText());
      assertEquals(0, node.tryExec("ip", "link", "show", "host0").exitCode());
    }
  }

  @Test
  void upDownMtuMacAlias() {
    nl.links().addVeth("v0", "v1");
    nl.links().setUp("v0");
    nl.links().setUp("v1");
    assertTrue(nl.links().get("v0").isUp());
    assertTrue(flags(node, "v0").contains("UP"));

    nl.links().setMtu("v0", 1400);
    MacAddress mac = MacAddress.parse("02:00:5e:00:53:01");
    nl.links().setMac("v0", mac);
    nl.links().setAlias("v0", "pod default/nginx");
    Link v0 = nl.links().get("v0");
    assertEquals(1400, v0.mtu());
    assertEquals(mac, v0.mac());
    assertEquals("pod default/nginx", v0.alias());
    JsonNode ip = Oracle.link(node, "v0");
    assertEquals(1400, ip.get("mtu").asInt());
    assertEquals("02:00:5e:00:53:01", ip.get("address").asText());
    assertEquals("pod default/nginx", ip.get("ifalias").asText());

    nl.links().setAlias("v0", "");
    assertNull(nl.links().get("v0").alias(), "an empty alias removes it");
    nl.links().setDown("v0");
    assertFalse(nl.links().get("v0").isUp());
    assertFalse(flags(node, "v0").contains("UP"));
  }

  @Test
  void moveToAnotherNamespaceRenameAndDelete() {
    Node other = testbed.topology().node("b");
    nl.links().addVeth("v0", "v1");
    try (Netns otherNs = Netns.named(other.netns());
        Netlink otherNl = Netlink.open(otherNs)) {
      nl.links().setNamespace("v1", otherNs);
      assertTrue(nl.links().find("v1").isEmpty());
      assertEquals("veth", otherNl.links().get("v1").kind());
      otherNl.links().rename("v1", "eth0");
      assertEquals("eth0", Oracle.link(other, "eth0").get("ifname").asText());
      otherNl.links().delete("eth0");
      assertTrue(otherNl.links().find("eth0").isEmpty());
      assertTrue(nl.links().find("v0").isEmpty(), "deleting one end of a veth deletes both");
      assertEquals(1, Oracle.ip(node, "link", "show").size(), "only lo is left");
    }
  }

  @Test
  void bridgeWithAPort() {
    nl.links().addBridge("br0");
    nl.links().addVeth("v0", "v1");
    nl.links().setMaster("v1", "br0");
    Link br = nl.links().get("br0");
    assertEquals("bridge", br.kind());
    assertEquals(br.index(), nl.links().get("v1").masterIndex());
    assertEquals("bridge", Oracle.link(node, "br0").get("linkinfo").get("info_kind").asText());
    assertEquals("br0", Oracle.link(node, "v1").get("master").asText());
    nl.links().setNoMaster("v1");
    assertEquals(0, nl.links().get("v1").masterIndex());
  }

  @Test
  void vxlanWithVniLocalRemotePortUnderlayAndLearning() {
    nl.links().addVeth("v0", "v1");
    int underlay = nl.links().get("v0").index();
    Vxlan config =
        new Vxlan(4242, Ip.parse("192.0.2.1"), Ip.parse("192.0.2.2"), 4789, underlay, false);
    nl.links().addVxlan("vx0", config);
    Link vx = nl.links().get("vx0");
    assertEquals("vxlan", vx.kind());
    assertEquals(config, vx.vxlan());
    JsonNode data = Oracle.link(node, "vx0").get("linkinfo").get("info_data");
    assertEquals(4242, data.get("id").asInt());
    assertEquals("192.0.2.1", data.get("local").asText());
    assertEquals("192.0.2.2", data.get("remote").asText());
    assertEquals(4789, data.get("port").asInt());
    assertEquals("v0", data.get("link").asText());
    assertFalse(data.get("learning").asBoolean());

    Vxlan v6 = new Vxlan(7, Ip.parse("fd00::1"), Ip.parse("fd00::2"), 4790, underlay, true);
    nl.links().addVxlan("vx1", v6);
    assertEquals(v6, nl.links().get("vx1").vxlan());
    JsonNode data6 = Oracle.link(node, "vx1").get("linkinfo").get("info_data");
    assertEquals("fd00::2", data6.get("remote6").asText());
    assertEquals("fd00::1", data6.get("local6").asText());
    assertTrue(data6.get("learning").asBoolean());
  }

  private static List<String> flags(Node node, String name) {
    return Oracle.link(node, name).get("flags").valueStream().map(JsonNode::asText).toList();
  }
}
