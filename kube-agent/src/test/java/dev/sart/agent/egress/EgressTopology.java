package dev.sart.agent.egress;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.Netns;
import dev.sart.net.IpPrefix;
import dev.sart.testbed.Node;
import dev.sart.testbed.Topology;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Namespaces as a node and its pods for the egress tests: a "node" namespace routes between the
 * pods (each a /32 on {@code eth1} behind a veth, the node's address as gateway, as sart's CNI
 * does) and two "external" servers, and plays kube-proxy (nftables DNAT of the egress Service's
 * ClusterIP to egress pods, and of a web Service). Echo servers on the externals and the web pod
 * answer with the source address they see.
 */
final class EgressTopology implements AutoCloseable {
  static final String NODE_ADDRESS = "203.0.113.1";
  static final String CLIENT = "203.0.113.10";
  static final String PLAIN = "203.0.113.11";
  static final String COIL = "203.0.113.12";
  static final String GW1 = "203.0.113.20";
  static final String GW2 = "203.0.113.21";
  static final String WEB = "203.0.113.30";
  static final String STATIC = "203.0.113.200";
  static final String EGRESS_CLUSTER_IP = "192.0.2.100";
  static final String WEB_CLUSTER_IP = "192.0.2.101";
  static final String SERVER = "198.51.100.130"; // in the Egress's destinations
  static final String OTHER = "198.51.100.10"; // not in them
  static final IpPrefix DESTINATIONS = IpPrefix.parse("198.51.100.128/25");
  static final String UPLINK = "eth1";
  static final String NODE_ADDRESS6 = "fd00::1";
  static final String CLIENT6 = "fd00::10";
  static final String PLAIN6 = "fd00::11";
  static final String GW1_6 = "fd00::20";
  static final String STATIC6 = "2001:db8:ffff::200";
  static final String SERVER6 = "2001:db8:1::130"; // in DESTINATIONS6
  static final String OTHER6 = "2001:db8:2::10"; // not in them
  static final IpPrefix DESTINATIONS6 = IpPrefix.parse("2001:db8:1::/64");
  static final int PORT = 7000;
  static final String CLIENT6_ONLY = "fd00::40"; // IPv6-only pods (pod6)
  static final String GW6_ONLY = "fd00::50";
  static final String EGRESS_CLUSTER_IP6 = "fd00::100";

  final Topology t;
  final Node node;
  final Node client;
  final Node plain;
  final Node coil;
  final Node gw1;
  final Node gw2;
  final Node web;
  final Node server;
  final Node other;
  private final List<AutoCloseable> closing = new ArrayList<>();

  EgressTopology(Topology t) {
    this.t = t;
    node = t.node("node");
    node.exec("sysctl", "-q", "-w", "net.ipv4.ip_forward=1");
    client = pod("client", CLIENT);
    plain = pod("plain", PLAIN);
    coil = pod("coil", COIL);
    gw1 = pod("gw1", GW1);
    gw2 = pod("gw2", GW2);
    web = pod("web", WEB);
    server = external("server", SERVER, "198.51.100.129", 25);
    other = external("other", OTHER, "198.51.100.1", 25);
    closing.add(new EchoServer(server.netns(), SERVER, PORT));
    closing.add(new EchoServer(other.netns(), OTHER, PORT));
    closing.add(new EchoServer(web.netns(), WEB, 8080));
  }

  /** The VNI of the Egress internet-egress/nat, the one the tests tunnel to. */
  static final int VNI = EgressIds.vni("internet-egress", "nat");

  /**
   * The gateway end of internet-egress/nat in the pod {@code gw}, made (its sysctls written from
   * inside the namespace); its netlink socket is closed with the topology.
   */
  GatewayTunnel gatewayTunnel(Node gw) throws Exception {
    var ns = Netns.named(gw.netns());
    var nl = Netlink.open(ns);
    closing.add(ns);
    closing.add(nl);
    var tunnel = new GatewayTunnel(nl, UPLINK, VNI, 4789);
    ns.run(
        () -> {
          tunnel.setUp();
          return null;
        });
    return tunnel;
  }

  /**
   * The node agent's part for the pod {@code pod} at {@code address}: internet-egress/nat through
   * the egress Service's {@code clusterIp} for {@code destinations} ({@link ClientTunnels#apply}).
   * Returns the pod's netlink socket (closed with the topology), to apply again with.
   */
  Netlink clientTunnels(Node pod, String address, String clusterIp, List<IpPrefix> destinations)
      throws Exception {
    var ns = Netns.named(pod.netns());
    var nl = Netlink.open(ns);
    closing.add(ns);
    closing.add(nl);
    ClientTunnels.apply(
        nl, InetAddress.getByName(address), UPLINK, egressVia(clusterIp, destinations));
    return nl;
  }

  /** What a client pod uses: internet-egress/nat through {@code clusterIp} for these. */
  static List<ClientEgress> egressVia(String clusterIp, List<IpPrefix> destinations)
      throws java.net.UnknownHostException {
    return List.of(
        new ClientEgress(
            "internet-egress", "nat", InetAddress.getByName(clusterIp), 4789, destinations));
  }

  @Override
  public void close() throws Exception {
    for (var c : closing.reversed()) {
      c.close();
    }
  }

  /**
   * Makes the client, the plain pod and the first gateway dual-stack (an IPv6 /128 each, the node's
   * {@code fd00::1} as gateway) and adds two IPv6-only external servers, one in {@link
   * #DESTINATIONS6} and one outside it.
   */
  void ipv6() {
    node.exec("sysctl", "-q", "-w", "net.ipv6.conf.all.forwarding=1");
    for (var p : List.of(List.of(client, CLIENT6), List.of(plain, PLAIN6), List.of(gw1, GW1_6))) {
      var pod = (Node) p.get(0);
      var address = (String) p.get(1);
      String hostEnd = links.get(pod);
      node.exec("ip", "-6", "address", "add", NODE_ADDRESS6 + "/128", "dev", hostEnd, "nodad");
      node.exec("ip", "-6", "route", "add", address + "/128", "dev", hostEnd);
      pod.exec("ip", "-6", "address", "add", address + "/128", "dev", UPLINK, "nodad");
      pod.exec("ip", "-6", "route", "add", NODE_ADDRESS6, "dev", UPLINK);
      pod.exec("ip", "-6", "route", "add", "default", "via", NODE_ADDRESS6, "dev", UPLINK);
    }
    for (var e :
        List.of(
            List.of("server6", SERVER6, "2001:db8:1::1"),
            List.of("other6", OTHER6, "2001:db8:2::1"))) {
      var n = t.node(e.get(0));
      var link = t.link(node, n);
      node.exec("ip", "-6", "address", "add", e.get(2) + "/64", "dev", link.aName(), "nodad");
      n.exec("ip", "-6", "address", "add", e.get(1) + "/64", "dev", link.bName(), "nodad");
      n.exec("ip", "-6", "route", "add", "default", "via", e.get(2));
      closing.add(new EchoServer(n.netns(), e.get(1), PORT));
    }
  }

  private final java.util.Map<Node, String> links = new java.util.HashMap<>();

  /** An IPv6-only pod: a /128, the node's {@code fd00::1} as gateway (call {@link #ipv6} first). */
  Node pod6(String name, String address) {
    var pod = t.node(name);
    var link = t.link(node, pod);
    links.put(pod, link.aName());
    node.exec("ip", "-6", "address", "add", NODE_ADDRESS6 + "/128", "dev", link.aName(), "nodad");
    node.exec("ip", "-6", "route", "add", address + "/128", "dev", link.aName());
    pod.exec("ip", "-6", "address", "add", address + "/128", "dev", link.bName(), "nodad");
    pod.exec("ip", "-6", "route", "add", NODE_ADDRESS6, "dev", link.bName());
    pod.exec("ip", "-6", "route", "add", "default", "via", NODE_ADDRESS6, "dev", link.bName());
    return pod;
  }

  /**
   * kube-proxy's part in an IPv6-only cluster: the egress Service's IPv6 ClusterIP to a gateway.
   */
  void kubeProxy6(String gateway) {
    nft(
        node,
        "add table ip6 kp6\ndelete table ip6 kp6\ntable ip6 kp6 {\n"
            + " chain pre { type nat hook prerouting priority dstnat;\n"
            + "  ip6 daddr "
            + EGRESS_CLUSTER_IP6
            + " udp dport 4789 dnat to "
            + gateway
            + "\n }\n}\n");
  }

  Node pod(String name, String address) {
    var pod = t.node(name);
    var link = t.link(node, pod);
    links.put(pod, link.aName());
    node.exec("ip", "address", "add", NODE_ADDRESS + "/32", "dev", link.aName());
    node.exec("ip", "route", "add", address + "/32", "dev", link.aName());
    pod.exec("ip", "address", "add", address + "/32", "dev", link.bName());
    pod.exec("ip", "route", "add", NODE_ADDRESS, "dev", link.bName(), "scope", "link");
    pod.exec("ip", "route", "add", "default", "via", NODE_ADDRESS);
    return pod;
  }

  private Node external(String name, String address, String gateway, int length) {
    var n = t.node(name);
    var link = t.link(node, n);
    node.exec("ip", "address", "add", gateway + "/" + length, "dev", link.aName());
    n.exec("ip", "address", "add", address + "/" + length, "dev", link.bName());
    n.exec("ip", "route", "add", "default", "via", gateway);
    return n;
  }

  /** kube-proxy's part: the egress Service's ClusterIP to the gateways, the web Service. */
  void kubeProxy(String... gateways) {
    var map = new StringBuilder();
    for (int i = 0; i < gateways.length; i++) {
      map.append(i == 0 ? "" : ", ").append(i).append(" : ").append(gateways[i]);
    }
    nft(
        node,
        "add table ip kp\ndelete table ip kp\ntable ip kp {\n"
            + " chain pre { type nat hook prerouting priority dstnat;\n"
            + "  ip daddr "
            + EGRESS_CLUSTER_IP
            + " udp dport 4789 dnat to numgen random mod "
            + gateways.length
            + " map { "
            + map
            + " }\n"
            + "  ip daddr "
            + WEB_CLUSTER_IP
            + " tcp dport 80 dnat to "
            + WEB
            + ":8080\n }\n}\n");
  }

  /** {@link GatewayNat} running nft in {@code n}, through the test bed's program guard. */
  static GatewayNat nat(Node n) {
    return new GatewayNat(n.inNetns(List.of("nft")), dev.sart.testbed.Programs::processBuilder);
  }

  static void nft(Node n, String rules) {
    try {
      var p =
          dev.sart.testbed.Programs.processBuilder(n.inNetns(List.of("nft", "-f", "-")))
              .redirectErrorStream(true)
              .start();
      try (var in = p.getOutputStream()) {
        in.write(rules.getBytes(StandardCharsets.UTF_8));
      }
      var out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertEquals(0, p.waitFor(), "nft: " + out + "\n" + rules);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }
}
