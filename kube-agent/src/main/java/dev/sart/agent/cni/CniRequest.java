package dev.sart.agent.cni;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.agent.ipam.Attachment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One invocation as the runtime made it: the {@code CNI_*} parameters (CNI spec §"Parameters") and
 * the network configuration (§"Network configuration"), with sart's keys.
 *
 * @param command CNI_COMMAND
 * @param containerId CNI_CONTAINERID
 * @param netns CNI_NETNS, a path, or "" (DEL may come without one)
 * @param ifname CNI_IFNAME
 * @param args CNI_ARGS as KEY=VALUE pairs
 * @param cniVersion the configuration's cniVersion
 * @param name the network's name
 * @param pool sart: the pod AddressPool, or null for the default one
 * @param mtu the interface MTU the configuration asks for, or 0
 * @param prevResult the previous result (CHECK, DEL), or null
 * @param validAttachments GC: {@code cni.dev/valid-attachments}, or null
 */
record CniRequest(
    String command,
    String containerId,
    String netns,
    String ifname,
    Map<String, String> args,
    String cniVersion,
    String name,
    String pool,
    int mtu,
    JsonNode prevResult,
    List<Attachment> validAttachments) {

  static final ObjectMapper JSON = new ObjectMapper();

  Attachment attachment() {
    return new Attachment(containerId, ifname);
  }

  /**
   * Parses what the plugin forwarded, the configuration already read as a tree (null when stdin was
   * empty); a missing parameter or a bad configuration is a CNI error.
   */
  static CniRequest parse(Map<String, String> env, JsonNode conf) throws CniException {
    String command = env.getOrDefault("CNI_COMMAND", "");
    if (conf == null || !conf.isObject()) {
      throw new CniException(
          CniException.DECODE, "the network configuration is not a JSON object", "");
    }
    String version = text(conf, "cniVersion");
    if (version == null || version.isEmpty()) {
      throw new CniException(
          CniException.INVALID_NETWORK_CONFIG, "the network configuration has no cniVersion", "");
    }
    CniVersion.requireSupports(version, command);
    boolean perContainer =
        command.equals("ADD") || command.equals("DEL") || command.equals("CHECK");
    String containerId = env.getOrDefault("CNI_CONTAINERID", "");
    String ifname = env.getOrDefault("CNI_IFNAME", "");
    String netns = env.getOrDefault("CNI_NETNS", "");
    if (perContainer) {
      // CNI spec §"Parameters": container id is alphanumeric with _ . -; interface names follow
      // Linux
      if (!containerId.matches("[A-Za-z0-9][A-Za-z0-9_.\\-]*")) {
        throw new CniException(
            CniException.INVALID_ENVIRONMENT,
            "CNI_CONTAINERID is missing or not a container id: '" + containerId + "'",
            "");
      }
      if (ifname.isEmpty()
          || ifname.length() > 15
          || ifname.equals(".")
          || ifname.equals("..")
          || ifname.chars().anyMatch(c -> c == '/' || c == ':' || Character.isWhitespace(c))) {
        throw new CniException(
            CniException.INVALID_ENVIRONMENT,
            "CNI_IFNAME is missing or not an interface name: '" + ifname + "'",
            "");
      }
      if (!command.equals("DEL") && netns.isEmpty()) {
        throw new CniException(CniException.INVALID_ENVIRONMENT, "CNI_NETNS is not set", "");
      }
    }
    Map<String, String> args = new LinkedHashMap<>();
    for (String kv : env.getOrDefault("CNI_ARGS", "").split(";")) {
      int eq = kv.indexOf('=');
      if (eq > 0) {
        args.put(kv.substring(0, eq), kv.substring(eq + 1));
      } else if (!kv.isEmpty()) {
        throw new CniException(
            CniException.INVALID_ENVIRONMENT, "CNI_ARGS is not KEY=VALUE;...: " + kv, "");
      }
    }
    JsonNode mtuNode = conf.get("mtu");
    int mtu = 0;
    if (mtuNode != null && !mtuNode.isNull()) {
      if (!mtuNode.canConvertToInt() || mtuNode.asInt() < 68 || mtuNode.asInt() > 65535) {
        throw new CniException(
            CniException.INVALID_NETWORK_CONFIG,
            "\"mtu\" must be a number 68..65535: " + mtuNode,
            "");
      }
      mtu = mtuNode.asInt();
    }
    List<Attachment> valid = null;
    JsonNode va = conf.get("cni.dev/valid-attachments");
    if (va != null && va.isArray()) {
      valid = new ArrayList<>();
      for (JsonNode a : va) {
        valid.add(new Attachment(a.path("containerID").asText(""), a.path("ifname").asText("")));
      }
    }
    JsonNode prev = conf.get("prevResult");
    return new CniRequest(
        command,
        containerId,
        netns,
        ifname,
        args,
        version,
        text(conf, "name"),
        text(conf, "pool"),
        mtu,
        prev == null || prev.isNull() ? null : prev,
        valid);
  }

  private static String text(JsonNode conf, String key) throws CniException {
    JsonNode n = conf.get(key);
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isTextual()) {
      throw new CniException(
          CniException.INVALID_NETWORK_CONFIG, "\"" + key + "\" must be a string", "");
    }
    return n.asText();
  }
}
