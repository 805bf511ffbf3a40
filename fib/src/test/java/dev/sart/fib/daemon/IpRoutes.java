package dev.sart.fib.daemon;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.testbed.Node;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@code ip -j route show table T proto P} in a node: the independent view of a kernel table, as
 * "destination → metric and sorted gateways" ({@code "m20 192.0.2.1,192.0.2.2"}).
 */
final class IpRoutes {
  private static final ObjectMapper JSON = new ObjectMapper();

  private IpRoutes() {}

  static Map<String, String> table(Node node, int table, int protocol) {
    Map<String, String> out = new TreeMap<>();
    for (String family : List.of("-4", "-6")) {
      String text =
          node.exec(
                  "ip",
                  "-N",
                  family,
                  "-j",
                  "route",
                  "show",
                  "table",
                  Integer.toString(table),
                  "proto",
                  Integer.toString(protocol))
              .strip();
      JsonNode routes;
      try {
        routes = JSON.readTree(text.isEmpty() ? "[]" : text);
      } catch (Exception e) {
        throw new AssertionError("ip printed no JSON: " + text, e);
      }
      for (JsonNode r : routes) {
        TreeSet<String> gws = new TreeSet<>();
        if (r.has("gateway")) {
          gws.add(r.get("gateway").asText());
        }
        for (JsonNode h : r.path("nexthops")) {
          gws.add(h.path("gateway").asText());
        }
        String dst = r.get("dst").asText();
        if (!dst.contains("/")) {
          dst += family.equals("-4") ? "/32" : "/128";
        }
        out.put(
            dst, "m" + r.path("metric").asInt(0) + " " + String.join(",", new ArrayList<>(gws)));
      }
    }
    return out;
  }
}
