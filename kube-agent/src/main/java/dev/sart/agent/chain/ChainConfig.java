package dev.sart.agent.chain;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * One call of a chained plugin: the {@code CNI_*} parameters (CNI spec §"Parameters") and the keys
 * of the meta-plugins design read from the network configuration, validated; a bad value is error 7
 * naming the key.
 *
 * @param plugin {@code sart-veth} or {@code sart-router}
 * @param command CNI_COMMAND
 * @param containerId CNI_CONTAINERID
 * @param netns CNI_NETNS, or "" (DEL may come without one)
 * @param ifname CNI_IFNAME: the interface the main plugin of this chain made
 * @param cniVersion the configuration's version
 * @param prevResult the previous plugin's result, or null
 * @param overlaySubnets {@code overlay_hijack_subnet}: the cluster's pod subnets
 * @param serviceSubnets {@code service_hijack_subnet}: the Service (cluster IP) subnets
 * @param additionalSubnets {@code additional_hijack_subnet}: more subnets routed the same way
 * @param migrateRoute {@code migrate_route}: -1 by interface name order, 0 never, 1 always
 * @param skipCall {@code skip_call}: pass prevResult through and do nothing
 * @param rpFilter {@code rp_filter}: 0, 1 or 2 for the pod's interfaces
 * @param macPrefix {@code mac_prefix}: the two first octets of the main interface's MAC as 16 bits,
 *     or -1
 * @param onlyOpMac {@code only_op_mac}: with a MAC prefix, change the MAC and nothing else
 * @param overlayInterface {@code overlay_interface}: the pod's cluster interface (sart-router)
 * @param validAttachments GC: {@code cni.dev/valid-attachments} as "containerId/ifname", or null
 */
record ChainConfig(
    String plugin,
    String command,
    String containerId,
    String netns,
    String ifname,
    String cniVersion,
    PrevResult prevResult,
    List<IpPrefix> overlaySubnets,
    List<IpPrefix> serviceSubnets,
    List<IpPrefix> additionalSubnets,
    int migrateRoute,
    boolean skipCall,
    int rpFilter,
    int macPrefix,
    boolean onlyOpMac,
    String overlayInterface,
    List<String> validAttachments) {

  /** The CNI versions with prevResult and CHECK (0.4.0 on). */
  static final List<String> VERSIONS = List.of("0.4.0", "1.0.0", "1.1.0");

  /** The hijacked subnets of all three keys, in order. */
  List<IpPrefix> hijacked() {
    List<IpPrefix> all = new ArrayList<>(overlaySubnets);
    all.addAll(serviceSubnets);
    all.addAll(additionalSubnets);
    return all;
  }

  static ChainConfig parse(String plugin, Map<String, String> env, JsonNode conf)
      throws ChainException {
    String command = env.getOrDefault("CNI_COMMAND", "");
    if (conf == null || !conf.isObject()) {
      throw new ChainException(
          ChainException.DECODE, "the network configuration is not a JSON object", "");
    }
    String version = text(conf, "cniVersion", null);
    if (version == null || version.isEmpty()) {
      throw ChainException.config("cniVersion", "is missing");
    }
    if (!VERSIONS.contains(version)) {
      throw new ChainException(
          ChainException.INCOMPATIBLE_VERSION,
          "incompatible CNI version " + version,
          plugin + " supports " + VERSIONS + " (it needs prevResult and CHECK)");
    }
    if ((command.equals("STATUS") || command.equals("GC")) && !version.equals("1.1.0")) {
      throw new ChainException(
          ChainException.INCOMPATIBLE_VERSION,
          "configuration version " + version + " does not allow " + command,
          command + " exists from CNI 1.1.0");
    }
    String containerId = env.getOrDefault("CNI_CONTAINERID", "");
    String ifname = env.getOrDefault("CNI_IFNAME", "");
    String netns = env.getOrDefault("CNI_NETNS", "");
    if (command.equals("ADD") || command.equals("DEL") || command.equals("CHECK")) {
      // CNI spec §"Parameters"
      if (!containerId.matches("[A-Za-z0-9][A-Za-z0-9_.\\-]*")) {
        throw new ChainException(
            ChainException.INVALID_ENVIRONMENT,
            "CNI_CONTAINERID is missing or not a container id: '" + containerId + "'",
            "");
      }
      if (ifname.isEmpty()
          || ifname.length() > 15
          || ifname.chars().anyMatch(c -> c == '/' || c == ':' || Character.isWhitespace(c))) {
        throw new ChainException(
            ChainException.INVALID_ENVIRONMENT,
            "CNI_IFNAME is missing or not an interface name: '" + ifname + "'",
            "");
      }
      if (!command.equals("DEL") && netns.isEmpty()) {
        throw new ChainException(ChainException.INVALID_ENVIRONMENT, "CNI_NETNS is not set", "");
      }
    }
    JsonNode prev = conf.get("prevResult");
    PrevResult prevResult = prev == null || prev.isNull() ? null : PrevResult.parse(prev, version);
    int migrate = integer(conf, "migrate_route", -1);
    if (migrate < -1 || migrate > 1) {
      throw ChainException.config("migrate_route", "must be -1, 0 or 1, not " + migrate);
    }
    int rp = integer(conf, "rp_filter", 2);
    if (rp < 0 || rp > 2) {
      throw ChainException.config("rp_filter", "must be 0, 1 or 2, not " + rp);
    }
    JsonNode log = conf.get("log_options");
    if (log != null && !log.isNull() && !log.isObject()) {
      throw ChainException.config("log_options", "must be an object");
    }
    String overlay = text(conf, "overlay_interface", "eth0");
    if (overlay.isEmpty() || overlay.length() > 15 || overlay.contains("/")) {
      throw ChainException.config("overlay_interface", "is not an interface name: " + overlay);
    }
    List<String> valid = null;
    JsonNode va = conf.get("cni.dev/valid-attachments");
    if (va != null && va.isArray()) {
      valid = new ArrayList<>();
      for (JsonNode a : va) {
        valid.add(a.path("containerID").asText("") + "/" + a.path("ifname").asText(""));
      }
    }
    return new ChainConfig(
        plugin,
        command,
        containerId,
        netns,
        ifname,
        version,
        prevResult,
        subnets(conf, "overlay_hijack_subnet"),
        subnets(conf, "service_hijack_subnet"),
        subnets(conf, "additional_hijack_subnet"),
        migrate,
        bool(conf, "skip_call"),
        rp,
        macPrefix(conf),
        bool(conf, "only_op_mac"),
        overlay,
        valid);
  }

  /** A CIDR or a list of CIDRs (the design shows both forms); host bits are refused. */
  static List<IpPrefix> subnets(JsonNode conf, String key) throws ChainException {
    JsonNode n = conf.get(key);
    List<IpPrefix> out = new ArrayList<>();
    if (n == null || n.isNull()) {
      return out;
    }
    List<JsonNode> items = new ArrayList<>();
    if (n.isArray()) {
      n.forEach(items::add);
    } else {
      items.add(n);
    }
    for (int i = 0; i < items.size(); i++) {
      String field = n.isArray() ? key + "[" + i + "]" : key;
      JsonNode item = items.get(i);
      if (!item.isTextual()) {
        throw ChainException.config(field, "must be a CIDR string such as \"10.96.0.0/12\"");
      }
      String text = item.asText();
      IpPrefix p;
      try {
        if (!text.contains("/")) {
          throw new IllegalArgumentException("no prefix length");
        }
        p = IpPrefix.parse(text);
      } catch (RuntimeException e) {
        throw ChainException.config(field, "is not a CIDR (" + e.getMessage() + "): " + text);
      }
      String given = text.substring(0, text.indexOf('/'));
      if (!Ip.parse(given).equals(p.address())) {
        throw ChainException.config(field, "has host bits set: " + text + ", meant " + p + "?");
      }
      out.add(p);
    }
    return out;
  }

  /** "1a:2b": two hex octets; the first must be a unicast octet (its lowest bit clear). */
  static int macPrefix(JsonNode conf) throws ChainException {
    String s = text(conf, "mac_prefix", "");
    if (s.isEmpty()) {
      return -1;
    }
    if (!s.matches("[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}")) {
      throw ChainException.config("mac_prefix", "must be two hex octets such as \"1a:2b\": " + s);
    }
    byte[] b = HexFormat.ofDelimiter(":").parseHex(s.toLowerCase(java.util.Locale.ROOT));
    if ((b[0] & 1) != 0) {
      throw ChainException.config(
          "mac_prefix", "starts with a multicast octet (lowest bit set): " + s);
    }
    return (b[0] & 0xff) << 8 | (b[1] & 0xff);
  }

  private static String text(JsonNode conf, String key, String dflt) throws ChainException {
    JsonNode n = conf.get(key);
    if (n == null || n.isNull()) {
      return dflt;
    }
    if (!n.isTextual()) {
      throw ChainException.config(key, "must be a string");
    }
    return n.asText();
  }

  private static int integer(JsonNode conf, String key, int dflt) throws ChainException {
    JsonNode n = conf.get(key);
    if (n == null || n.isNull()) {
      return dflt;
    }
    if (!n.isIntegralNumber() || !n.canConvertToInt()) {
      throw ChainException.config(key, "must be a number, not " + n);
    }
    return n.asInt();
  }

  private static boolean bool(JsonNode conf, String key) throws ChainException {
    JsonNode n = conf.get(key);
    if (n == null || n.isNull()) {
      return false;
    }
    if (!n.isBoolean()) {
      throw ChainException.config(key, "must be true or false, not " + n);
    }
    return n.asBoolean();
  }
}
