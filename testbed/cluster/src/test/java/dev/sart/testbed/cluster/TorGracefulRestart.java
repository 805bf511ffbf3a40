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

  /** Whether both ToRs read RFC 8538's N bit in the node's graceful restart capability. */
  static boolean nBitOnBoth(Cluster cluster, ClusterNode n) {
    for (int i = 0; i < 2; i++) {
      if (!info(cluster.tors().get(i), nodeAddress(n, i)).path("nBit").asBoolean()) {
        return false;
      }
    }
    return true;
  }

  /**
   * The kernel route changes of the ToRs ({@code watches}, in the order of {@link Cluster#tors})
   * for {@code vip} since {@code sinceNanos} that lack a path via one of {@code kept} (a deletion,
   * or a route without its next hop), as printed by {@code ip monitor}: empty when both ToRs routed
   * over all of them throughout.
   */
  static List<String> withoutPathsOf(
      List<RouteWatch> watches, String vip, long sinceNanos, List<ClusterNode> kept) {
    List<String> lost = new java.util.ArrayList<>();
    for (int i = 0; i < watches.size(); i++) {
      for (RouteWatch.Event e : watches.get(i).events(vip, sinceNanos)) {
        for (ClusterNode n : kept) {
          if (e.deleted() || !e.via().contains(nodeAddress(n, i))) {
            lost.add(
                String.format(
                    "tor%d %s %s via %s at +%d ms",
                    i + 1,
                    e.deleted() ? "deleted" : "route",
                    vip,
                    e.via(),
                    (e.readNanos() - sinceNanos) / 1_000_000));
            break;
          }
        }
      }
    }
    return lost;
  }

  /**
   * Waits until both ToRs read {@code restartTime} (and the N bit, if {@code nBit}) in the OPENs of
   * each of {@code nodes}: their sessions were replaced.
   */
  static void awaitNewSessions(
      Cluster cluster, List<ClusterNode> nodes, int restartTime, boolean nBit) {
    for (ClusterNode n : nodes) {
      org.awaitility.Awaitility.await(n + "'s new sessions on both ToRs")
          .atMost(java.time.Duration.ofSeconds(90))
          .pollInterval(java.time.Duration.ofMillis(500))
          .until(
              () ->
                  (!nBit || nBitOnBoth(cluster, n))
                      && restartTimes(cluster, n).equals(List.of(restartTime, restartTime)));
    }
  }

  private static JsonNode read(String json) {
    try {
      return JSON.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
