package dev.sart.agent.cni;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sart.agent.ipam.Block;
import dev.sart.fib.netlink.Family;
import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The agent's CNI settings.
 *
 * @param socket the UNIX socket sart-cni connects to (sart: /var/run/sart.sock), made with mode
 *     0600
 * @param hostNetns the namespace the pods' host ends live in, or null for the agent's own (a
 *     hostNetwork DaemonSet; tests give a namespace of their own)
 * @param nodeAddress4 the node's IPv4 address: the pods' gateway, put on each host veth (sart:
 *     {@code SARTD_BGP_NODE_IP}, the Node's InternalIP), or null when there are no IPv4 blocks
 * @param nodeAddress6 the node's IPv6 address for IPv6 blocks, or null
 * @param mtu the MTU of both veth ends, or 0 for the kernel's default
 * @param routeTable the table of the host routes to pods (sart: 120)
 * @param rulePriority the priority of the rule that looks that table up (sart: 2000)
 * @param blocks this node's AddressBlocks (for now from this configuration: see README)
 * @param defaultPool the pool used when the network configuration names none
 * @param enableForwarding whether the agent turns IPv4 and IPv6 forwarding on in the host namespace
 * @param grpcAddress host:port on which sart's gRPC CNIApi is served for tools, or null for none
 */
public record AgentConfig(
    Path socket,
    Path hostNetns,
    InetAddress nodeAddress4,
    InetAddress nodeAddress6,
    int mtu,
    int routeTable,
    int rulePriority,
    List<Block> blocks,
    String defaultPool,
    boolean enableForwarding,
    String grpcAddress) {

  public static final Path DEFAULT_SOCKET = Path.of("/var/run/sart.sock");
  static final Set<String> KEYS =
      Set.of(
          "socket",
          "hostNetns",
          "nodeAddress4",
          "nodeAddress6",
          "mtu",
          "routeTable",
          "rulePriority",
          "blocks",
          "defaultPool",
          "enableForwarding",
          "grpcAddress");

  public AgentConfig {
    blocks = List.copyOf(blocks);
    if (nodeAddress4 != null && Family.of(nodeAddress4) != Family.INET) {
      throw new IllegalArgumentException(
          "nodeAddress4 is not an IPv4 address: " + Ip.format(nodeAddress4));
    }
    if (nodeAddress6 != null && Family.of(nodeAddress6) != Family.INET6) {
      throw new IllegalArgumentException(
          "nodeAddress6 is not an IPv6 address: " + Ip.format(nodeAddress6));
    }
    if (mtu != 0 && (mtu < 68 || mtu > 65535)) {
      throw new IllegalArgumentException("mtu " + mtu + " outside 68..65535");
    }
    if (routeTable <= 0 || routeTable == 253 || routeTable == 254 || routeTable == 255) {
      throw new IllegalArgumentException("routeTable " + routeTable + " is not a table of its own");
    }
    for (Block b : blocks) {
      if (Family.of(b.cidr()) == Family.INET && nodeAddress4 == null
          || Family.of(b.cidr()) == Family.INET6 && nodeAddress6 == null) {
        throw new IllegalArgumentException(
            "block "
                + b.cidr()
                + " needs nodeAddress"
                + (Family.of(b.cidr()) == Family.INET ? "4" : "6")
                + ": the pods' gateway");
      }
    }
    if (defaultPool != null && blocks.stream().noneMatch(b -> b.pool().equals(defaultPool))) {
      throw new IllegalArgumentException("defaultPool " + defaultPool + " has no block");
    }
  }

  /** Defaults with the given blocks. */
  public static AgentConfig of(
      Path socket,
      Path hostNetns,
      String nodeAddress4,
      String nodeAddress6,
      List<Block> blocks,
      String defaultPool) {
    return new AgentConfig(
        socket,
        hostNetns,
        nodeAddress4 == null ? null : Ip.parse(nodeAddress4),
        nodeAddress6 == null ? null : Ip.parse(nodeAddress6),
        0,
        120,
        2000,
        blocks,
        defaultPool,
        true,
        null);
  }

  public AgentConfig withMtu(int m) {
    return new AgentConfig(
        socket,
        hostNetns,
        nodeAddress4,
        nodeAddress6,
        m,
        routeTable,
        rulePriority,
        blocks,
        defaultPool,
        enableForwarding,
        grpcAddress);
  }

  public AgentConfig withGrpcAddress(String a) {
    return new AgentConfig(
        socket,
        hostNetns,
        nodeAddress4,
        nodeAddress6,
        mtu,
        routeTable,
        rulePriority,
        blocks,
        defaultPool,
        enableForwarding,
        a);
  }

  /**
   * Reads the JSON configuration file:
   *
   * <pre>{"socket": "/var/run/sart.sock", "nodeAddress4": "192.0.2.1", "mtu": 1500,
   *  "blocks": [{"pool": "default-pod-pool", "cidr": "10.1.0.0/29"}], "defaultPool": "default-pod-pool"}
   * </pre>
   */
  /**
   * Reads {@code file}. A mistake is an {@link IllegalArgumentException} whose message starts with
   * the key it concerns ({@code "blocks[0].cidr: ..."}), so that the daemon can name its line.
   */
  public static AgentConfig read(Path file) throws IOException {
    JsonNode n;
    try {
      n = CniRequest.JSON.readTree(Files.readAllBytes(file));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException("not valid JSON: " + e.getOriginalMessage());
    }
    if (n == null || !n.isObject()) {
      throw new IllegalArgumentException("not a JSON object");
    }
    for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (!KEYS.contains(k)) {
        throw new IllegalArgumentException(k + ": unknown key (keys: " + KEYS + ")");
      }
    }
    List<Block> blocks = new ArrayList<>();
    JsonNode list = n.path("blocks");
    if (!list.isMissingNode() && !list.isArray()) {
      throw new IllegalArgumentException("blocks: expected a list of {pool, cidr}");
    }
    for (int i = 0; i < list.size(); i++) {
      JsonNode b = list.get(i);
      String cidr = text(b, "cidr", "blocks[" + i + "].cidr");
      try {
        blocks.add(new Block(b.path("pool").asText(""), IpPrefix.parse(cidr)));
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(
            "blocks[" + i + "].cidr: '" + cidr + "' is not a prefix (192.0.2.0/24)");
      }
    }
    return new AgentConfig(
        Path.of(n.has("socket") ? text(n, "socket", "socket") : DEFAULT_SOCKET.toString()),
        n.hasNonNull("hostNetns") ? Path.of(text(n, "hostNetns", "hostNetns")) : null,
        address(n, "nodeAddress4"),
        address(n, "nodeAddress6"),
        integer(n, "mtu", 0),
        integer(n, "routeTable", 120),
        integer(n, "rulePriority", 2000),
        blocks,
        n.hasNonNull("defaultPool") ? text(n, "defaultPool", "defaultPool") : null,
        bool(n, "enableForwarding", true),
        n.hasNonNull("grpcAddress") ? text(n, "grpcAddress", "grpcAddress") : null);
  }

  private static String text(JsonNode n, String key, String path) {
    JsonNode v = n.path(key);
    if (!v.isTextual()) {
      throw new IllegalArgumentException(path + ": expected a string");
    }
    return v.asText();
  }

  private static InetAddress address(JsonNode n, String key) {
    if (!n.hasNonNull(key)) {
      return null;
    }
    String v = text(n, key, key);
    try {
      return Ip.parse(v);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(key + ": '" + v + "' is not an IP address");
    }
  }

  private static int integer(JsonNode n, String key, int dflt) {
    if (!n.hasNonNull(key)) {
      return dflt;
    }
    JsonNode v = n.get(key);
    if (!v.canConvertToInt() || !v.isIntegralNumber() || v.asInt() < 0) {
      throw new IllegalArgumentException(key + ": '" + v.asText() + "' is not a whole number >= 0");
    }
    return v.asInt();
  }

  private static boolean bool(JsonNode n, String key, boolean dflt) {
    if (!n.hasNonNull(key)) {
      return dflt;
    }
    if (!n.get(key).isBoolean()) {
      throw new IllegalArgumentException(key + ": expected true or false");
    }
    return n.get(key).asBoolean();
  }
}
