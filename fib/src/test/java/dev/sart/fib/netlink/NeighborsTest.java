package dev.sart.fib.netlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sart.net.Ip;
import dev.sart.testbed.Node;
import dev.sart.testbed.Testbed;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class NeighborsTest {
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
  void addReplaceListAndDeletePermanentEntries() {
    Neighbor v4 =
        Neighbor.permanent(v0, Ip.parse("192.0.2.9"), MacAddress.parse("02:00:00:00:00:09"));
    Neighbor v6 =
        Neighbor.permanent(v0, Ip.parse("fd00::9"), MacAddress.parse("02:00:00:00:00:0a"));
    nl.neighbors().add(v4);
    nl.neighbors().add(v6);
    assertEquals(Set.of(v4, v6), Set.copyOf(permanent(nl.neighbors().list(null, v0))));
    assertEquals(List.of(v6), permanent(nl.neighbors().list(Family.INET6, v0)));
    assertEquals(
        Set.of("192.0.2.9 02:00:00:00:00:09 PERMANENT", "fd00::9 02:00:00:00:00:0a PERMANENT"),
        oracle());

    Neighbor moved = Neighbor.permanent(v0, v4.address(), MacAddress.parse("02:00:00:00:00:99"));
    nl.neighbors().replace(moved);
    assertTrue(nl.neighbors().list().contains(moved));
    assertEquals(
        Set.of("192.0.2.9 02:00:00:00:00:99 PERMANENT", "fd00::9 02:00:00:00:00:0a PERMANENT"),
        oracle());

    nl.neighbors().delete(moved);
    nl.neighbors().delete(v6);
    assertEquals(List.of(), permanent(nl.neighbors().list()));
    assertEquals(Set.of(), oracle());
  }

  @Test
  void errorsNameTheEntry() {
    Neighbor n =
        Neighbor.permanent(v0, Ip.parse("198.51.100.1"), MacAddress.parse("02:00:00:00:00:01"));
    nl.neighbors().add(n);
    NetlinkException exists = assertThrows(NetlinkException.class, () -> nl.neighbors().add(n));
    assertEquals(
        "add neighbour 198.51.100.1 lladdr 02:00:00:00:00:01 dev #" + v0 + ": File exists (EEXIST)",
        exists.getMessage());
    nl.neighbors().delete(n);
    assertEquals(
        Errno.ENOENT, assertThrows(NetlinkException.class, () -> nl.neighbors().delete(n)).errno());
  }

  @Test
  void aBatchOfEntries() {
    Batch b = nl.batch();
    for (int i = 1; i <= 200; i++) {
      b.addNeighbor(
          Neighbor.permanent(v0, Ip.parse("203.0.113." + i), new MacAddress(0x020000000000L + i)));
    }
    assertTrue(b.execute().allSucceeded());
    assertEquals(200, permanent(nl.neighbors().list(Family.INET, v0)).size());
    assertEquals(200, oracle().size());
  }

  @Test
  void permanentFdbEntriesOfAVxlanDevice() {
    nl.links().addVxlan("vx0", new Vxlan(77, null, null, 4789, v0, false));
    int vx = nl.links().get("vx0").index();
    var mac = MacAddress.parse("02:54:c6:33:64:07");
    nl.neighbors().replaceFdb(vx, mac, Ip.parse("198.51.100.7"));
    assertEquals(
        List.of(new FdbEntry(vx, mac, Ip.parse("198.51.100.7"))), nl.neighbors().listFdb(vx));
    // the oracle: bridge fdb, as an operator would look
    String fdb = node.exec("bridge", "fdb", "show", "dev", "vx0");
    assertTrue(
        fdb.contains("02:54:c6:33:64:07 dst 198.51.100.7 self permanent"), "bridge fdb: " + fdb);
    // replace moves it to another remote
    nl.neighbors().replaceFdb(vx, mac, Ip.parse("198.51.100.8"));
    assertEquals(
        List.of(new FdbEntry(vx, mac, Ip.parse("198.51.100.8"))), nl.neighbors().listFdb(vx));
    nl.neighbors().deleteFdb(vx, mac, Ip.parse("198.51.100.8"));
    assertEquals(List.of(), nl.neighbors().listFdb(vx));
    assertEquals(
        Errno.ENOENT,
        assertThrows(
                NetlinkException.class,
                () -> nl.neighbors().deleteFdb(vx, mac, Ip.parse("198.51.100.8")))
            .errno());
  }

  private static List<Neighbor> permanent(List<Neighbor> all) {
    return all.stream().filter(n -> n.state().contains(NeighborState.PERMANENT)).toList();
  }

  private Set<String> oracle() {
    Set<String> out = new java.util.TreeSet<>();
    for (JsonNode j : Oracle.ip(node, "neigh", "show", "dev", "v0", "nud", "permanent")) {
      out.add(
          j.get("dst").asText()
              + " "
              + j.get("lladdr").asText()
              + " "
              + j.get("state").get(0).asText());
    }
    return out;
  }
}
