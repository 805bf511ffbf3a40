package dev.sart.agent.chain;

import dev.sart.fib.netlink.Address;
import dev.sart.fib.netlink.Family;
import dev.sart.fib.netlink.Link;
import dev.sart.fib.netlink.MacAddress;
import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.NetlinkException;
import dev.sart.fib.netlink.Netns;
import dev.sart.fib.netlink.Route;
import dev.sart.fib.netlink.RouteFilter;
import dev.sart.fib.netlink.Scope;
import dev.sart.net.IpPrefix;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * {@code sart-router}, chained after a pod's secondary interface (macvlan, SR-IOV: {@code net1})
 * whose first interface ({@code overlay_interface}, eth0) comes from the cluster CNI: east-west
 * traffic (the node, the hijacked pod and Service subnets) keeps to eth0, north-south leaves by
 * net1. The node routes the pod's net1 addresses through eth0's host end; in the pod the node's
 * addresses and the hijacked subnets are routed through eth0, eth0's own routes move to table 200
 * with a rule per eth0 address ({@code from ADDRESS lookup 200}: replies to what came in on eth0
 * leave by eth0), and the main table's default route goes through net1's gateway.
 */
final class Router {
  private static final Logger LOG = Logger.getLogger(Router.class.getName());

  private final Netlink host;
  private final Supplier<List<InetAddress>> hostAddresses;

  Router(Netlink host, Supplier<List<InetAddress>> hostAddresses) {
    this.host = host;
    this.hostAddresses = hostAddresses;
  }

  /** The pod's interfaces this call is about. */
  private record Pod(Link overlay, Link secondary, Link hostEnd) {}

  private Pod links(ChainConfig c, Netlink pod) throws ChainException {
    Link secondary = ChainedPlugins.podLink(pod, c.ifname(), c);
    Link overlay =
        pod.links()
            .find(c.overlayInterface())
            .orElseThrow(
                () ->
                    ChainException.config(
                        "overlay_interface", "names " + c.overlayInterface() + ", not in the pod"));
    if (overlay.index() == secondary.index()) {
      throw ChainException.config(
          "overlay_interface", "is CNI_IFNAME itself: sart-router follows a secondary interface");
    }
    Optional<Link> hostEnd =
        overlay.linkIndex() > 0 ? host.links().find(overlay.linkIndex()) : Optional.empty();
    if (hostEnd.isEmpty()
        || !"veth".equals(hostEnd.get().kind())
        || hostEnd.get().linkIndex() != overlay.index()) {
      throw ChainException.config(
          "overlay_interface",
          "names "
              + c.overlayInterface()
              + ", which is not a veth whose other end is on this node (sart-router follows a"
              + " pod whose first interface comes from the cluster CNI)");
    }
    return new Pod(overlay, secondary, hostEnd.get());
  }

  /**
   * -1: only the first secondary interface by name (eth0 < net1 < net2) takes the default route.
   */
  static boolean migrates(ChainConfig c, Netlink pod) {
    if (c.migrateRoute() != -1) {
      return c.migrateRoute() == 1;
    }
    return pod.links().list().stream()
        .map(Link::name)
        .noneMatch(
            n ->
                !n.equals("lo")
                    && !n.equals(Veth.POD_VETH)
                    && !n.equals(c.ifname())
                    && !n.equals(c.overlayInterface())
                    && n.compareTo(c.ifname()) < 0);
  }

  /** net1's gateway per family, from prevResult: the families whose default route moves. */
  private static Map<Family, InetAddress> gateways(List<PrevResult.IpConfig> ips) {
    Map<Family, InetAddress> gw = new EnumMap<>(Family.class);
    for (PrevResult.IpConfig ip : ips) {
      if (ip.gateway() != null) {
        gw.putIfAbsent(ip.family(), ip.gateway());
      }
    }
    return gw;
  }

  /** eth0's gateway per family: its default route, in the main table or already in table 200. */
  private static Map<Family, InetAddress> overlayGateways(Netlink pod, int index) {
    Map<Family, InetAddress> gw = new EnumMap<>(Family.class);
    List<Route> routes = new ArrayList<>(Kernel.main(pod));
    routes.addAll(pod.routes().list(RouteFilter.ALL.table(Migration.TABLE)));
    for (Route r : routes) {
      if (r.destination().length() == 0) {
        r.nextHops().stream()
            .filter(h -> h.index() == index && h.gateway() != null)
            .findFirst()
            .ifPresent(h -> gw.putIfAbsent(r.family(), h.gateway()));
      }
    }
    return gw;
  }

  private static Map<Family, InetAddress> addresses(Netlink pod, int index) {
    Map<Family, InetAddress> out = new EnumMap<>(Family.class);
    for (Address a : pod.addresses().list(index)) {
      if (a.scope() == Scope.UNIVERSE) {
        out.putIfAbsent(a.family(), a.address());
      }
    }
    return out;
  }

  byte[] add(ChainConfig c) throws ChainException {
    PrevResult prev = ChainedPlugins.requirePrev(c);
    List<PrevResult.IpConfig> ips = ChainedPlugins.ipsOn(prev, c);
    Kernel.Undo undo = new Kernel.Undo();
    try (Netns podNs = Kernel.openPod(c.netns());
        Netlink pod = Netlink.open(podNs)) {
      Pod p = links(c, pod);
      MacAddress mac = Kernel.applyMacPrefix(pod, p.secondary(), c.macPrefix(), ips, undo);
      String macOf = mac == null ? null : c.ifname();
      String newMac = mac == null ? null : mac.toString();
      if (mac != null && c.onlyOpMac()) {
        return prev.toJson(c.cniVersion(), List.of(), macOf, newMac);
      }
      // the node: the pod's secondary addresses through eth0's host end
      for (PrevResult.IpConfig ip : ips) {
        Route r =
            Kernel.route(IpPrefix.host(ip.address()), p.hostEnd().index(), null, null).build();
        host.routes().replace(r);
        undo.push(() -> Kernel.deleteRoute(host, r));
      }
      Map<Family, InetAddress> src = addresses(pod, p.overlay().index());
      Map<Family, InetAddress> overlayGw = overlayGateways(pod, p.overlay().index());
      Map<Family, InetAddress> secondaryGw = gateways(ips);
      if (src.containsKey(Family.INET6) || secondaryGw.containsKey(Family.INET6)) {
        Kernel.sysctl(podNs, "net/ipv6/conf/" + c.overlayInterface() + "/disable_ipv6", "0");
      }
      Set<Family> moved = new HashSet<>();
      if (migrates(c, pod)) {
        moved.addAll(secondaryGw.keySet());
        moved.retainAll(src.keySet());
        Migration.migrate(
            pod,
            p.overlay().index(),
            moved,
            src.values().stream().filter(a -> moved.contains(Family.of(a))).toList(),
            undo);
      }
      // the pod: the node's addresses through eth0 (those eth0 has no route to of its own)
      List<Route> main = Kernel.main(pod);
      for (InetAddress h : hostAddresses.get()) {
        Family f = Family.of(h);
        if (src.containsKey(f) && !Kernel.hasRoute(main, IpPrefix.host(h), p.overlay().index())) {
          Route r = Kernel.route(IpPrefix.host(h), p.overlay().index(), null, src.get(f)).build();
          pod.routes().replace(r);
          undo.push(() -> Kernel.deleteRoute(pod, r));
        }
      }
      for (IpPrefix subnet : c.hijacked()) {
        Family f = Family.of(subnet);
        if (src.containsKey(f)) {
          Route r = Kernel.route(subnet, p.overlay().index(), overlayGw.get(f), src.get(f)).build();
          pod.routes().replace(r);
          undo.push(() -> Kernel.deleteRoute(pod, r));
        }
      }
      for (Family f : moved) {
        Route r =
            Kernel.route(
                    new IpPrefix(f == Family.INET ? ANY4 : ANY6, 0),
                    p.secondary().index(),
                    secondaryGw.get(f),
                    null)
                .build();
        pod.routes().replace(r);
        undo.push(() -> Kernel.deleteRoute(pod, r));
      }
      Kernel.sysctls(podNs, c.rpFilter(), List.of(c.overlayInterface(), c.ifname()));
      LOG.info(
          () ->
              "sart-router added container="
                  + c.containerId()
                  + " ifname="
                  + c.ifname()
                  + " overlay="
                  + c.overlayInterface()
                  + " migrated="
                  + moved);
      return prev.toJson(c.cniVersion(), List.of(), macOf, newMac);
    } catch (NetlinkException e) {
      undo.run();
      throw Kernel.netlink(e);
    } catch (ChainException | RuntimeException e) {
      undo.run();
      throw e;
    }
  }

  private static final InetAddress ANY4 = dev.sart.net.Ip.parse("0.0.0.0");
  private static final InetAddress ANY6 = dev.sart.net.Ip.parse("::");

  /**
   * DEL: our routes go on both sides and eth0's routes return to the main table; what is gone
   * already is fine.
   */
  void del(ChainConfig c) throws ChainException {
    Set<InetAddress> secondary = new HashSet<>();
    if (c.prevResult() != null) {
      c.prevResult().ipsOn(c.ifname()).forEach(ip -> secondary.add(ip.address()));
    }
    try {
      if (Kernel.exists(c.netns())) {
        try (Netns podNs = Kernel.openPod(c.netns());
            Netlink pod = Netlink.open(podNs)) {
          Optional<Link> sec = pod.links().find(c.ifname());
          sec.ifPresent(
              l -> pod.addresses().list(l.index()).forEach(a -> secondary.add(a.address())));
          for (Route r : Kernel.main(pod)) {
            if (r.protocol() == Kernel.PROTOCOL) {
              Kernel.deleteRoute(pod, r);
            }
          }
          Optional<Link> overlay = pod.links().find(c.overlayInterface());
          if (overlay.isPresent()) {
            Set<InetAddress> from = new HashSet<>();
            pod.addresses().list(overlay.get().index()).forEach(a -> from.add(a.address()));
            Migration.restore(pod, overlay.get().index(), from);
          }
        }
      }
      for (Route r : Kernel.main(host)) {
        if (r.protocol() == Kernel.PROTOCOL
            && r.destination().length() == r.family().maxPrefixLength()
            && secondary.contains(r.destination().address())) {
          Kernel.deleteRoute(host, r);
        }
      }
    } catch (NetlinkException e) {
      throw Kernel.netlink(e);
    }
  }

  /** CHECK: the routes ADD made on both sides, the rules and the moved default route. */
  void check(ChainConfig c) throws ChainException {
    PrevResult prev = ChainedPlugins.requirePrev(c);
    List<PrevResult.IpConfig> ips = ChainedPlugins.ipsOn(prev, c);
    try (Netns podNs = Kernel.openPod(c.netns());
        Netlink pod = Netlink.open(podNs)) {
      Pod p = links(c, pod);
      if (c.macPrefix() >= 0) {
        MacAddress want = Kernel.macFor(c.macPrefix(), ips);
        if (!want.equals(p.secondary().mac())) {
          throw ChainException.mismatch(
              c.ifname() + " has MAC " + p.secondary().mac() + ", not " + want);
        }
        if (c.onlyOpMac()) {
          return;
        }
      }
      List<Route> hostMain = Kernel.main(host);
      for (PrevResult.IpConfig ip : ips) {
        if (!Kernel.hasRoute(hostMain, IpPrefix.host(ip.address()), p.hostEnd().index())) {
          throw ChainException.mismatch(
              "no route to "
                  + ip.address().getHostAddress()
                  + " dev "
                  + p.hostEnd().name()
                  + " on the node");
        }
      }
      Map<Family, InetAddress> src = addresses(pod, p.overlay().index());
      List<Route> main = Kernel.main(pod);
      for (InetAddress h : hostAddresses.get()) {
        if (src.containsKey(Family.of(h))
            && !Kernel.hasRoute(main, IpPrefix.host(h), p.overlay().index())) {
          throw ChainException.mismatch(
              "no route to " + h.getHostAddress() + " dev " + c.overlayInterface() + " in the pod");
        }
      }
      for (IpPrefix subnet : c.hijacked()) {
        if (src.containsKey(Family.of(subnet))
            && !Kernel.hasRoute(main, subnet, p.overlay().index())) {
          throw ChainException.mismatch(
              "no route to " + subnet + " dev " + c.overlayInterface() + " in the pod");
        }
      }
      if (migrates(c, pod)) {
        Map<Family, InetAddress> gw = gateways(ips);
        for (Family f : gw.keySet()) {
          if (!src.containsKey(f)) {
            continue;
          }
          Migration.check(pod, p.overlay().index(), c.overlayInterface(), List.of(src.get(f)));
          IpPrefix any = new IpPrefix(f == Family.INET ? ANY4 : ANY6, 0);
          if (!Kernel.hasRoute(main, any, p.secondary().index())) {
            throw ChainException.mismatch(
                "the pod's default route does not leave by " + c.ifname());
          }
        }
      }
    } catch (NetlinkException e) {
      throw Kernel.netlink(e);
    }
  }
}
