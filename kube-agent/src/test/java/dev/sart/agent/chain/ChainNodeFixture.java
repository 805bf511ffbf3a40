package dev.sart.agent.chain;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sart.agent.cni.AgentConfig;
import dev.sart.agent.cni.CniAgent;
import dev.sart.agent.ipam.Block;
import dev.sart.testbed.Node;
import dev.sart.testbed.Testbed;
import dev.sart.testbed.Topology;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The set-up of the chained plugins' tests: a "node" namespace (192.0.2.1) with an uplink
 * (203.0.113.1/24) to an "ext" namespace (203.0.113.254/24), and the agent in this JVM serving the
 * node's pods from 198.51.100.0/28 on a socket in the test's directory.
 */
abstract class ChainNodeFixture {
  @RegisterExtension final Testbed testbed = new Testbed();

  static final String NODE = "192.0.2.1";
  static final String UPLINK = "203.0.113.1";
  static final String EXTERNAL = "203.0.113.254";

  Topology t;
  Node node;
  Node ext;
  String uplink;
  Path socket;
  private CniAgent agent;

  @BeforeEach
  void start() throws Exception {
    t = testbed.topology();
    node = t.node("node");
    ext = t.node("ext");
    dev.sart.testbed.Link l = t.link(node, ext).addresses(UPLINK + "/24", EXTERNAL + "/24");
    uplink = l.aName();
    beforeAgent();
    socket = t.dir().resolve("sart.sock");
    agent =
        CniAgent.start(
            AgentConfig.of(
                socket,
                Path.of("/var/run/netns", node.netns()),
                NODE,
                null,
                List.of(Block.parse("default=198.51.100.0/28")),
                "default"));
  }

  /** What a test adds to the namespaces before the agent starts; nothing here. */
  void beforeAgent() throws Exception {}

  @AfterEach
  void stop() throws Exception {
    if (agent != null) {
      agent.close();
    }
  }

  /**
   * Debian's macvlan on the uplink with host-local addresses 203.0.113.10-20 and the gateway
   * 203.0.113.254 ("ext"); a default route by it only if {@code defaultRoute}.
   */
  ObjectNode macvlan(boolean defaultRoute) {
    return macvlan(
        uplink, "203.0.113.0/24", "203.0.113.10", "203.0.113.20", EXTERNAL, defaultRoute);
  }

  /** Debian's macvlan on {@code master} with host-local addresses; {@code gateway} may be null. */
  ObjectNode macvlan(
      String master,
      String subnet,
      String start,
      String end,
      String gateway,
      boolean defaultRoute) {
    return Conflist.plugin(
        "{\"type\":\"macvlan\",\"master\":\""
            + master
            + "\",\"mode\":\"bridge\",\"ipam\":{\"type\":\"host-local\",\"dataDir\":\""
            + t.dir().resolve("ipam")
            + "\",\"ranges\":[[{\"subnet\":\""
            + subnet
            + "\",\"rangeStart\":\""
            + start
            + "\",\"rangeEnd\":\""
            + end
            + "\""
            + (gateway == null ? "" : ",\"gateway\":\"" + gateway + "\"")
            + "}]]"
            + (defaultRoute ? ",\"routes\":[{\"dst\":\"0.0.0.0/0\"}]" : "")
            + "}}");
  }

  static boolean ping(Node from, String to) {
    return from.tryExec("ping", "-c", "1", "-W", "1", to).ok();
  }

  private static JsonNode json(String s) {
    try {
      return Conflist.JSON.readTree(s.isBlank() ? "[]" : s);
    } catch (Exception e) {
      throw new AssertionError(s, e);
    }
  }

  /** Routes and rules of ours (protocol 52) in a namespace, as `ip` shows them. */
  static List<String> ours(Node n) {
    List<String> out = new ArrayList<>();
    for (String family : List.of("-4", "-6")) {
      for (JsonNode r :
          json(n.exec("ip", family, "-j", "route", "show", "table", "all", "proto", "52"))) {
        out.add(r.toString());
      }
      for (JsonNode r : json(n.exec("ip", family, "-j", "rule", "show"))) {
        if ("52".equals(r.path("protocol").asText())) {
          out.add(r.toString());
        }
      }
    }
    return out;
  }
}
