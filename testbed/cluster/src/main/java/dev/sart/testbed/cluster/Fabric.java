package dev.sart.testbed.cluster;

import dev.sart.testbed.Frr;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.Topology;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The network around the nodes: two FRR ToRs, each on a LAN (a bridge namespace) with every node,
 * and the client behind both, dual-stack. Each ToR peers with every node over IPv4 and over IPv6
 * (what an operator runs for dual-stack: a session per family, RFC 4760 with each family's own next
 * hop); the nodes' IPv6 sessions are configured only when a ClusterBGP names them.
 *
 * <pre>
 *   LAN A 192.0.2.0/26, 2001:db8:a::/64   tor1 .1 / ::1, node i .1(0+i) / ::1(0+i)
 *   LAN B 192.0.2.64/26, 2001:db8:b::/64  tor2 .65 / ::1, node i .7(4+i) / ::1(0+i)
 *   client 203.0.113.100, 2001:db8:ff::100 on lo; links 203.0.113.0/30, .4/30, 2001:db8:c1::/64,
 *   2001:db8:c2::/64
 * </pre>
 */
record Fabric(Node bridgeA, Node bridgeB, Node client, List<Frr> tors) {
  static final String CLIENT_ADDRESS6 = "2001:db8:ff::100";
  static final String TOR1_ADDRESS6 = "2001:db8:a::1";
  static final String TOR2_ADDRESS6 = "2001:db8:b::1";

  static String addressA(int i) {
    return "192.0.2." + (10 + i);
  }

  static String addressB(int i) {
    return "192.0.2." + (74 + i);
  }

  static String address6A(int i) {
    return "2001:db8:a::" + (10 + i);
  }

  static String address6B(int i) {
    return "2001:db8:b::" + (10 + i);
  }

  static Fabric build(Topology topology, int nodeCount) {
    Node bridgeA = topology.bridge("lana");
    Node bridgeB = topology.bridge("lanb");
    Node client = topology.node("client");
    Node tor1 = topology.node("tor1");
    Node tor2 = topology.node("tor2");
    String lanA = topology.attach(tor1, bridgeA).aName();
    String lanB = topology.attach(tor2, bridgeB).aName();
    tor1.address(lanA, Cluster.TOR1_ADDRESS + "/26");
    tor2.address(lanB, Cluster.TOR2_ADDRESS + "/26");
    tor1.address(lanA, TOR1_ADDRESS6 + "/64");
    tor2.address(lanB, TOR2_ADDRESS6 + "/64");
    var l1 = topology.link(tor1, client).addresses("203.0.113.1/30", "203.0.113.2/30");
    var l2 = topology.link(tor2, client).addresses("203.0.113.5/30", "203.0.113.6/30");
    tor1.address(l1.aName(), "2001:db8:c1::1/64");
    client.address(l1.bName(), "2001:db8:c1::2/64");
    tor2.address(l2.aName(), "2001:db8:c2::1/64");
    client.address(l2.bName(), "2001:db8:c2::2/64");
    client.address("lo", Cluster.CLIENT_ADDRESS + "/32");
    client.address("lo", CLIENT_ADDRESS6 + "/128");
    // the client spreads its connections over both ToRs (layer-4 hash), from its own address
    client.exec("sysctl", "-q", "-w", "net.ipv4.fib_multipath_hash_policy=1");
    client.exec("sysctl", "-q", "-w", "net.ipv6.fib_multipath_hash_policy=1");
    client.exec(
        "ip",
        "route",
        "add",
        "default",
        "src",
        Cluster.CLIENT_ADDRESS,
        "nexthop",
        "via",
        "203.0.113.1",
        "nexthop",
        "via",
        "203.0.113.5");
    client.exec(
        "ip",
        "-6",
        "route",
        "add",
        "default",
        "src",
        CLIENT_ADDRESS6,
        "nexthop",
        "via",
        "2001:db8:c1::1",
        "nexthop",
        "via",
        "2001:db8:c2::1");
    for (Node tor : List.of(tor1, tor2)) {
      tor.exec("sysctl", "-q", "-w", "net.ipv4.ip_forward=1");
      tor.exec("sysctl", "-q", "-w", "net.ipv6.conf.all.forwarding=1");
      tor.exec("sysctl", "-q", "-w", "net.ipv4.fib_multipath_hash_policy=1");
      tor.exec("sysctl", "-q", "-w", "net.ipv6.fib_multipath_hash_policy=1");
    }
    tor1.route(Cluster.CLIENT_ADDRESS + "/32", "203.0.113.2");
    tor2.route(Cluster.CLIENT_ADDRESS + "/32", "203.0.113.6");
    tor1.route(CLIENT_ADDRESS6 + "/128", "2001:db8:c1::2");
    tor2.route(CLIENT_ADDRESS6 + "/128", "2001:db8:c2::2");
    RouterConfig c1 =
        RouterConfig.of(Cluster.TOR1_ASN, Cluster.TOR1_ADDRESS)
            .originate(Cluster.CLIENT_ADDRESS + "/32", CLIENT_ADDRESS6 + "/128");
    RouterConfig c2 =
        RouterConfig.of(Cluster.TOR2_ASN, Cluster.TOR2_ADDRESS)
            .originate(Cluster.CLIENT_ADDRESS + "/32", CLIENT_ADDRESS6 + "/128");
    for (int i = 1; i <= nodeCount; i++) {
      c1 =
          c1.neighbor(Neighbor.of(addressA(i), 65000 + i))
              .neighbor(Neighbor.of(address6A(i), 65000 + i));
      c2 =
          c2.neighbor(Neighbor.of(addressB(i), 65000 + i))
              .neighbor(Neighbor.of(address6B(i), 65000 + i));
    }
    List<Frr> tors = new ArrayList<>();
    for (var pair : List.of(Map.entry(tor1, c1), Map.entry(tor2, c2))) {
      // bfdd for every node's sessions (300 ms × 3, FRR's defaults); a session is Up only where the
      // node's BGPPeer asks for BFD too (its template's spec.bfd), and BGP does not wait for it
      Frr frr = new Frr(pair.getKey(), pair.getValue(), true).withBfd(300, 300, 3);
      frr.start();
      // ECMP over the nodes, whose AS paths differ (one AS per node)
      frr.vtysh(
          "configure",
          "router bgp " + pair.getValue().asn(),
          "bgp bestpath as-path multipath-relax",
          "address-family ipv4 unicast",
          "maximum-paths 16",
          "exit-address-family",
          "address-family ipv6 unicast",
          "maximum-paths 16");
      tors.add(frr);
    }
    return new Fabric(bridgeA, bridgeB, client, tors);
  }
}
