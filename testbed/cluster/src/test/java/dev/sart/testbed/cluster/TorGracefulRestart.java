package dev.sart.testbed.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.testbed.Frr;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;

/**
 * What a ToR's bgpd shows of graceful restart (RFC 4724) with a node: the capability it read in the
 * node's OPEN, and whether the node's path to a prefix is marked stale.
 */
final class TorGracefulRestart {
  private static final ObjectMapper JSON = new ObjectMapper();

  private TorGracefulRestart() {}

  /** The node's address on ToR {@code i}'s LAN (0: LAN A, 1: LAN B). */
  static String nodeAddress(ClusterNode n, int i) {
    return i == 0 ? n.internalIp() : n.addressB();
  }

  /** {@code show bgp neighbors ADDR json}: its {@code gracefulRestartInfo}. */
  static JsonNode info(Frr tor, String neighbor) {
    return read(tor.vtysh("show bgp neighbors " + neighbor + " json"))
        .path(neighbor)
        .path("gracefulRestartInfo");
  }

  /** The restart time each ToR read in the node's capability (RFC 4724 §3). */
  static List<Integer> restartTimes(Cluster cluster, ClusterNode n) {
    return List.of(
        info(cluster.tors().get(0), nodeAddress(n, 0))
            .path("timers")
            .path("receivedRestartTimer")
            .asInt(),
        info(cluster.tors().get(1), nodeAddress(n, 1))
            .path("timers")
            .path("receivedRestartTimer")
            .asInt());
  }

  /**
   * Whether the ToR's path to {@code prefix} via {@code nextHop} is stale ({@code show bgp ipv4
   * unicast P json}); empty when the ToR has no such path.
   */
  static Optional<Boolean> stale(Frr tor, String prefix, String nextHop) {
    for (JsonNode path :
        read(tor.vtysh("show bgp ipv4 unicast " + prefix + " json")).path("paths")) {
      for (JsonNode nh : path.path("nexthops")) {
        if (nextHop.equals(nh.path("ip").asText())) {
          return Optional.of(path.path("stale").asBoolean());
        }
      }
    }
    return Optional.empty();
  }

  /** Both ToRs have a path to {@code prefix} via the node, stale or not as asked. */
  static boolean staleOnBoth(Cluster cluster, ClusterNode n, String prefix, boolean stale) {
    for (int i = 0; i < 2; i++) {
      if (!stale(cluster.tors().get(i), prefix, nodeAddress(n, i)).equals(Optional.of(stale))) {
        return false;
      }
    }
    return true;
  }

  private static JsonNode read(String json) {
    try {
      return JSON.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
