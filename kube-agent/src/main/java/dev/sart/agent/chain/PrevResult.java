package dev.sart.agent.chain;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sart.fib.netlink.Family;
import dev.sart.net.Ip;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The result the previous plugin of the chain returned (CNI spec §"Chained plugins": a chained
 * plugin receives it as {@code prevResult} and returns it, extended with what it added). The JSON
 * tree is kept whole, so that keys this plugin does not know (dns, the runtime's own) pass through.
 *
 * @param json the prevResult object as received
 * @param interfaces its {@code interfaces}
 * @param ips its {@code ips}
 */
record PrevResult(ObjectNode json, List<Iface> interfaces, List<IpConfig> ips) {

  /** An interface of the result; {@code sandbox} is "" for a host-side one. */
  record Iface(String name, String mac, String sandbox) {}

  /** An address on interface {@code interfaceIndex} (-1: none given), with its gateway or null. */
  record IpConfig(InetAddress address, int prefixLength, InetAddress gateway, int interfaceIndex) {
    Family family() {
      return Family.of(address);
    }
  }

  /** An interface a chained plugin adds to the result. */
  record Added(String name, String mac, int mtu, String sandbox) {}

  static PrevResult parse(JsonNode prev, String version) throws ChainException {
    if (!prev.isObject()) {
      throw ChainException.config("prevResult", "must be an object (the previous plugin's result)");
    }
    List<Iface> ifs = new ArrayList<>();
    JsonNode interfaces = prev.path("interfaces");
    for (int i = 0; i < interfaces.size(); i++) {
      JsonNode n = interfaces.get(i);
      ifs.add(
          new Iface(
              n.path("name").asText(""), n.path("mac").asText(""), n.path("sandbox").asText("")));
    }
    List<IpConfig> ips = new ArrayList<>();
    JsonNode list = prev.path("ips");
    for (int i = 0; i < list.size(); i++) {
      JsonNode n = list.get(i);
      String field = "prevResult.ips[" + i + "]";
      String cidr = n.path("address").asText("");
      int slash = cidr.indexOf('/');
      InetAddress address;
      int length;
      try {
        address = Ip.parse(cidr.substring(0, slash));
        length = Integer.parseInt(cidr.substring(slash + 1));
        if (length < 0 || length > Family.of(address).maxPrefixLength()) {
          throw new IllegalArgumentException("prefix length " + length);
        }
      } catch (RuntimeException e) {
        throw ChainException.config(field + ".address", "is not an address/length: " + cidr);
      }
      InetAddress gw = null;
      if (n.hasNonNull("gateway")) {
        try {
          gw = Ip.parse(n.path("gateway").asText());
        } catch (RuntimeException e) {
          throw ChainException.config(field + ".gateway", "is not an address: " + n.get("gateway"));
        }
      }
      int index = n.hasNonNull("interface") ? n.path("interface").asInt(-1) : -1;
      if (index >= ifs.size()) {
        throw ChainException.config(
            field + ".interface", "is " + index + " but there are " + ifs.size() + " interfaces");
      }
      ips.add(new IpConfig(address, length, gw, index));
    }
    return new PrevResult((ObjectNode) prev, ifs, ips);
  }

  /**
   * The addresses on the pod's interface {@code ifname}; when no address names its interface (the
   * spec makes the index optional), all of them.
   */
  List<IpConfig> ipsOn(String ifname) {
    if (ips.stream().allMatch(ip -> ip.interfaceIndex() < 0)) {
      return ips;
    }
    return ips.stream()
        .filter(ip -> ip.interfaceIndex() >= 0)
        .filter(ip -> interfaces.get(ip.interfaceIndex()).name().equals(ifname))
        .filter(ip -> !interfaces.get(ip.interfaceIndex()).sandbox().isEmpty())
        .toList();
  }

  /**
   * The result to print: this one in the shape of {@code version} with {@code added} appended to
   * its interfaces (the IP indexes stay valid) and the MAC of {@code macOf} replaced when not null.
   */
  byte[] toJson(String version, List<Added> added, String macOf, String newMac) {
    ObjectNode root = json.deepCopy();
    root.put("cniVersion", version);
    ArrayNode ifs = root.withArray("interfaces");
    if (macOf != null) {
      for (JsonNode i : ifs) {
        if (i.path("name").asText().equals(macOf) && !i.path("sandbox").asText("").isEmpty()) {
          ((ObjectNode) i).put("mac", newMac);
        }
      }
    }
    for (Added a : added) {
      ObjectNode n = ifs.addObject().put("name", a.name()).put("mac", a.mac());
      if (version.equals("1.1.0") && a.mtu() > 0) {
        n.put("mtu", a.mtu());
      }
      if (a.sandbox() != null) {
        n.put("sandbox", a.sandbox());
      }
    }
    boolean legacy = version.startsWith("0.");
    for (JsonNode ip : root.withArray("ips")) {
      ObjectNode o = (ObjectNode) ip;
      if (legacy && !o.has("version")) {
        o.put("version", o.path("address").asText().contains(":") ? "6" : "4");
      } else if (!legacy) {
        o.remove("version");
      }
    }
    return (root.toString() + "\n").getBytes(StandardCharsets.UTF_8);
  }
}
