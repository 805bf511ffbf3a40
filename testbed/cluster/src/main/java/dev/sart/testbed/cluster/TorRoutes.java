package dev.sart.testbed.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.testbed.Frr;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Set;
import java.util.TreeSet;

/** What a ToR's kernel routes, as zebra shows it (the FIB entry of its selected BGP route). */
final class TorRoutes {
  private static final ObjectMapper JSON = new ObjectMapper();

  private TorRoutes() {}

  /**
   * The next hops of the route the ToR's kernel uses for {@code prefix} ({@code vtysh -c 'show ip
   * route PREFIX json'}, {@code show ipv6 route} for an IPv6 prefix); empty when there is none. For
   * IPv6, FRR lists a next hop by its global address when the UPDATE carried one.
   */
  static Set<String> fibNextHops(Frr tor, String prefix) {
    Set<String> out = new TreeSet<>();
    String family = prefix.contains(":") ? "ipv6" : "ip";
    JsonNode root;
    try {
      root = JSON.readTree(tor.vtysh("show " + family + " route " + prefix + " json"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (JsonNode route : root.path(prefix)) {
      if (!route.path("protocol").asText().equals("bgp") || !route.path("selected").asBoolean()) {
        continue;
      }
      for (JsonNode nh : route.path("nexthops")) {
        if (nh.path("fib").asBoolean() && nh.has("ip")) {
          out.add(nh.get("ip").asText());
        }
      }
    }
    return out;
  }

  /**
   * Whether the ToR's BGP path for {@code prefix} learned from {@code peer} carries FRR's stale
   * flag (graceful restart, RFC 4724 §4.2: kept while the peer restarts); null when the ToR has no
   * path from that peer ({@code show bgp ipv4 unicast PREFIX json}).
   */
  static Boolean stale(Frr tor, String prefix, String peer) {
    String family = prefix.contains(":") ? "ipv6" : "ipv4";
    JsonNode root;
    try {
      root = JSON.readTree(tor.vtysh("show bgp " + family + " unicast " + prefix + " json"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (JsonNode path : root.path("paths")) {
      if (peer.equals(path.path("peer").path("peerId").asText())) {
        return path.path("stale").asBoolean(false);
      }
    }
    return null;
  }
}
