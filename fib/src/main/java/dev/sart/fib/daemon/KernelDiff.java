package dev.sart.fib.daemon;

import dev.sart.fib.netlink.NextHop;
import dev.sart.fib.netlink.Route;
import dev.sart.net.IpPrefix;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What to do to a kernel table so that our routes in it are exactly the desired ones: the kernel's
 * routes of our protocol that are not wanted (or differ) are deleted, the missing or different ones
 * are installed. Pure.
 */
final class KernelDiff {
  private KernelDiff() {}

  /**
   * {@code delete} holds routes as dumped (so a delete matches them exactly); {@code install}
   * desired ones.
   */
  record Plan(List<Route> delete, List<Route> install) {
    boolean isEmpty() {
      return delete.isEmpty() && install.isEmpty();
    }
  }

  /**
   * @param desired the wanted route per destination, all in one table and of our protocol
   * @param kernel what a dump of that table, filtered by our protocol, returned
   */
  static Plan plan(Map<IpPrefix, Route> desired, List<Route> kernel) {
    List<Route> delete = new ArrayList<>();
    Set<IpPrefix> inPlace = new HashSet<>();
    for (Route k : kernel) {
      Route want = desired.get(k.destination());
      // a second route of ours for the destination (another metric) is never wanted
      if (want != null && !inPlace.contains(k.destination()) && sameForwarding(want, k)) {
        inPlace.add(k.destination());
      } else {
        delete.add(k);
      }
    }
    List<Route> install = new ArrayList<>();
    for (Map.Entry<IpPrefix, Route> e : desired.entrySet()) {
      if (!inPlace.contains(e.getKey())) {
        install.add(e.getValue());
      }
    }
    return new Plan(delete, install);
  }

  /**
   * Whether the kernel's route {@code actual} does what {@code want} asks: same type, metric and
   * set of next hops (gateway and weight; the interface only when {@code want} names one — the
   * kernel fills it in).
   */
  static boolean sameForwarding(Route want, Route actual) {
    if (want.type() != actual.type()
        || want.metric() != actual.metric()
        || want.nextHops().size() != actual.nextHops().size()) {
      return false;
    }
    Set<Hop> a = new HashSet<>();
    for (NextHop h : actual.nextHops()) {
      a.add(new Hop(h.gateway(), h.index(), h.weight()));
    }
    for (NextHop h : want.nextHops()) {
      boolean found =
          h.index() != 0
              ? a.contains(new Hop(h.gateway(), h.index(), h.weight()))
              : a.stream()
                  .anyMatch(
                      x ->
                          java.util.Objects.equals(x.gateway(), h.gateway())
                              && x.weight() == h.weight());
      if (!found) {
        return false;
      }
    }
    return true;
  }

  private record Hop(InetAddress gateway, int index, int weight) {}
}
