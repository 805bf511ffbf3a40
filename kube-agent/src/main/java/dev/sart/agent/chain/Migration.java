package dev.sart.agent.chain;

import dev.sart.fib.netlink.Family;
import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.NetlinkException;
import dev.sart.fib.netlink.Route;
import dev.sart.fib.netlink.RouteFilter;
import dev.sart.fib.netlink.Rtnl;
import dev.sart.fib.netlink.Rule;
import dev.sart.net.IpPrefix;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * The meta-plugins' route migration inside a pod: the routes of one interface leave the main table
 * for table {@value #TABLE}, and a policy rule per address of that interface ({@code from ADDRESS
 * lookup 200}) keeps the traffic sourced from it on it, while the main table belongs to the pod's
 * other interface.
 *
 * <p>The interface's connected subnet routes (the kernel's, for its own addresses) are copied and
 * also stay in the main table: its own subnet is reachable on it whatever the source, and the main
 * plugin's CHECK (the reference plugins look the subnet route up in the main table) still passes.
 */
final class Migration {
  static final int TABLE = 200;

  /** Before the main table's rule (32766). */
  static final int RULE_PRIORITY = 1000;

  private Migration() {}

  /** Link routes first: a gateway's route is checked against the routes that reach it. */
  private static final Comparator<Route> LINK_ROUTES_FIRST =
      Comparator.comparing((Route r) -> r.nextHops().stream().anyMatch(h -> h.gateway() != null));

  static Rule rule(InetAddress from) {
    return Rule.lookup(Family.of(from), RULE_PRIORITY, TABLE)
        .withFrom(IpPrefix.host(from))
        .withProtocol(Kernel.PROTOCOL);
  }

  /**
   * Moves the main table's routes through link {@code index} of {@code families} (not ours, not
   * IPv6 link-local) to table 200 and adds the rules for {@code from}; each step goes on {@code
   * undo}.
   */
  static void migrate(
      Netlink pod, int index, Set<Family> families, List<InetAddress> from, Kernel.Undo undo) {
    List<Route> moving = new ArrayList<>();
    for (Route r : Kernel.main(pod)) {
      if (families.contains(r.family())
          && r.protocol() != Kernel.PROTOCOL
          && r.nextHops().stream().anyMatch(h -> h.index() == index)
          && !(r.family() == Family.INET6
              && IpPrefix.parse("fe80::/64").contains(r.destination()))) {
        moving.add(r);
      }
    }
    moving.sort(LINK_ROUTES_FIRST);
    for (Route r : moving) {
      Route moved = r.toBuilder().table(TABLE).build();
      pod.routes().replace(moved);
      undo.push(() -> Kernel.deleteRoute(pod, moved));
      if (!connected(r)) {
        Kernel.deleteRoute(pod, r);
        undo.push(() -> pod.routes().replace(r));
      }
    }
    for (InetAddress a : from) {
      if (!families.contains(Family.of(a))) {
        continue;
      }
      Rule rule = rule(a);
      if (!pod.rules().list(rule.family()).contains(rule)) {
        pod.rules().add(rule);
        undo.push(() -> deleteRule(pod, rule));
      }
    }
  }

  /** The kernel's route to the subnet of an address of the interface. */
  static boolean connected(Route r) {
    return r.protocol() == Rtnl.RTPROT_KERNEL
        && r.scope() == dev.sart.fib.netlink.Scope.LINK
        && r.nextHops().stream().allMatch(h -> h.gateway() == null);
  }

  /**
   * Undoes {@link #migrate}: the rules for {@code from} go, the routes of table 200 through link
   * {@code index} return to the main table.
   */
  static void restore(Netlink pod, int index, Collection<InetAddress> from) {
    for (InetAddress a : from) {
      deleteRule(pod, rule(a));
    }
    List<Route> back = new ArrayList<>();
    for (Route r : pod.routes().list(RouteFilter.ALL.table(TABLE))) {
      if (r.nextHops().stream().anyMatch(h -> h.index() == index)) {
        back.add(r);
      }
    }
    back.sort(LINK_ROUTES_FIRST);
    for (Route r : back) {
      if (!connected(r)) {
        pod.routes().replace(r.toBuilder().table(Kernel.MAIN_TABLE).build());
      }
      Kernel.deleteRoute(pod, r);
    }
  }

  /** Whether the rules for {@code from} are there and table 200 holds a route through the link. */
  static void check(Netlink pod, int index, String ifname, Collection<InetAddress> from)
      throws ChainException {
    for (InetAddress a : from) {
      Rule want = rule(a);
      if (!pod.rules().list(want.family()).contains(want)) {
        throw ChainException.mismatch(
            "no rule from " + IpPrefix.host(a) + " lookup " + TABLE + " in the pod");
      }
    }
    boolean any =
        pod.routes().list(RouteFilter.ALL.table(TABLE)).stream()
            .anyMatch(r -> r.nextHops().stream().anyMatch(h -> h.index() == index));
    if (!any) {
      throw ChainException.mismatch(
          "table " + TABLE + " in the pod has no route through " + ifname);
    }
  }

  private static void deleteRule(Netlink pod, Rule r) {
    try {
      pod.rules().delete(r);
    } catch (NetlinkException e) {
      if (e.errno() != dev.sart.fib.netlink.Errno.ENOENT) {
        throw e;
      }
    }
  }
}
