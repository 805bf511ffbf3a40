package dev.sart.agent.egress;

import dev.sart.crds.TunnelMode;
import dev.sart.fib.netlink.Family;
import dev.sart.fib.netlink.GenericNetlink;
import dev.sart.fib.netlink.Link;
import dev.sart.fib.netlink.Neighbor;
import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.NetlinkException;
import dev.sart.fib.netlink.NextHop;
import dev.sart.fib.netlink.NextHopFlag;
import dev.sart.fib.netlink.Route;
import dev.sart.fib.netlink.RouteFilter;
import dev.sart.fib.netlink.Rule;
import dev.sart.fib.netlink.Scope;
import dev.sart.fib.netlink.Vxlan;
import dev.sart.net.IpPrefix;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * The client end of the egress tunnels, inside a client pod's network namespace (coil's "Rules in a
 * client Pod"), made level-triggered: {@link #apply} makes the namespace hold exactly the tunnels
 * of {@code wanted} and removes every device, route and rule of ours that is not wanted (an empty
 * list removes them all).
 *
 * <p>Per Egress: a VXLAN device (RFC 7348) {@code egr<vni>} to the egress Service's ClusterIP,
 * whose MAC is derived from the pod's address, with a permanent neighbour entry "ClusterIP is at
 * the gateway MAC" on it, so the Egress's destinations are routed {@code via <ClusterIP> dev
 * egr<vni> onlink} with no ARP over the tunnel. Destinations that are a default route go to table
 * 118, others to 117. Rules (protocol {@link EgressIds#PROTOCOL}): link-local and the tunnels'
 * peers stay on the main table (else the tunnel would carry its own packets), then table 117, then
 * the private ranges on the main table (pods, Services, nodes), then table 118.
 *
 * <p>IPv6 destinations of a dual-stack pod ride the same device over the IPv4 underlay: routed
 * {@code via <gateway link-local> dev egr<vni>} in the IPv6 tables 117/118, with a permanent
 * neighbour "that link-local is at the gateway MAC", and the same rule layout for IPv6 (link-local
 * {@code fe80::/10} and the unique-local {@code fc00::/7} range, RFC 4193, on the main table), made
 * only while some Egress has an IPv6 destination. In an IPv6-only cluster the Service's ClusterIP
 * and the pod's address are IPv6: the device's underlay is IPv6 (RFC 7348 §5), its MAC made of the
 * pod's IPv6 address; a Service of the other family than the pod's address is skipped.
 */
public final class ClientTunnels {
  private static final Logger LOG = Logger.getLogger(ClientTunnels.class.getName());

  /** RFC 1918 ranges coil keeps on the main table before the default-route table. */
  static final List<IpPrefix> PRIVATE =
      List.of(
          IpPrefix.parse("10.0.0.0/8"),
          IpPrefix.parse("172.16.0.0/12"),
          IpPrefix.parse("192.168.0.0/16"));

  static final IpPrefix LINK_LOCAL = IpPrefix.parse("169.254.0.0/16");

  /** IPv6's link-local (RFC 4291 §2.5.6) and unique-local (RFC 4193) ranges, on the main table. */
  static final IpPrefix LINK_LOCAL6 = IpPrefix.parse("fe80::/10");

  static final IpPrefix UNIQUE_LOCAL6 = IpPrefix.parse("fc00::/7");

  private static final int MAIN = 254;

  private ClientTunnels() {}

  /**
   * Makes the namespace of {@code pod} hold exactly the tunnels of {@code wanted}.
   *
   * @param pod netlink inside the client pod
   * @param podAddress the pod's IPv4 address, an IPv6-only pod's IPv6 one (the tunnel's source, and
   *     its MAC)
   * @param uplink the pod's interface the tunnels leave by (eth0)
   */
  public static void apply(
      Netlink pod, InetAddress podAddress, String uplink, List<ClientEgress> wanted) {
    apply(
        pod,
        () -> {
          throw new IllegalStateException("FoU: no generic netlink socket given");
        },
        podAddress,
        uplink,
        wanted);
  }

  /**
   * The same with FoU tunnels ({@link FouClientTunnels}), whose receivers {@code genl} (opened on
   * first use) adds. A FoU failure (no {@code fou} module) leaves the other Egresses' tunnels made
   * and nothing of the failed ones, and is thrown at the end.
   */
  public static void apply(
      Netlink pod,
      Supplier<GenericNetlink> genl,
      InetAddress podAddress,
      String uplink,
      List<ClientEgress> wanted) {
    var byDevice = new LinkedHashMap<String, ClientEgress>();
    var fou = new ArrayList<ClientEgress>();
    for (var e : wanted) {
      if (e.mode() == TunnelMode.FOU) {
        if ((e.peer() instanceof Inet4Address) != (podAddress instanceof Inet4Address)) {
          LOG.warning(
              "egress skipped egress="
                  + e.namespace()
                  + "/"
                  + e.name()
                  + " reason=fou-peer-of-the-other-family");
          continue;
        }
        fou.add(e);
      } else if ((e.peer() instanceof Inet4Address) != (podAddress instanceof Inet4Address)) {
        // the underlay is the Service's family: an IPv4 pod address cannot reach an IPv6 ClusterIP
        LOG.warning(
            "egress skipped egress="
                + e.namespace()
                + "/"
                + e.name()
                + " reason=service-of-the-other-family");
        continue;
      }
      byDevice.put(e.device(), e);
    }
    // devices first (routes need them), then routes and rules; removal in the opposite order
    var up = pod.links().get(uplink);
    var indexes = new HashMap<String, Integer>();
    for (var entry : byDevice.entrySet()) {
      if (entry.getValue().mode() != TunnelMode.FOU) {
        indexes.put(entry.getKey(), device(pod, entry.getKey(), entry.getValue(), podAddress, up));
      }
    }
    RuntimeException fouFailure = null;
    try {
      indexes.putAll(FouClientTunnels.devices(pod, genl, podAddress, up, fou));
    } catch (RuntimeException e) {
      fouFailure = e;
      for (var f : fou) {
        byDevice.remove(f.device());
      }
    }
    routes(pod, byDevice, indexes);
    rules(pod, byDevice.values());
    for (var link : pod.links().list()) {
      if (isOurs(link) && !byDevice.containsKey(link.name())) {
        pod.links().delete(link.name());
        LOG.info("egress tunnel removed device=" + link.name());
      }
    }
    FouClientTunnels.removeStale(pod, genl, byDevice.keySet());
    if (fouFailure != null) {
      throw fouFailure;
    }
  }

  static boolean isOurs(Link link) {
    return link.name().startsWith("egr") && "vxlan".equals(link.kind());
  }

  private static int device(
      Netlink pod, String name, ClientEgress e, InetAddress podAddress, Link uplink) {
    var vxlan = new Vxlan(e.vni(), null, e.peer(), e.port(), uplink.index(), false);
    var existing = pod.links().find(name);
    if (existing.isPresent()) {
      var v = existing.get().vxlan();
      if (v == null || !e.peer().equals(v.remote()) || v.port() != e.port() || v.vni() != e.vni()) {
        pod.links().delete(name); // the Service's ClusterIP changed: a new tunnel
        existing = java.util.Optional.empty();
      }
    }
    if (existing.isEmpty()) {
      pod.links().addVxlan(name, vxlan);
      LOG.info(
          "egress tunnel added device="
              + name
              + " egress="
              + e.namespace()
              + "/"
              + e.name()
              + " peer="
              + e.peer().getHostAddress()
              + " vni="
              + e.vni());
    }
    pod.links().setMac(name, EgressIds.clientMac(podAddress));
    pod.links()
        .setMtu(
            name,
            uplink.mtu()
                - (e.peer() instanceof Inet4Address
                    ? EgressIds.VXLAN_OVERHEAD
                    : EgressIds.VXLAN6_OVERHEAD));
    pod.links().setUp(name);
    int index = pod.links().get(name).index();
    pod.neighbors().replace(Neighbor.permanent(index, e.peer(), EgressIds.gatewayMac(e.vni())));
    var linkLocal = EgressIds.gatewayLinkLocal(e.vni());
    if (hasIpv6(e)) {
      pod.neighbors().replace(Neighbor.permanent(index, linkLocal, EgressIds.gatewayMac(e.vni())));
    } else {
      for (var n : pod.neighbors().list(Family.INET6, index)) {
        if (linkLocal.equals(n.address())) {
          deleteQuietly(() -> pod.neighbors().delete(n));
        }
      }
    }
    return index;
  }

  private static void routes(
      Netlink pod, Map<String, ClientEgress> byDevice, Map<String, Integer> indexes) {
    var wanted = new HashMap<String, Route>();
    for (var entry : byDevice.entrySet()) {
      var e = entry.getValue();
      int index = indexes.get(entry.getKey());
      for (var d : e.destinations()) {
        int table = d.length() == 0 ? EgressIds.CLIENT_DEFAULT_TABLE : EgressIds.CLIENT_TABLE;
        if (e.mode() == TunnelMode.FOU) {
          // IPIP / IP6IP6 carry one family: the pod's (coil makes a tunnel per family)
          if (d.isIpv4() != (e.peer() instanceof Inet4Address)) {
            continue;
          }
          var r =
              Route.of(d)
                  .table(table)
                  .protocol(EgressIds.PROTOCOL)
                  .scope(Scope.LINK)
                  .nextHop(new NextHop(null, index, 1, Set.of()))
                  .build();
          wanted.put(table + " " + d, r);
          continue;
        }
        if (d.isIpv4() && !(e.peer() instanceof Inet4Address)) {
          continue; // an IPv6-only pod (IPv6 underlay) has no IPv4 source
        }
        var hop =
            d.isIpv4()
                ? new NextHop(e.peer(), index, 1, Set.of(NextHopFlag.ONLINK))
                : new NextHop(EgressIds.gatewayLinkLocal(e.vni()), index, 1, Set.of());
        var r = Route.of(d).table(table).protocol(EgressIds.PROTOCOL).nextHop(hop).build();
        wanted.put(table + " " + d, r);
      }
    }
    for (var r : wanted.values()) {
      pod.routes().replace(r);
    }
    for (int table : List.of(EgressIds.CLIENT_TABLE, EgressIds.CLIENT_DEFAULT_TABLE)) {
      for (var r : pod.routes().list(RouteFilter.ALL.table(table).protocol(EgressIds.PROTOCOL))) {
        if (!wanted.containsKey(table + " " + r.destination())) {
          deleteQuietly(() -> pod.routes().delete(r));
        }
      }
    }
  }

  private static void rules(Netlink pod, java.util.Collection<ClientEgress> egresses) {
    var wanted = new ArrayList<Rule>();
    if (!egresses.isEmpty()) {
      wanted.add(rule(EgressIds.PREF_LINK_LOCAL, MAIN, LINK_LOCAL));
      var peers = new HashSet<InetAddress>();
      for (var e : egresses) {
        if (peers.add(e.peer())) {
          wanted.add(
              e.peer() instanceof Inet4Address
                  ? rule(EgressIds.PREF_PEER, MAIN, new IpPrefix(e.peer(), 32))
                  : rule6(EgressIds.PREF_PEER, MAIN, new IpPrefix(e.peer(), 128)));
        }
      }
      wanted.add(rule(EgressIds.PREF_CLIENT_TABLE, EgressIds.CLIENT_TABLE, null));
      for (int i = 0; i < PRIVATE.size(); i++) {
        wanted.add(rule(EgressIds.PREF_PRIVATE + i, MAIN, PRIVATE.get(i)));
      }
      wanted.add(rule(EgressIds.PREF_DEFAULT_TABLE, EgressIds.CLIENT_DEFAULT_TABLE, null));
    }
    if (egresses.stream().anyMatch(ClientTunnels::hasIpv6)) {
      wanted.add(rule6(EgressIds.PREF_LINK_LOCAL, MAIN, LINK_LOCAL6));
      wanted.add(rule6(EgressIds.PREF_CLIENT_TABLE, EgressIds.CLIENT_TABLE, null));
      wanted.add(rule6(EgressIds.PREF_PRIVATE, MAIN, UNIQUE_LOCAL6));
      wanted.add(rule6(EgressIds.PREF_DEFAULT_TABLE, EgressIds.CLIENT_DEFAULT_TABLE, null));
    }
    var existing =
        pod.rules().list(null).stream().filter(r -> r.protocol() == EgressIds.PROTOCOL).toList();
    for (var w : wanted) {
      if (existing.stream().noneMatch(r -> same(r, w))) {
        pod.rules().add(w);
      }
    }
    for (var r : existing) {
      if (wanted.stream().noneMatch(w -> same(r, w))) {
        deleteQuietly(() -> pod.rules().delete(r));
      }
    }
  }

  static boolean hasIpv6(ClientEgress e) {
    return e.destinations().stream().anyMatch(d -> !d.isIpv4());
  }

  static Rule rule6(int priority, int table, IpPrefix to) {
    var r = Rule.lookup(Family.INET6, priority, table).withProtocol(EgressIds.PROTOCOL);
    return to == null ? r : r.withTo(to);
  }

  static Rule rule(int priority, int table, IpPrefix to) {
    var r = Rule.lookup(Family.INET, priority, table).withProtocol(EgressIds.PROTOCOL);
    return to == null ? r : r.withTo(to);
  }

  static boolean same(Rule a, Rule b) {
    return a.family() == b.family()
        && a.priority() == b.priority()
        && a.table() == b.table()
        && java.util.Objects.equals(a.to(), b.to())
        && java.util.Objects.equals(a.iif(), b.iif());
  }

  static void deleteQuietly(Runnable r) {
    try {
      r.run();
    } catch (NetlinkException e) {
      // gone meanwhile: what we wanted
    }
  }
}
