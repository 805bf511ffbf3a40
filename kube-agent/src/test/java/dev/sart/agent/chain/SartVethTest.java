package dev.sart.agent.chain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sart.testbed.Node;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code sart-veth} chained after Debian's macvlan (+ host-local), run as a runtime runs a
 * conflist, against the agent in this JVM. The "node" has an uplink to an "external" namespace; the
 * pod's only interface is a macvlan on that uplink, which cannot reach the node itself (macvlan
 * isolates the parent) nor the node's Service stand-in (an nftables DNAT, as the test bed's
 * kube-proxy stand-in does).
 */
class SartVethTest extends ChainNodeFixture {
  static final String SERVICE = "198.51.100.200";

  @Override
  void beforeAgent() {
    node.address("lo", NODE + "/32");
    // the Service stand-in: its address is DNATed to the node's
    node.exec(
        "nft",
        "add table ip svc; add chain ip svc pre { type nat hook prerouting priority dstnat; };"
            + " add rule ip svc pre ip daddr "
            + SERVICE
            + " dnat to "
            + NODE);
  }

  ObjectNode veth(String extra) {
    return Conflist.plugin(
        "{\"type\":\"sart-veth\",\"endpoint\":\""
            + socket
            + "\",\"overlay_hijack_subnet\":[\"198.51.100.0/28\"],"
            + "\"service_hijack_subnet\":\"198.51.100.192/27\","
            + "\"log_options\":{\"log_level\":\"debug\"}"
            + extra
            + "}");
  }

  @Test
  void aMacvlanPodReachesItsNodeAndServicesOnlyWithSartVeth() {
    Node pod = t.node("pod");
    Conflist main = new Conflist(node, "macvlan-net", "1.0.0", List.of(macvlan(true)));
    JsonNode mac = main.add("c1", pod, "eth0");
    // without sart-veth: the outside yes, the node and the Service no
    assertTrue(ping(pod, EXTERNAL), "macvlan reaches the external network");
    assertFalse(ping(pod, UPLINK), "macvlan cannot reach its own node");
    assertFalse(ping(pod, SERVICE), "nor the node's Services");

    Conflist chained = new Conflist(node, "macvlan-net", "1.0.0", List.of(veth("")));
    Conflist.Outcome o = chained.exec("ADD", veth(""), mac, "c1", pod, "eth0");
    assertEquals(0, o.code(), o.stdout());
    JsonNode result = o.json();
    String hostEnd = Veth.hostVethName("c1", "eth0");
    assertEquals(List.of("eth0", hostEnd, "veth0"), Conflist.interfaces(result));
    assertEquals(mac.path("ips"), result.path("ips"), "prevResult's addresses pass through");
    assertEquals(
        "/var/run/netns/" + pod.netns(), result.path("interfaces").get(2).path("sandbox").asText());
    String podIp = result.path("ips").get(0).path("address").asText().split("/")[0];

    assertTrue(ping(pod, UPLINK), "the node's uplink address over veth0");
    assertTrue(ping(pod, NODE), "the node's own address over veth0");
    assertTrue(ping(pod, SERVICE), "a Service address through the node's DNAT");
    assertTrue(ping(pod, EXTERNAL), "the external network still over macvlan");
    assertTrue(ping(node, podIp), "the node reaches the pod");
    assertTrue(
        pod.exec("ip", "route", "get", SERVICE).contains("dev veth0"),
        "Services go by veth0: " + pod.exec("ip", "route", "get", SERVICE));
    assertTrue(pod.exec("ip", "route", "get", EXTERNAL).contains("dev eth0"));
    // permanent neighbours both ways
    assertTrue(
        pod.exec("ip", "neigh", "show", UPLINK, "dev", "veth0").contains("PERMANENT"),
        pod.exec("ip", "neigh", "show", "dev", "veth0"));
    assertTrue(node.exec("ip", "neigh", "show", podIp, "dev", hostEnd).contains("PERMANENT"));
    assertEquals(
        "2", pod.exec("cat", "/proc/sys/net/ipv4/conf/veth0/rp_filter").strip(), "rp_filter");

    // CHECK passes, and fails once a route is removed by hand
    assertNull(chained.check("c1", pod, "eth0", result));
    pod.exec("ip", "route", "del", "198.51.100.192/27");
    Conflist.Outcome failed = chained.check("c1", pod, "eth0", result);
    assertNotNull(failed, "CHECK after the Service route was removed");
    assertEquals(260, failed.json().path("code").asInt(), failed.stdout());
    assertTrue(failed.json().path("msg").asText().contains("198.51.100.192/27"), failed.stdout());
    // a repeated ADD puts it back
    assertEquals(0, chained.exec("ADD", veth(""), mac, "c1", pod, "eth0").code());
    assertNull(chained.check("c1", pod, "eth0", result));

    // DEL (the chain in reverse): everything goes, on the node and in the pod
    new Conflist(node, "macvlan-net", "1.0.0", List.of(macvlan(true), veth("")))
        .del("c1", pod, "eth0", result);
    assertFalse(node.tryExec("ip", "link", "show", hostEnd).ok(), "host end removed");
    assertEquals(List.of(), ours(node));
    assertEquals("", node.exec("ip", "neigh", "show", "dev", uplink, "nud", "permanent").strip());
    assertFalse(pod.tryExec("ip", "link", "show", "veth0").ok());
    assertFalse(pod.tryExec("ip", "link", "show", "eth0").ok());
    // DEL again, and DEL with the namespace gone: nothing to do, success
    assertEquals(0, chained.exec("DEL", veth(""), result, "c1", pod, "eth0").code());
    t.remove(pod);
    assertEquals(0, chained.exec("DEL", veth(""), result, "c1", null, "eth0").code());
  }

  @Test
  void aSecondMacvlanInterfaceGetsItsRoutesMigratedAndItsMacFromThePrefix() {
    // a second uplink for the pod's second macvlan
    dev.sart.testbed.Link l2 = t.link(node, ext).addresses("192.0.2.65/26", "192.0.2.126/26");
    Node pod = t.node("pod");
    JsonNode first =
        new Conflist(node, "macvlan-net", "1.0.0", List.of(macvlan(true), veth("")))
            .add("c2", pod, "eth0");
    ObjectNode second = veth(",\"mac_prefix\":\"1a:2b\"");
    Conflist chain2 =
        new Conflist(
            node,
            "second-net",
            "1.0.0",
            List.of(
                macvlan(l2.aName(), "192.0.2.64/26", "192.0.2.70", "192.0.2.80", null, false),
                second));
    JsonNode result = chain2.add("c2", pod, "net1");
    assertEquals(List.of("net1"), Conflist.interfaces(result), "veth0 is eth0's: none added");
    assertEquals("1a:2b:c0:00:02:46", result.path("interfaces").get(0).path("mac").asText());
    assertTrue(
        pod.exec("ip", "link", "show", "net1").contains("1a:2b:c0:00:02:46"),
        pod.exec("ip", "link", "show", "net1"));
    // migrate_route -1: net1 comes after eth0, its routes move to table 200
    assertTrue(
        pod.exec("ip", "route", "show", "table", "200").contains("192.0.2.64/26 dev net1"),
        pod.exec("ip", "route", "show", "table", "200"));
    assertTrue(pod.exec("ip", "rule", "show").contains("from 192.0.2.70 lookup 200"));
    // the main table stays eth0's: of net1's routes only its own subnet is left in it
    assertEquals(
        List.of("192.0.2.64/26 proto kernel scope link src 192.0.2.70"),
        pod.exec("ip", "route", "show", "table", "main", "dev", "net1")
            .lines()
            .map(String::strip)
            .toList());
    assertTrue(pod.exec("ip", "route", "get", "198.51.100.250").contains("dev eth0"));
    assertTrue(ping(pod, UPLINK), "eth0's sart-veth still serves the pod");
    assertNull(chain2.check("c2", pod, "net1", result));
    pod.exec("ip", "rule", "del", "from", "192.0.2.70", "lookup", "200");
    Conflist.Outcome failed = chain2.check("c2", pod, "net1", result);
    assertNotNull(failed, "CHECK after the rule was removed");
    assertEquals(260, failed.json().path("code").asInt(), failed.stdout());

    chain2.del("c2", pod, "net1", result);
    assertFalse(pod.exec("ip", "rule", "show").contains("lookup 200"));
    assertFalse(pod.tryExec("ip", "link", "show", "net1").ok());
    assertTrue(ping(pod, UPLINK), "eth0's veth stays");

    // GC (1.1): the attachment is not listed, its host end goes
    ObjectNode gc = veth("");
    gc.set("cni.dev/valid-attachments", Conflist.JSON.createArrayNode());
    String hostEnd = Veth.hostVethName("c2", "eth0");
    assertTrue(node.tryExec("ip", "link", "show", hostEnd).ok());
    Conflist v11 = new Conflist(node, "macvlan-net", "1.1.0", List.of(gc));
    assertEquals(0, v11.exec("GC", gc, null, "", null, "").code());
    assertFalse(node.tryExec("ip", "link", "show", hostEnd).ok(), "garbage-collected");
    assertEquals(0, v11.exec("STATUS", gc, null, "", null, "").code(), "STATUS: ready");
    new Conflist(node, "macvlan-net", "1.0.0", List.of(macvlan(true), veth("")))
        .del("c2", pod, "eth0", first);
  }

  @Test
  void skipCallPassesPrevResultThroughAndAMissingPrevResultIsAnError() {
    Node pod = t.node("pod");
    Conflist main = new Conflist(node, "macvlan-net", "1.0.0", List.of(macvlan(true)));
    JsonNode mac = main.add("c3", pod, "eth0");
    Conflist.Outcome skipped =
        main.exec("ADD", veth(",\"skip_call\":true"), mac, "c3", pod, "eth0");
    assertEquals(0, skipped.code(), skipped.stdout());
    assertEquals(mac, skipped.json());
    assertFalse(pod.tryExec("ip", "link", "show", "veth0").ok(), "nothing made");
    Conflist.Outcome none = main.exec("ADD", veth(""), null, "c3", pod, "eth0");
    assertEquals(1, none.code());
    assertEquals(7, none.json().path("code").asInt());
    assertTrue(none.json().path("msg").asText().contains("\"prevResult\""), none.stdout());
    Conflist.Outcome old =
        new Conflist(node, "n", "0.3.1", List.of()).exec("ADD", veth(""), mac, "c3", pod, "eth0");
    assertEquals(1, old.json().path("code").asInt(), "0.3.1 has no CHECK: " + old.stdout());
    main.del("c3", pod, "eth0", mac);
  }

  @Test
  void aFailedAddUndoesItsWork() {
    // a dual-stack pod, an IPv6 Service subnet, and a node without an IPv6 address: the ADD
    // fails after the veth was made, and removes it
    Node pod = t.node("pod");
    ObjectNode dual = macvlan(true);
    ((com.fasterxml.jackson.databind.node.ArrayNode) dual.path("ipam").path("ranges"))
        .add(
            Conflist.JSON
                .createArrayNode()
                .add(Conflist.plugin("{\"subnet\":\"2001:db8:5::/64\"}")));
    Conflist main = new Conflist(node, "macvlan-net", "1.0.0", List.of(dual));
    JsonNode mac = main.add("c4", pod, "eth0");
    ObjectNode v6 = veth(",\"additional_hijack_subnet\":[\"2001:db8:6::/64\"]");
    Conflist.Outcome o = main.exec("ADD", v6, mac, "c4", pod, "eth0");
    assertEquals(1, o.code(), o.stdout());
    assertEquals(7, o.json().path("code").asInt(), o.stdout());
    assertTrue(o.json().path("msg").asText().contains("2001:db8:6::/64"), o.stdout());
    assertFalse(node.tryExec("ip", "link", "show", Veth.hostVethName("c4", "eth0")).ok());
    assertFalse(pod.tryExec("ip", "link", "show", "veth0").ok());
    assertEquals(List.of(), ours(node));
    assertEquals(List.of(), ours(pod));
    main.del("c4", pod, "eth0", mac);
  }
}
