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
 * {@code sart-router} chained after Debian's macvlan as a pod's second network ({@code net1}), the
 * pod's {@code eth0} coming from {@code sart-cni}: each network's conflist is run as a runtime
 * (with Multus) runs them, against the agent in this JVM. The external network is an "ext"
 * namespace on the node's uplink, with a host (192.0.2.200) the node itself has no route to: only
 * traffic that leaves by net1 reaches it.
 */
class SartRouterTest extends ChainNodeFixture {
  static final String INTERNET = "192.0.2.200";

  @Override
  void beforeAgent() {
    ext.address("lo", INTERNET + "/32");
  }

  Conflist cluster() {
    return new Conflist(
        node,
        "sart-network",
        "1.0.0",
        List.of(Conflist.plugin("{\"type\":\"sart-cni\",\"endpoint\":\"" + socket + "\"}")));
  }

  ObjectNode router() {
    return Conflist.plugin(
        "{\"type\":\"sart-router\",\"endpoint\":\""
            + socket
            + "\",\"overlay_hijack_subnet\":[\"198.51.100.0/28\"],"
            + "\"service_hijack_subnet\":[\"198.51.100.192/27\"],\"overlay_interface\":\"eth0\"}");
  }

  static String routeGet(Node pod, String to) {
    return pod.exec("ip", "route", "get", to);
  }

  static long txPackets(Node n, String ifname) throws Exception {
    JsonNode l = Conflist.JSON.readTree(n.exec("ip", "-j", "-s", "link", "show", ifname)).get(0);
    return l.path("stats64").path("tx").path("packets").asLong();
  }

  static String address(JsonNode result) {
    return result.path("ips").get(0).path("address").asText().split("/")[0];
  }

  @Test
  void eastWestLeavesByEth0NorthSouthByNet1AndTheNodeReachesThePod() throws Exception {
    Node podA = t.node("poda");
    Node podB = t.node("podb");
    JsonNode clusterA = cluster().add("ca", podA, "eth0");
    String a = address(clusterA);
    String b = address(cluster().add("cb", podB, "eth0"));
    // no default route from host-local: the pod's eth0 has it; sart-router moves it
    Conflist secondary = new Conflist(node, "macvlan-net", "1.0.0", List.of(macvlan(false)));
    JsonNode mac = secondary.add("ca", podA, "net1");
    String net1 = address(mac);

    // without sart-router: everything but the macvlan subnet leaves by eth0
    assertTrue(routeGet(podA, INTERNET).contains("dev eth0"), routeGet(podA, INTERNET));
    assertFalse(ping(podA, INTERNET), "the node has no route to the outside");
    assertFalse(ping(node, net1), "the node cannot reach the pod's macvlan address");

    Conflist chain = new Conflist(node, "macvlan-net", "1.0.0", List.of(macvlan(false), router()));
    Conflist.Outcome o = chain.exec("ADD", router(), mac, "ca", podA, "net1");
    assertEquals(0, o.code(), o.stdout());
    JsonNode result = o.json();
    assertEquals(mac.path("interfaces"), result.path("interfaces"), "sart-router adds none");
    assertEquals(mac.path("ips"), result.path("ips"));

    // east-west: the other pod (and the node) by eth0; north-south: by net1
    assertTrue(routeGet(podA, b).contains("dev eth0"), routeGet(podA, b));
    assertTrue(routeGet(podA, NODE).contains("dev eth0"), routeGet(podA, NODE));
    assertTrue(routeGet(podA, "198.51.100.200").contains("dev eth0"), "Services by eth0");
    assertTrue(routeGet(podA, INTERNET).contains("dev net1"), routeGet(podA, INTERNET));
    assertTrue(ping(podA, b), "pod to pod");
    long net1Before = txPackets(podA, "net1");
    long eth0Before = txPackets(podA, "eth0");
    podA.exec("ping", "-c", "3", "-i", "0.2", "-W", "1", INTERNET);
    assertTrue(txPackets(podA, "net1") - net1Before >= 3, "the echo requests left by net1");
    assertTrue(txPackets(podA, "eth0") - eth0Before < 3, "not by eth0");
    // replies to what comes in on eth0 leave by eth0 (table 200 for eth0's address)
    assertTrue(
        podA.exec("ip", "route", "get", INTERNET, "from", a).contains("dev eth0"),
        podA.exec("ip", "route", "get", INTERNET, "from", a));
    assertTrue(ping(node, a), "the node reaches the pod's cluster address");
    assertTrue(ping(node, net1), "and its macvlan address, through eth0");
    assertTrue(ping(podB, a), "the other pod reaches it");

    // CHECK passes; it fails once a hijacked route is removed by hand
    assertNull(chain.check("ca", podA, "net1", result));
    podA.exec("ip", "route", "del", "198.51.100.0/28");
    Conflist.Outcome failed = chain.check("ca", podA, "net1", result);
    assertNotNull(failed);
    assertEquals(260, failed.json().path("code").asInt(), failed.stdout());
    assertTrue(failed.json().path("msg").asText().contains("198.51.100.0/28"), failed.stdout());

    // DEL of the secondary network: the pod is as sart-cni made it, the node has none of ours
    chain.del("ca", podA, "net1", result);
    assertEquals(List.of(), ours(podA));
    assertEquals(List.of(), ours(node));
    assertTrue(routeGet(podA, INTERNET).contains("dev eth0"), routeGet(podA, INTERNET));
    assertFalse(podA.tryExec("ip", "link", "show", "net1").ok());
    dev.sart.testbed.Shell.Result table200 = podA.tryExec("ip", "route", "show", "table", "200");
    assertTrue(!table200.ok() || table200.stdout().isBlank(), "table 200: " + table200.stdout());
    assertNull(cluster().check("ca", podA, "eth0", clusterA), "sart-cni's CHECK of eth0");
    assertTrue(ping(podA, b), "eth0 still works");
    assertEquals(0, chain.exec("DEL", router(), result, "ca", podA, "net1").code(), "again");
  }
}
