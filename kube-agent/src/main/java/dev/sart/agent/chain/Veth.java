package dev.sart.agent.chain;

import dev.sart.fib.netlink.Family;
import dev.sart.fib.netlink.Link;
import dev.sart.fib.netlink.MacAddress;
import dev.sart.fib.netlink.Neighbor;
import dev.sart.fib.netlink.NeighborState;
import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.NetlinkException;
import dev.sart.fib.netlink.Netns;
import dev.sart.fib.netlink.Route;
import dev.sart.net.IpPrefix;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * {@code sart-veth}, chained after a main plugin (macvlan, SR-IOV) whose interface cannot reach its
 * own node or the cluster's Services: a veth pair, {@code veth0} in the pod and {@code veth…} on
 * the node, with permanent neighbour entries both ways (no ARP or NDP over it), routes to the
 * node's addresses and the hijacked subnets (pods, Services, more) through {@code veth0} in the
 * pod, routes to the pod's addresses through the host end on the node, and optionally the migration
 * of the main interface's routes to table 200 (a pod's second NIC).
 *
 * <p>The host end's alias records {@code sart-veth/CONTAINER/IFNAME}: DEL, CHECK and GC find it by
 * name and alias, without state in the agent. One {@code veth0} serves a pod: a second main
 * interface (net1) with sart-veth only gets its routes migrated.
 */
final class Veth {
  private static final Logger LOG = Logger.getLogger(Veth.class.getName());

  static final String POD_VETH = "veth0";
  static final String ALIAS = "sart-veth";

  private final Netlink host;
  private final Supplier<List<InetAddress>> hostAddresses;

  Veth(Netlink host, Supplier<List<InetAddress>> hostAddresses) {
    this.host = host;
    this.hostAddresses = hostAddresses;
  }

  /** "veth" and 11 hex digits of SHA-256(containerId/ifname); IFNAMSIZ is 16. */
  static String hostVethName(String containerId, String ifname) {
    try {
      byte[] h =
          MessageDigest.getInstance("SHA-256")
              .digest((containerId + "/" + ifname).getBytes(StandardCharsets.UTF_8));
      return "veth" + HexFormat.of().formatHex(h).substring(0, 11);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static String alias(String containerId, String ifname) {
    return ALIAS + "/" + containerId + "/" + ifname;
  }

  /** -1: migrate when another interface of the pod comes first by name (eth0 < net1 < net2). */
  static boolean migrates(ChainConfig c, Netlink pod) {
    if (c.migrateRoute() != -1) {
      return c.migrateRoute() == 1;
    }
    return pod.links().list().stream()
        .map(Link::name)
        .anyMatch(
            n ->
                !n.equals("lo")
                    && !n.equals(POD_VETH)
                    && !n.equals(c.ifname())
                    && n.compareTo(c.ifname()) < 0);
  }

  byte[] add(ChainConfig c) throws ChainException {
    PrevResult prev = ChainedPlugins.requirePrev(c);
    List<PrevResult.IpConfig> ips = ChainedPlugins.ipsOn(prev, c);
    List<InetAddress> podIps = ips.stream().map(PrevResult.IpConfig::address).toList();
    Set<Family> families = new HashSet<>();
    ips.forEach(ip -> families.add(ip.family()));
    Kernel.Undo undo = new Kernel.Undo();
    try (Netns podNs = Kernel.openPod(c.netns());
        Netlink pod = Netlink.open(podNs)) {
      Link main = ChainedPlugins.podLink(pod, c.ifname(), c);
      MacAddress mac = Kernel.applyMacPrefix(pod, main, c.macPrefix(), ips, undo);
      String macOf = mac == null ? null : c.ifname();
      String newMac = mac == null ? null : mac.toString();
      if (mac != null && c.onlyOpMac()) {
        return prev.toJson(c.cniVersion(), List.of(), macOf, newMac);
      }
      String hostName = hostVethName(c.containerId(), c.ifname());
      String alias = alias(c.containerId(), c.ifname());
      boolean owner = true;
      Optional<Link> podVeth = pod.links().find(POD_VETH);
      if (podVeth.isPresent()) {
        Optional<Link> peer = host.links().find(podVeth.get().linkIndex());
        String peerAlias = peer.map(Link::alias).orElse(null);
        if (alias.equals(peerAlias)) {
          owner = true; // a repeated ADD: everything below is re-applied
        } else if (peerAlias != null && peerAlias.startsWith(ALIAS + "/" + c.containerId() + "/")) {
          owner = false; // another main interface of this pod made veth0
        } else {
          throw new ChainException(
              ChainException.INTERNAL,
              POD_VETH + " exists already in " + c.netns() + " and is not sart-veth's",
              "");
        }
      } else {
        if (host.links().find(hostName).isPresent()) {
          Kernel.deleteLink(host, hostName); // left by an ADD cut short
        }
        host.links().addVeth(hostName, POD_VETH, podNs);
        undo.push(() -> Kernel.deleteLink(host, hostName));
        host.links().setAlias(hostName, alias);
      }
      List<PrevResult.Added> added = new ArrayList<>();
      List<String> rpInterfaces = new ArrayList<>(List.of(c.ifname()));
      if (owner) {
        host.links().setMtu(hostName, main.mtu());
        pod.links().setMtu(POD_VETH, main.mtu());
        if (families.contains(Family.INET6)) {
          Kernel.sysctl(podNs, "net/ipv6/conf/" + POD_VETH + "/disable_ipv6", "0");
        }
        host.links().setUp(hostName);
        pod.links().setUp(POD_VETH);
        Link hostLink = host.links().get(hostName);
        Link podLink = pod.links().get(POD_VETH);
        wire(c, pod, hostLink, podLink, ips);
        added.add(new PrevResult.Added(hostName, hostLink.mac().toString(), hostLink.mtu(), null));
        added.add(
            new PrevResult.Added(POD_VETH, podLink.mac().toString(), podLink.mtu(), c.netns()));
        rpInterfaces.add(POD_VETH);
      }
      if (migrates(c, pod)) {
        Migration.migrate(pod, main.index(), families, podIps, undo);
      }
      Kernel.sysctls(podNs, c.rpFilter(), rpInterfaces);
      LOG.info(
          () ->
              "sart-veth added container="
                  + c.containerId()
                  + " ifname="
                  + c.ifname()
                  + " host="
                  + hostName
                  + " migrated="
                  + migrates(c, pod));
      return prev.toJson(c.cniVersion(), added, macOf, newMac);
    } catch (NetlinkException e) {
      undo.run();
      throw Kernel.netlink(e);
    } catch (ChainException | RuntimeException e) {
      undo.run();
      throw e;
    }
  }

  /** Neighbours both ways and the routes on both sides (replace: a repeated ADD re-applies). */
  private void wire(
      ChainConfig c, Netlink pod, Link hostLink, Link podLink, List<PrevResult.IpConfig> ips)
      throws ChainException {
    List<InetAddress> hostIps = hostAddresses.get();
    for (PrevResult.IpConfig ip : ips) {
      host.neighbors().replace(Neighbor.permanent(hostLink.index(), ip.address(), podLink.mac()));
      host.routes()
          .replace(Kernel.route(IpPrefix.host(ip.address()), hostLink.index(), null, null).build());
    }
    for (InetAddress h : hostIps) {
      Optional<PrevResult.IpConfig> src =
          ips.stream().filter(ip -> ip.family() == Family.of(h)).findFirst();
      if (src.isEmpty()) {
        continue;
      }
      pod.neighbors().replace(Neighbor.permanent(podLink.index(), h, hostLink.mac()));
      pod.routes()
          .replace(
              Kernel.route(IpPrefix.host(h), podLink.index(), null, src.get().address()).build());
    }
    for (IpPrefix subnet : c.hijacked()) {
      Optional<PrevResult.IpConfig> src =
          ips.stream().filter(ip -> ip.family() == Family.of(subnet)).findFirst();
      if (src.isEmpty()) {
        continue; // a dual-stack configuration on a single-stack pod
      }
      InetAddress gw =
          Kernel.first(hostIps, Family.of(subnet))
              .orElseThrow(
                  () ->
                      new ChainException(
                          ChainException.INVALID_NETWORK_CONFIG,
                          "the node has no "
                              + Family.of(subnet)
                              + " address to route "
                              + subnet
                              + " through",
                          ""));
      pod.routes().replace(Kernel.route(subnet, podLink.index(), gw, src.get().address()).build());
    }
  }

  /**
   * DEL: the host end goes (the pod end, its routes and neighbours with it); the migration back.
   */
  void del(ChainConfig c) throws ChainException {
    try {
      Kernel.deleteLink(host, hostVethName(c.containerId(), c.ifname()));
      if (!Kernel.exists(c.netns())) {
        return;
      }
      try (Netns podNs = Kernel.openPod(c.netns());
          Netlink pod = Netlink.open(podNs)) {
        Optional<Link> main = pod.links().find(c.ifname());
        if (main.isPresent()) {
          Set<InetAddress> from = new HashSet<>();
          pod.addresses().list(main.get().index()).forEach(a -> from.add(a.address()));
          if (c.prevResult() != null) {
            c.prevResult().ipsOn(c.ifname()).forEach(ip -> from.add(ip.address()));
          }
          Migration.restore(pod, main.get().index(), from);
        }
      }
    } catch (NetlinkException e) {
      throw Kernel.netlink(e);
    }
  }

  /** CHECK: everything ADD made is still there. */
  void check(ChainConfig c) throws ChainException {
    PrevResult prev = ChainedPlugins.requirePrev(c);
    List<PrevResult.IpConfig> ips = ChainedPlugins.ipsOn(prev, c);
    try (Netns podNs = Kernel.openPod(c.netns());
        Netlink pod = Netlink.open(podNs)) {
      Link main = ChainedPlugins.podLink(pod, c.ifname(), c);
      if (c.macPrefix() >= 0) {
        MacAddress want = Kernel.macFor(c.macPrefix(), ips);
        if (!want.equals(main.mac())) {
          throw ChainException.mismatch(c.ifname() + " has MAC " + main.mac() + ", not " + want);
        }
        if (c.onlyOpMac()) {
          return;
        }
      }
      Link podLink =
          pod.links()
              .find(POD_VETH)
              .orElseThrow(() -> ChainException.mismatch(POD_VETH + " is missing in the pod"));
      String hostName = hostVethName(c.containerId(), c.ifname());
      Optional<Link> hostEnd = host.links().find(hostName);
      if (hostEnd.isPresent()) {
        Link hostLink = hostEnd.get();
        if (!alias(c.containerId(), c.ifname()).equals(hostLink.alias())) {
          throw ChainException.mismatch(hostName + " is recorded as " + hostLink.alias());
        }
        if (!hostLink.isUp() || !podLink.isUp()) {
          throw ChainException.mismatch(hostName + " or " + POD_VETH + " is down");
        }
        if (podLink.linkIndex() != hostLink.index()) {
          throw ChainException.mismatch(POD_VETH + " is not the peer of " + hostName);
        }
        checkWiring(c, pod, hostLink, podLink, ips);
      } else {
        Optional<Link> peer = host.links().find(podLink.linkIndex());
        String a = peer.map(Link::alias).orElse("");
        if (!a.startsWith(ALIAS + "/" + c.containerId() + "/")) {
          throw ChainException.mismatch("the node's end of " + POD_VETH + " is missing");
        }
      }
      if (migrates(c, pod)) {
        Migration.check(
            pod, main.index(), c.ifname(), ips.stream().map(PrevResult.IpConfig::address).toList());
      }
    } catch (NetlinkException e) {
      throw Kernel.netlink(e);
    }
  }

  private void checkWiring(
      ChainConfig c, Netlink pod, Link hostLink, Link podLink, List<PrevResult.IpConfig> ips)
      throws ChainException {
    List<Neighbor> hostNeigh = host.neighbors().list(null, hostLink.index());
    List<Neighbor> podNeigh = pod.neighbors().list(null, podLink.index());
    List<Route> hostMain = Kernel.main(host);
    List<Route> podMain = Kernel.main(pod);
    for (PrevResult.IpConfig ip : ips) {
      if (!permanent(hostNeigh, ip.address(), podLink.mac())) {
        throw ChainException.mismatch(
            "no permanent neighbour " + ip.address().getHostAddress() + " on " + hostLink.name());
      }
      if (!Kernel.hasRoute(hostMain, IpPrefix.host(ip.address()), hostLink.index())) {
        throw ChainException.mismatch(
            "no route to " + ip.address().getHostAddress() + " dev " + hostLink.name());
      }
    }
    Set<Family> families = new HashSet<>();
    ips.forEach(ip -> families.add(ip.family()));
    for (InetAddress h : hostAddresses.get()) {
      if (!families.contains(Family.of(h))) {
        continue;
      }
      if (!permanent(podNeigh, h, hostLink.mac())) {
        throw ChainException.mismatch(
            "no permanent neighbour " + h.getHostAddress() + " on " + POD_VETH + " in the pod");
      }
      if (!Kernel.hasRoute(podMain, IpPrefix.host(h), podLink.index())) {
        throw ChainException.mismatch(
            "no route to " + h.getHostAddress() + " dev " + POD_VETH + " in the pod");
      }
    }
    for (IpPrefix subnet : c.hijacked()) {
      if (families.contains(Family.of(subnet))
          && !Kernel.hasRoute(podMain, subnet, podLink.index())) {
        throw ChainException.mismatch("no route to " + subnet + " dev " + POD_VETH + " in the pod");
      }
    }
  }

  private static boolean permanent(List<Neighbor> list, InetAddress a, MacAddress mac) {
    return list.stream()
        .anyMatch(
            n ->
                n.address().equals(a)
                    && mac.equals(n.mac())
                    && n.state().contains(NeighborState.PERMANENT));
  }

  /** GC (CNI 1.1): host ends of attachments the runtime no longer lists. */
  void gc(ChainConfig c) throws ChainException {
    if (c.validAttachments() == null) {
      throw ChainException.config("cni.dev/valid-attachments", "is missing: GC needs it");
    }
    Set<String> valid = new HashSet<>(c.validAttachments());
    try {
      for (Link l : host.links().list()) {
        String a = l.alias();
        if (a != null && a.startsWith(ALIAS + "/") && "veth".equals(l.kind())) {
          String attachment = a.substring(ALIAS.length() + 1);
          if (!valid.contains(attachment)) {
            Kernel.deleteLink(host, l.name());
            LOG.info(() -> "sart-veth garbage-collected attachment=" + attachment);
          }
        }
      }
    } catch (NetlinkException e) {
      throw Kernel.netlink(e);
    }
  }
}
