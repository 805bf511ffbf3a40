package dev.sart.fib.netlink;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import dev.sart.testbed.Node;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Routes as one canonical line each, from {@code ip -N -j route show} and from {@link Route}, so
 * that the library's view and iproute2's can be compared as sets of strings.
 */
final class RouteOracle {
  private RouteOracle() {}

  /** The canonical lines of {@code ip -N -j -F route show table TABLE} (F: 4 or 6). */
  static TreeSet<String> table(Node node, Family family, int table) {
    String f = family == Family.INET ? "-4" : "-6";
    TreeSet<String> out = new TreeSet<>();
    dev.sart.testbed.Shell.Result res =
        node.tryExec("ip", "-j", "-N", f, "route", "show", "table", Integer.toString(table));
    if (!res.ok() && res.stderr().contains("FIB table does not exist")) {
      return out;
    }
    for (JsonNode r : Oracle.ip(node, "-N", f, "route", "show", "table", Integer.toString(table))) {
      out.add(canonical(r, family, table));
    }
    return out;
  }

  /** The canonical lines of routes as this library reports them; interfaces by name. */
  static TreeSet<String> of(List<Route> routes, Map<Integer, String> ifnames) {
    return routes.stream()
        .map(r -> canonical(r, ifnames))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  static String canonical(Route r, Map<Integer, String> ifnames) {
    List<String> hops = new ArrayList<>();
    for (NextHop h : r.nextHops()) {
      hops.add(
          hop(
              h.gateway() == null ? null : Ip.format(h.gateway()),
              h.index() == 0 ? null : ifnames.get(h.index()),
              h.weight(),
              h.flags().contains(NextHopFlag.ONLINK)));
    }
    return line(
        r.destination().toString(),
        r.table(),
        r.protocol(),
        r.scope().code(),
        r.type().code(),
        r.metric(),
        r.preferredSource() == null ? null : Ip.format(r.preferredSource()),
        hops);
  }

  private static String canonical(JsonNode j, Family family, int table) {
    String dst = j.get("dst").asText();
    if (dst.equals("default")) {
      dst = family == Family.INET ? "0.0.0.0/0" : "::/0";
    } else if (!dst.contains("/")) {
      dst += family == Family.INET ? "/32" : "/128";
    }
    List<String> hops = new ArrayList<>();
    if (j.has("nexthops")) {
      for (JsonNode h : j.get("nexthops")) {
        hops.add(hop(h));
      }
    } else if (j.has("type") && Set.of("6", "7", "8", "9").contains(j.get("type").asText())) {
      // blackhole, unreachable, prohibit, throw: IPv6 shows them on "dev lo", which means nothing
    } else if (j.has("gateway") || j.has("via") || j.has("dev")) {
      hops.add(hop(j));
    }
    return line(
        IpPrefix.parse(dst).toString(),
        intOr(j, "table", table) /* shown only when not the one asked for */,
        intOr(j, "protocol", Rtnl.RTPROT_BOOT),
        intOr(j, "scope", 0),
        intOr(j, "type", RouteType.UNICAST.code()),
        intOr(j, "metric", 0),
        j.has("prefsrc") ? j.get("prefsrc").asText() : null,
        hops);
  }

  private static String hop(JsonNode h) {
    String gw =
        h.has("gateway")
            ? h.get("gateway").asText()
            : h.has("via") ? h.get("via").get("host").asText() : null;
    boolean onlink = false;
    if (h.has("flags")) {
      for (JsonNode f : h.get("flags")) {
        onlink |= f.asText().equals("onlink");
      }
    }
    return hop(
        gw == null ? null : Ip.format(Ip.parse(gw)),
        h.has("dev") ? h.get("dev").asText() : null,
        h.has("weight") ? h.get("weight").asInt() : 1,
        onlink);
  }

  private static String hop(String gateway, String dev, int weight, boolean onlink) {
    return (gateway == null ? "" : "via " + gateway + " ")
        + (dev == null ? "" : "dev " + dev + " ")
        + "weight "
        + weight
        + (onlink ? " onlink" : "");
  }

  private static String line(
      String dst,
      int table,
      int protocol,
      int scope,
      int type,
      int metric,
      String prefsrc,
      List<String> hops) {
    return dst
        + " table "
        + table
        + " proto "
        + protocol
        + " scope "
        + scope
        + " type "
        + type
        + " metric "
        + metric
        + (prefsrc == null ? "" : " src " + prefsrc)
        + " "
        + hops;
  }

  private static int intOr(JsonNode j, String field, int otherwise) {
    return j.has(field) ? Integer.parseInt(j.get(field).asText()) : otherwise;
  }
}
