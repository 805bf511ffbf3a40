package dev.sart.agent.cni;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sart.fib.netlink.Family;
import dev.sart.net.Ip;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** An ADD result (CNI spec §"Success"): the interfaces made, the addresses on them, the routes. */
record CniResult(List<Iface> interfaces, List<IpConfig> ips, List<RouteConfig> routes) {

  /** An interface; {@code sandbox} is the netns path of a container-side one, else null. */
  record Iface(String name, String mac, int mtu, String sandbox) {}

  /**
   * An address "192.0.2.5/32" on interface {@code interfaceIndex} (of {@link #interfaces}), with
   * its gateway.
   */
  record IpConfig(InetAddress address, int prefixLength, InetAddress gateway, int interfaceIndex) {}

  /** A route in the container: {@code dst} via {@code gw}. */
  record RouteConfig(String dst, InetAddress gw) {}

  /**
   * The result in the shape of {@code version}: 0.3.x and 0.4.0 give each IP a "version"; 1.0.0
   * dropped it; 1.1.0 adds the interface MTU.
   */
  byte[] toJson(String version) {
    ObjectNode root = CniRequest.JSON.createObjectNode();
    root.put("cniVersion", version);
    boolean legacy = CniVersion.compare(version, "1.0.0") < 0;
    boolean v11 = CniVersion.compare(version, "1.1.0") >= 0;
    ArrayNode ifs = root.putArray("interfaces");
    for (Iface i : interfaces) {
      ObjectNode n = ifs.addObject().put("name", i.name()).put("mac", i.mac());
      if (v11 && i.mtu() > 0) {
        n.put("mtu", i.mtu());
      }
      if (i.sandbox() != null) {
        n.put("sandbox", i.sandbox());
      }
    }
    ArrayNode ipArray = root.putArray("ips");
    for (IpConfig ip : ips) {
      ObjectNode n = ipArray.addObject();
      if (legacy) {
        n.put("version", Family.of(ip.address()) == Family.INET ? "4" : "6");
      }
      n.put("interface", ip.interfaceIndex());
      n.put("address", Ip.format(ip.address()) + "/" + ip.prefixLength());
      if (ip.gateway() != null) {
        n.put("gateway", Ip.format(ip.gateway()));
      }
    }
    ArrayNode rs = root.putArray("routes");
    for (RouteConfig r : routes) {
      ObjectNode n = rs.addObject().put("dst", r.dst());
      if (r.gw() != null) {
        n.put("gw", Ip.format(r.gw()));
      }
    }
    root.putObject("dns");
    return (root.toString() + "\n").getBytes(StandardCharsets.UTF_8);
  }

  /** The error JSON of CNI spec §"Error". */
  static byte[] errorJson(String version, CniException e) {
    ObjectNode root = CniRequest.JSON.createObjectNode();
    root.put("cniVersion", version);
    root.put("code", e.code());
    root.put("msg", e.getMessage());
    if (!e.details().isEmpty()) {
      root.put("details", e.details());
    }
    return (root.toString() + "\n").getBytes(StandardCharsets.UTF_8);
  }

  /** The addresses a previous result (CHECK's prevResult) lists, as "192.0.2.5/32". */
  static List<String> addresses(JsonNode prevResult) {
    return prevResult.path("ips").findValuesAsText("address");
  }
}
