package dev.sart.agent.cni;

import dev.sart.agent.ipam.Allocation;
import dev.sart.agent.ipam.Attachment;
import dev.sart.fib.netlink.Address;
import dev.sart.fib.netlink.AddressFlag;
import dev.sart.fib.netlink.Errno;
import dev.sart.fib.netlink.Family;
import dev.sart.fib.netlink.Link;
import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.NetlinkException;
import dev.sart.fib.netlink.Netns;
import dev.sart.fib.netlink.Route;
import dev.sart.fib.netlink.RouteFilter;
import dev.sart.fib.netlink.Rule;
import dev.sart.fib.netlink.Scope;
import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Logger;

/**
 * A pod's network, made and removed over netlink (the ptp layout sart uses): a veth pair whose
 * container end is {@code CNI_IFNAME} in the pod's namespace and whose host end is named from the
 * attachment; the pod's /32 (and /128) on its end; host routes to the pod in table {@link
 * AgentConfig#routeTable()} (with protocol {@link #ROUTE_PROTOCOL}) reached through a policy rule;
 * in the pod a link route to the node's address and the default route via it.
 *
 * <p>The gateway is the node's own address, as sart does, not a link-local one as coil does: the
 * node's address on each host veth makes traffic from the node to its pods (kubelet probes) leave
 * with the node's address, which network policies and pods' logs expect, and a pod sees the node
 * under one address whichever way it looks.
 *
 * <p>The host veth's alias records {@code pool/containerId/ifname} (sart's format) and the table's
 * routes record the addresses: the kernel holds the whole state, and {@link #scan} reads it back at
 * start-up.
 */
final class PodNetwork implements AutoCloseable {
  /** rtm_protocol of the pod routes (sart's value, so routes it made are recognised). */
  static final int ROUTE_PROTOCOL = 50;

  private static final Logger LOG = Logger.getLogger(PodNetwork.class.getName());

  private final AgentConfig config;
  private final Netns hostNs;
  private final Netlink host;

  PodNetwork(AgentConfig config) {
    this.config = config;
    this.hostNs = config.hostNetns() == null ? Netns.current() : Netns.open(config.hostNetns());
    this.host = Netlink.open(hostNs);
  }

  /**
   * The host end's name: "sart" and 11 hex digits of SHA-256(containerId/ifname); IFNAMSIZ is 16.
   */
  static String hostVethName(Attachment a) {
    try {
      byte[] h =
          MessageDigest.getInstance("SHA-256")
              .digest(a.toString().getBytes(StandardCharsets.UTF_8));
      return "sart" + HexFormat.of().formatHex(h).substring(0, 11);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static String alias(String pool, Attachment a) {
    return pool + "/" + a.containerId() + "/" + a.ifname();
  }

  /** An attachment recorded in a host veth's alias, with its pool. */
  record Recorded(String pool, Attachment attachment) {}

  static Optional<Recorded> parseAlias(String alias) {
    if (alias == null) {
      return Optional.empty();
    }
    String[] p = alias.split("/");
    return p.length == 3 && !p[0].isEmpty() && !p[1].isEmpty() && !p[2].isEmpty()
        ? Optional.of(new Recorded(p[0], new Attachment(p[1], p[2])))
        : Optional.empty();
  }

  /** Once at start-up: the rules sending lookups to the pod table, and forwarding on. */
  void prepare() throws java.io.IOException {
    for (Family f : List.of(Family.INET, Family.INET6)) {
      Rule r = Rule.lookup(f, config.rulePriority(), config.routeTable());
      if (!host.rules().list(f).contains(r)) {
        host.rules().add(r);
      }
    }
    if (config.enableForwarding()) {
      hostNs.run(
          () -> {
            Files.writeString(Path.of("/proc/sys/net/ipv4/ip_forward"), "1");
            Files.writeString(Path.of("/proc/sys/net/ipv6/conf/all/forwarding"), "1");
            return null;
          });
    }
  }

  /** Work to undo when a later step fails (CNI ADD undoes its work in reverse). */
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

  static Netns openPodNetns(String path) throws CniException {
    if (path.isEmpty() || !Files.exists(Path.of(path))) {
      throw new CniException(
          CniException.UNKNOWN_CONTAINER,
          "the container's network namespace " + path + " does not exist",
          "");
    }
    try {
      return Netns.open(Path.of(path));
    } catch (NetlinkException e) {
      throw new CniException(
          CniException.NETNS, "cannot open the network namespace " + path, e.getMessage());
    }
  }

  /**
   * Makes (or, on a repeated ADD, re-applies) the pod's network; the steps it took are pushed on
   * {@code undo}.
   */
  CniResult add(Allocation alloc, String netnsPath, int mtuOverride, Undo undo, Phases phases)
      throws CniException {
    Attachment a = alloc.attachment();
    String hostName = hostVethName(a);
    String alias = alias(alloc.pool(), a);
    int mtu = mtuOverride > 0 ? mtuOverride : config.mtu();
    phases.mark("names");
    try (Netns podNs = openPodNetns(netnsPath);
        Netlink pod = Netlink.open(podNs)) {
      phases.mark("netns");
      Optional<Link> existing = host.links().find(hostName);
      if (existing.isPresent() && existing.get().alias() == null) {
        // made by an ADD cut short before it recorded the attachment: start over
        deleteLink(hostName);
        existing = Optional.empty();
      }
      if (existing.isPresent()) {
        if (!alias.equals(existing.get().alias())) {
          throw new CniException(
              CniException.INTERNAL,
              "host interface "
                  + hostName
                  + " belongs to "
                  + existing.get().alias()
                  + ", not "
                  + alias,
              "");
        }
        if (pod.links().find(a.ifname()).isEmpty()) {
          throw new CniException(
              CniException.INTERNAL,
              "host interface "
                  + hostName
                  + " exists but "
                  + a.ifname()
                  + " is not in "
                  + netnsPath,
              "DEL the attachment first");
        }
      } else {
        if (pod.links().find(a.ifname()).isPresent()) {
          throw new CniException(
              CniException.INTERNAL,
              "interface " + a.ifname() + " exists already in " + netnsPath,
              "");
        }
        host.links().addVeth(hostName, a.ifname(), podNs);
        undo.push(() -> deleteLink(hostName));
      }
      phases.mark("veth");
      host.links().setAlias(hostName, alias);
      if (mtu > 0) {
        host.links().setMtu(hostName, mtu);
        pod.links().setMtu(a.ifname(), mtu);
      }
      host.links().setUp(hostName);
      pod.links().setUp(a.ifname());
      Link hostLink = host.links().get(hostName);
      Link podLink = pod.links().get(a.ifname());
      phases.mark("links");

      List<CniResult.IpConfig> ips = new ArrayList<>();
      List<CniResult.RouteConfig> routes = new ArrayList<>();
      for (InetAddress addr : alloc.addresses()) {
        Family f = Family.of(addr);
        InetAddress gw = gateway(f);
        int len = f.maxPrefixLength();
        Set<AddressFlag> flags = f == Family.INET6 ? Set.of(AddressFlag.NODAD) : Set.of();
        host.addresses()
            .replace(new Address(hostLink.index(), gw, len, Scope.UNIVERSE, flags, null));
        pod.addresses()
            .replace(new Address(podLink.index(), addr, len, Scope.UNIVERSE, flags, null));
        pod.routes()
            .replace(Route.of(IpPrefix.host(gw)).dev(podLink.index()).scope(Scope.LINK).build());
        IpPrefix any = new IpPrefix(f == Family.INET ? Ip.parse("0.0.0.0") : Ip.parse("::"), 0);
        pod.routes().replace(Route.of(any).via(Ip.format(gw), podLink.index()).build());
        host.routes().replace(hostRoute(addr, hostLink.index()));
        ips.add(new CniResult.IpConfig(addr, len, gw, 1));
        routes.add(new CniResult.RouteConfig(any.toString(), gw));
      }
      phases.mark("addresses");
      // logged after the answer is sent: a console line cost ~0.6 ms of the ADD here
      phases.later(
          () ->
              LOG.info(
                  () ->
                      "pod network added attachment="
                          + a
                          + " pool="
                          + alloc.pool()
                          + " host="
                          + hostName
                          + " addresses="
                          + alloc.addresses().stream().map(Ip::format).toList()));
      return new CniResult(
          List.of(
              new CniResult.Iface(
                  hostName,
                  hostLink.mac() == null ? "" : hostLink.mac().toString(),
                  hostLink.mtu(),
                  null),
              new CniResult.Iface(
                  a.ifname(),
                  podLink.mac() == null ? "" : podLink.mac().toString(),
                  podLink.mtu(),
                  netnsPath)),
          ips,
          routes);
    } catch (NetlinkException e) {
      throw netlink(e);
    }
  }

  private InetAddress gateway(Family f) throws CniException {
    InetAddress gw = f == Family.INET ? config.nodeAddress4() : config.nodeAddress6();
    if (gw == null) {
      throw new CniException(
          CniException.INVALID_NETWORK_CONFIG,
          "the agent has no node "
              + (f == Family.INET ? "IPv4" : "IPv6")
              + " address to use as the pods' gateway",
          "set nodeAddress" + (f == Family.INET ? "4" : "6") + " in the agent's configuration");
    }
    return gw;
  }

  private Route hostRoute(InetAddress addr, int index) {
    return Route.of(IpPrefix.host(addr))
        .table(config.routeTable())
        .protocol(ROUTE_PROTOCOL)
        .dev(index)
        .scope(Scope.LINK)
        .build();
  }

  /**
   * Removes the pod's host end (the pod end goes with it) and host routes; what is gone already is
   * fine.
   */
  void delete(Attachment a, List<InetAddress> addresses) throws CniException {
    String hostName = hostVethName(a);
    try {
      Optional<Link> link = host.links().find(hostName);
      for (InetAddress addr : addresses) {
        for (Route r :
            host.routes()
                .list(RouteFilter.ALL.table(config.routeTable()).protocol(ROUTE_PROTOCOL))) {
          if (r.destination().equals(IpPrefix.host(addr))) {
            try {
              host.routes().delete(r);
            } catch (NetlinkException e) {
              if (e.errno() != Errno.ESRCH) {
                throw e;
              }
            }
          }
        }
      }
      if (link.isPresent()) {
        deleteLink(hostName);
      }
    } catch (NetlinkException e) {
      throw netlink(e);
    }
  }

  private void deleteLink(String name) {
    try {
      host.links().delete(name);
    } catch (NetlinkException e) {
      if (e.errno() != Errno.ENODEV) {
        throw e;
      }
    }
  }

  /**
   * CNI CHECK: the host end with its alias, the host routes, and in the pod's namespace the
   * interface, its addresses and its routes are all as ADD made them.
   */
  void check(Allocation alloc, String netnsPath) throws CniException {
    Attachment a = alloc.attachment();
    String hostName = hostVethName(a);
    try {
      Link hostLink =
          host.links()
              .find(hostName)
              .orElseThrow(
                  () -> mismatch("host interface " + hostName + " of " + a + " is missing"));
      if (!alias(alloc.pool(), a).equals(hostLink.alias())) {
        throw mismatch("host interface " + hostName + " is recorded as " + hostLink.alias());
      }
      if (!hostLink.isUp()) {
        throw mismatch("host interface " + hostName + " is down");
      }
      List<Route> table = host.routes().list(RouteFilter.ALL.table(config.routeTable()));
      for (InetAddress addr : alloc.addresses()) {
        Route want = hostRoute(addr, hostLink.index());
        if (table.stream()
            .noneMatch(
                r ->
                    r.destination().equals(want.destination())
                        && r.nextHops().equals(want.nextHops()))) {
          throw mismatch(
              "no route to "
                  + Ip.format(addr)
                  + " via "
                  + hostName
                  + " in table "
                  + config.routeTable());
        }
      }
      try (Netns podNs = openPodNetns(netnsPath);
          Netlink pod = Netlink.open(podNs)) {
        Link podLink =
            pod.links()
                .find(a.ifname())
                .orElseThrow(
                    () -> mismatch("interface " + a.ifname() + " is missing in " + netnsPath));
        if (!podLink.isUp()) {
          throw mismatch("interface " + a.ifname() + " in " + netnsPath + " is down");
        }
        if (podLink.linkIndex() != hostLink.index()) {
          throw mismatch(
              "interface " + a.ifname() + " in " + netnsPath + " is not the peer of " + hostName);
        }
        List<Address> have = pod.addresses().list(podLink.index());
        List<Route> podRoutes = pod.routes().list(RouteFilter.ALL.table(254));
        for (InetAddress addr : alloc.addresses()) {
          Family f = Family.of(addr);
          if (have.stream()
              .noneMatch(
                  x -> x.address().equals(addr) && x.prefixLength() == f.maxPrefixLength())) {
            throw mismatch(
                a.ifname()
                    + " in "
                    + netnsPath
                    + " lacks "
                    + Ip.format(addr)
                    + "/"
                    + f.maxPrefixLength());
          }
          InetAddress gw = gateway(f);
          if (podRoutes.stream()
              .noneMatch(
                  r ->
                      r.destination().length() == 0
                          && r.family() == f
                          && r.nextHops().size() == 1
                          && gw.equals(r.nextHops().getFirst().gateway())
                          && r.nextHops().getFirst().index() == podLink.index())) {
            throw mismatch(
                "no default route via "
                    + Ip.format(gw)
                    + " dev "
                    + a.ifname()
                    + " in "
                    + netnsPath);
          }
        }
      }
    } catch (NetlinkException e) {
      throw netlink(e);
    }
  }

  private static CniException mismatch(String what) {
    return new CniException(CniException.NETLINK, "CHECK failed: " + what, "");
  }

  static CniException netlink(NetlinkException e) {
    return new CniException(CniException.NETLINK, e.getMessage(), "");
  }

  /**
   * What the kernel holds: every attachment recorded on a host veth, with the addresses routed to
   * it.
   */
  record Found(Recorded recorded, String hostName, List<InetAddress> addresses) {}

  /**
   * Reads the attachments back from the kernel (start-up). Host routes of ours that lead to no
   * recorded veth are removed, and so are recorded veths without any route (an ADD cut short: the
   * runtime retries it).
   */
  List<Found> scan() {
    Map<Integer, Found> byIndex = new LinkedHashMap<>();
    for (Link l : host.links().list()) {
      if ("veth".equals(l.kind()) && l.name().matches("sart[0-9a-f]{11}")) {
        Optional<Recorded> r = parseAlias(l.alias());
        if (r.isPresent()) {
          byIndex.put(l.index(), new Found(r.get(), l.name(), new ArrayList<>()));
        } else {
          LOG.info(() -> "removing unrecorded pod interface " + l.name());
          deleteLink(l.name());
        }
      }
    }
    for (Route r :
        host.routes().list(RouteFilter.ALL.table(config.routeTable()).protocol(ROUTE_PROTOCOL))) {
      Found f = r.nextHops().size() == 1 ? byIndex.get(r.nextHops().getFirst().index()) : null;
      if (f != null && r.destination().length() == r.family().maxPrefixLength()) {
        f.addresses().add(r.destination().address());
      } else {
        LOG.info(() -> "removing orphan pod route " + r.destination() + " table " + r.table());
        try {
          host.routes().delete(r);
        } catch (NetlinkException e) {
          LOG.warning(e.getMessage());
        }
      }
    }
    List<Found> out = new ArrayList<>();
    for (Found f : byIndex.values()) {
      if (f.addresses().isEmpty()) {
        LOG.info(
            () ->
                "removing half-made pod interface "
                    + f.hostName()
                    + " of "
                    + f.recorded().attachment());
        deleteLink(f.hostName());
      } else {
        out.add(f);
      }
    }
    return out;
  }

  /** Deletes a host veth found by {@link #scan} that cannot be restored. */
  void discard(Found f) {
    deleteLink(f.hostName());
  }

  @Override
  public void close() {
    host.close();
    hostNs.close();
  }
}
