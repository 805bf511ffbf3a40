package dev.sart.agent.chain;

import dev.sart.fib.netlink.Address;
import dev.sart.fib.netlink.Errno;
import dev.sart.fib.netlink.Family;
import dev.sart.fib.netlink.Link;
import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.NetlinkException;
import dev.sart.fib.netlink.Netns;
import dev.sart.fib.netlink.Route;
import dev.sart.fib.netlink.RouteFilter;
import dev.sart.fib.netlink.Scope;
import dev.sart.net.IpPrefix;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Logger;

/** What both chained plugins do to the kernel: their routes, addresses read back, sysctls. */
final class Kernel {
  private static final Logger LOG = Logger.getLogger(Kernel.class.getName());

  /**
   * rtm_protocol of the routes and rules the chained plugins make (sart-cni's pod routes are 50):
   * DEL removes exactly these.
   */
  static final int PROTOCOL = 52;

  static final int MAIN_TABLE = 254;

  private Kernel() {}

  /** Work to undo when a later step of an ADD fails, run in reverse. */
  static final class Undo {
    private final Deque<Runnable> steps = new ArrayDeque<>();

    void push(Runnable step) {
      steps.push(step);
    }

    void run() {
      while (!steps.isEmpty()) {
        try {
          steps.pop().run();
        } catch (RuntimeException e) {
          LOG.warning("undo step failed: " + e.getMessage());
        }
      }
    }
  }

  /** The pod's namespace; a missing one is CNI error 3 (CNI spec §"Error"). */
  static Netns openPod(String path) throws ChainException {
    if (path.isEmpty() || !Files.exists(Path.of(path))) {
      throw new ChainException(
          ChainException.UNKNOWN_CONTAINER,
          "the container's network namespace " + path + " does not exist",
          "");
    }
    try {
      return Netns.open(Path.of(path));
    } catch (NetlinkException e) {
      throw new ChainException(
          ChainException.UNKNOWN_CONTAINER,
          "cannot open the network namespace " + path,
          e.getMessage());
    }
  }

  static boolean exists(String netns) {
    return !netns.isEmpty() && Files.exists(Path.of(netns));
  }

  /**
   * The node's addresses the pods must reach: the agent's configured node addresses, then every
   * global address of the node's own interfaces (not loopback, not the pods' host ends {@code
   * sart…} and {@code veth…}).
   */
  static List<InetAddress> hostAddresses(Netlink host, List<InetAddress> configured) {
    Set<Integer> own = new HashSet<>();
    for (Link l : host.links().list()) {
      String n = l.name();
      if (!n.equals("lo") && !n.startsWith("sart") && !n.startsWith("veth")) {
        own.add(l.index());
      }
    }
    Set<InetAddress> out = new LinkedHashSet<>(configured);
    for (Address a : host.addresses().list()) {
      if (own.contains(a.index()) && a.scope() == Scope.UNIVERSE) {
        out.add(a.address());
      }
    }
    return List.copyOf(out);
  }

  /** The first address of {@code family} in {@code addresses}, or empty. */
  static Optional<InetAddress> first(List<InetAddress> addresses, Family family) {
    return addresses.stream().filter(a -> Family.of(a) == family).findFirst();
  }

  /**
   * A route of ours in the main table: {@code dst} through link {@code index}, via {@code gw}
   * (taken to be on that link: RTNH_F_ONLINK, as the gateway may be reachable only through routes
   * this plugin is still making) or, without one, straight out of the link.
   */
  static Route.Builder route(IpPrefix dst, int index, InetAddress gw, InetAddress src) {
    Route.Builder b = Route.of(dst).protocol(PROTOCOL);
    if (gw != null) {
      b.nextHop(
          new dev.sart.fib.netlink.NextHop(
              gw, index, 1, Set.of(dev.sart.fib.netlink.NextHopFlag.ONLINK)));
    } else {
      b.dev(index);
      if (Family.of(dst) == Family.INET) {
        b.scope(Scope.LINK);
      }
    }
    if (src != null) {
      b.preferredSource(src);
    }
    return b;
  }

  /** Whether the main table has a route to {@code dst} through link {@code index}. */
  static boolean hasRoute(List<Route> main, IpPrefix dst, int index) {
    return main.stream()
        .anyMatch(
            r ->
                r.destination().equals(dst)
                    && r.nextHops().stream().anyMatch(h -> h.index() == index));
  }

  static List<Route> main(Netlink nl) {
    return nl.routes().list(RouteFilter.ALL.table(MAIN_TABLE));
  }

  static void deleteRoute(Netlink nl, Route r) {
    try {
      nl.routes().delete(r);
    } catch (NetlinkException e) {
      if (e.errno() != Errno.ESRCH && e.errno() != Errno.ENOENT) {
        throw e;
      }
    }
  }

  static void deleteLink(Netlink nl, String name) {
    try {
      nl.links().delete(name);
    } catch (NetlinkException e) {
      if (e.errno() != Errno.ENODEV) {
        throw e;
      }
    }
  }

  /**
   * Writes {@code value} to /proc/sys/{@code key} inside {@code ns} (on a fresh platform thread in
   * the namespace: /proc/sys/net is the opener's namespace). A key that does not exist (IPv6 off)
   * is skipped.
   */
  static void sysctl(Netns ns, String key, String value) throws ChainException {
    try {
      ns.run(
          () -> {
            Path p = Path.of("/proc/sys", key);
            if (Files.exists(p)) {
              Files.writeString(p, value);
            }
            return null;
          });
    } catch (IOException e) {
      throw new ChainException(ChainException.INTERNAL, "cannot set " + key, e.toString());
    }
  }

  /**
   * {@code rp_filter} on the pod's {@code all} and on each named interface (the kernel uses the
   * larger of the two).
   */
  static void sysctls(Netns pod, int rpFilter, List<String> interfaces) throws ChainException {
    sysctl(pod, "net/ipv4/conf/all/rp_filter", Integer.toString(rpFilter));
    for (String i : interfaces) {
      sysctl(pod, "net/ipv4/conf/" + i + "/rp_filter", Integer.toString(rpFilter));
    }
  }

  /**
   * {@code mac_prefix}: the main interface's MAC becomes the two prefix octets followed by the last
   * four octets of its first address (IPv4 first), so an address maps to one MAC across the
   * cluster. Returns the new MAC, or null when no prefix is configured; the old one is restored on
   * undo.
   */
  static dev.sart.fib.netlink.MacAddress applyMacPrefix(
      Netlink pod, Link link, int prefix, List<PrevResult.IpConfig> ips, Undo undo) {
    if (prefix < 0) {
      return null;
    }
    dev.sart.fib.netlink.MacAddress mac = macFor(prefix, ips);
    dev.sart.fib.netlink.MacAddress old = link.mac();
    if (!mac.equals(old)) {
      pod.links().setMac(link.name(), mac);
      if (old != null) {
        undo.push(() -> pod.links().setMac(link.name(), old));
      }
    }
    return mac;
  }

  /** The MAC {@code mac_prefix} gives an interface with these addresses. */
  static dev.sart.fib.netlink.MacAddress macFor(int prefix, List<PrevResult.IpConfig> ips) {
    PrevResult.IpConfig ip =
        ips.stream().filter(x -> x.family() == Family.INET).findFirst().orElse(ips.getFirst());
    byte[] a = ip.address().getAddress();
    long v = (long) prefix << 32;
    for (int i = a.length - 4; i < a.length; i++) {
      v |= (long) (a[i] & 0xff) << (8 * (a.length - 1 - i));
    }
    return new dev.sart.fib.netlink.MacAddress(v);
  }

  static ChainException netlink(NetlinkException e) {
    return new ChainException(ChainException.NETLINK, e.getMessage(), "");
  }
}
