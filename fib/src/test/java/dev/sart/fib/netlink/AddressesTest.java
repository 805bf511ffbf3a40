package dev.sart.fib.netlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sart.net.Ip;
import dev.sart.testbed.Node;
import dev.sart.testbed.Testbed;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class AddressesTest {
  @RegisterExtension final Testbed testbed = new Testbed();

  private Node node;
  private Netns ns;
  private Netlink nl;
  private int v0;

  @BeforeEach
  void open() {
    node = testbed.topology().node("a");
    ns = Netns.named(node.netns());
    nl = Netlink.open(ns);
    nl.links().addVeth("v0", "v1");
    nl.links().setUp("v0");
    nl.links().setUp("v1");
    v0 = nl.links().get("v0").index();
  }

  @AfterEach
  void close() {
    nl.close();
    ns.close();
  }

  @Test
  void addListAndDeleteIpv4AndIpv6() {
    Address v4 = Address.of(v0, "192.0.2.1/24");
    Address v6 = Address.of(v0, "2001:db8:1::1/64").withFlags(Set.of(AddressFlag.NODAD));
    nl.addresses().add(v4);
    nl.addresses().add(v6);

    List<Address> mine = nl.addresses().list(v0);
    Address got4 = find(mine, "192.0.2.1/24");
    Address got6 = find(mine, "2001:db8:1::1/64");
    assertEquals(Scope.UNIVERSE, got4.scope());
    assertTrue(got4.flags().contains(AddressFlag.PERMANENT), got4.toString());
    assertTrue(got6.flags().contains(AddressFlag.NODAD), got6.toString());
    assertFalse(got6.flags().contains(AddressFlag.TENTATIVE), "nodad: usable at once");
    assertEquals(List.of("192.0.2.1/24", "2001:db8:1::1/64"), oracle("v0", "global"));
    assertTrue(oracleInfo("v0", "2001:db8:1::1").get("nodad").asBoolean());
    assertEquals(1, nl.addresses().list(Family.INET, v0).size());

    nl.addresses().delete(v4);
    nl.addresses().delete(v6);
    assertEquals(List.of(), oracle("v0", "global"));
    assertTrue(nl.addresses().list(v0).stream().noneMatch(a -> a.scope() == Scope.UNIVERSE));
  }

  @Test
  void scopeLabelAndNoprefixroute() {
    Address link =
        new Address(
            v0,
            Ip.parse("198.51.100.7"),
            24,
            Scope.LINK,
            Set.of(AddressFlag.NOPREFIXROUTE),
            "v0:pod");
    nl.addresses().add(link);
    Address got = find(nl.addresses().list(v0), "198.51.100.7/24");
    assertEquals(Scope.LINK, got.scope());
    assertEquals("v0:pod", got.label());
    assertTrue(got.flags().contains(AddressFlag.NOPREFIXROUTE));
    JsonNode info = oracleInfo("v0", "198.51.100.7");
    assertEquals("link", info.get("scope").asText());
    assertEquals("v0:pod", info.get("label").asText());
    assertTrue(info.get("noprefixroute").asBoolean());
    assertEquals(0, Oracle.ip(node, "route", "show", "198.51.100.0/24").size(), "no prefix route");
  }

  @Test
  void errorsNameTheAddress() {
    Address a = Address.of(v0, "203.0.113.5/24");
    nl.addresses().add(a);
    NetlinkException exists = assertThrows(NetlinkException.class, () -> nl.addresses().add(a));
    assertEquals(Errno.EEXIST, exists.errno());
    assertTrue(
        exists
            .getMessage()
            .startsWith("add address 203.0.113.5/24 dev #" + v0 + ": File exists (EEXIST)"),
        exists.getMessage());
    nl.addresses().delete(a);
    NetlinkException missing = assertThrows(NetlinkException.class, () -> nl.addresses().delete(a));
    assertEquals(Errno.EADDRNOTAVAIL, missing.errno());
  }

  @Test
  void replaceUpdatesTheFlagsOfAnIpv6Address() {
    Address a = Address.of(v0, "fd00:5::1/64").withFlags(Set.of(AddressFlag.NODAD));
    nl.addresses().add(a);
    assertEquals(1, Oracle.ip(node, "-6", "route", "show", "fd00:5::/64").size(), "a prefix route");
    nl.addresses().replace(a.withFlags(Set.of(AddressFlag.NODAD, AddressFlag.NOPREFIXROUTE)));
    assertTrue(
        find(nl.addresses().list(v0), "fd00:5::1/64").flags().contains(AddressFlag.NOPREFIXROUTE));
    assertTrue(oracleInfo("v0", "fd00:5::1").get("noprefixroute").asBoolean());
    assertEquals(
        0,
        Oracle.ip(node, "-6", "route", "show", "fd00:5::/64").size(),
        "the prefix route is gone");
  }

  private static Address find(List<Address> all, String cidr) {
    return all.stream()
        .filter(a -> a.cidr().equals(cidr))
        .findFirst()
        .orElseThrow(() -> new AssertionError(cidr + " not in " + all));
  }

  private List<String> oracle(String dev, String scope) {
    List<String> out = new ArrayList<>();
    for (JsonNode l : Oracle.ip(node, "address", "show", "dev", dev, "scope", scope)) {
      for (JsonNode a : l.get("addr_info")) {
        if (!a.has("local")) {
          continue; // ip prints {} for the addresses its filter leaves out
        }
        out.add(a.get("local").asText() + "/" + a.get("prefixlen").asInt());
      }
    }
    return out;
  }

  private JsonNode oracleInfo(String dev, String address) {
    for (JsonNode l : Oracle.ip(node, "address", "show", "dev", dev)) {
      for (JsonNode a : l.get("addr_info")) {
        if (a.get("local").asText().equals(address)) {
          return a;
        }
      }
    }
    throw new AssertionError(address + " not on " + dev);
  }
}
