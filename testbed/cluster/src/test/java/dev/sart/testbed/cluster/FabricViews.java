package dev.sart.testbed.cluster;

import dev.sart.testbed.Frr;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * What the fabric shows of the nodes, as the load-balancer scenarios read it: the ToRs' kernels'
 * next hops for a prefix, their bfdd's sessions, and a node's own routes and nftables rules.
 */
final class FabricViews {
  private FabricViews() {}

  /** Both ToRs' kernels route {@code prefix} over exactly these nodes now. */
  static boolean nextHopsOn(Cluster cluster, String prefix, List<ClusterNode> nodes) {
    List<Frr> tors = cluster.tors();
    return Cluster.fibNextHops(tors.get(0), prefix)
            .equals(nodes.stream().map(ClusterNode::internalIp).collect(Collectors.toSet()))
        && Cluster.fibNextHops(tors.get(1), prefix)
            .equals(nodes.stream().map(ClusterNode::addressB).collect(Collectors.toSet()));
  }

  /** Both ToRs' bfdd show their session with {@code n} in {@code state} (FRR's view). */
  static boolean bfdOnBoth(Cluster cluster, ClusterNode n, String state) {
    for (int i = 0; i < 2; i++) {
      java.net.InetAddress peer = dev.sart.net.Ip.parse(TorGracefulRestart.nodeAddress(n, i));
      if (!state.equals(cluster.tors().get(i).bfdState(peer))) {
        return false;
      }
    }
    return true;
  }

  /** The node's IPv4 routes (every table: pods, FIB) and nftables rules (kube-proxy's). */
  static String kernelState(ClusterNode n) {
    return n.netns().exec("ip", "-4", "route", "show", "table", "all")
        + n.netns().exec("nft", "list", "ruleset");
  }

  /**
   * Whether every route and rule the node had is still there (what graceful restart promises: the
   * FIB's routes outlive the daemon). Routes added meanwhile are printed, not failed: a Local
   * Service's address learned from the ToRs can be installed for a moment after the restart, before
   * the agent has originated it again (open: bgp/docs/graceful-restart.md).
   */
  static boolean keptKernelState(String before, String now, String when) {
    Set<String> gone = new TreeSet<>(before.lines().toList());
    gone.removeAll(now.lines().toList());
    Set<String> added = new TreeSet<>(now.lines().toList());
    added.removeAll(before.lines().toList());
    if (!gone.isEmpty() || !added.isEmpty()) {
      System.err.printf("the node's kernel changed %s: gone %s, added %s%n", when, gone, added);
    }
    return gone.isEmpty();
  }
}
