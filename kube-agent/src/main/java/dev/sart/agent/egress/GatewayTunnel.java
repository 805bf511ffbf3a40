package dev.sart.agent.egress;

import dev.sart.fib.netlink.Family;
import dev.sart.fib.netlink.Link;
import dev.sart.fib.netlink.Neighbor;
import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.NextHop;
import dev.sart.fib.netlink.Route;
import dev.sart.fib.netlink.RouteFilter;
import dev.sart.fib.netlink.Rule;
import dev.sart.fib.netlink.Scope;
import dev.sart.fib.netlink.Vxlan;
import dev.sart.net.IpPrefix;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Logger;

/**
 * The gateway end of the egress tunnels, inside an egress pod's network namespace (coil's "Rules in
 * an egress Pod"): one VXLAN device {@link EgressIds#GATEWAY_DEVICE} for every client (a VXLAN
 * device takes packets from any source on its port and VNI), with the gateway MAC; packets that
 * come in on the uplink (replies from outside, after conntrack undid the SNAT) look up table 118,
 * which holds one route per client pod through the device. Locally made packets (the encapsulated
 * ones) use the main table, so the tunnel never carries itself.
 *
 * <p>Per client, the gateway knows the client's MAC from its address ({@link EgressIds#clientMac}):
 * a permanent neighbour entry and a permanent FDB entry "that MAC is behind the client's address"
 * send a reply through the same tunnel its request came in, with no learning and no ARP (an idle
 * flow's entry never ages out).
 *
 * <p>IPv6 rides the same device (RFC 7348 §4: the inner frame is any Ethernet frame): a dual-stack
 * client's IPv6 address gets a route in the IPv6 table 118 and a permanent neighbour with the same
 * client MAC, so the FDB entry of its IPv4 address carries both; {@code iif <uplink> lookup 118} is
 * there for IPv6 too. The underlay is the client's IPv4 address, or for an IPv6-only client (an
 * IPv6-only cluster: the Service's ClusterIP is IPv6) its IPv6 address, through a second device
 * {@link EgressIds#GATEWAY_DEVICE6} bound to the pod's IPv6 address.
 */
public final class GatewayTunnel implements GatewayEnd {
  private static final Logger LOG = Logger.getLogger(GatewayTunnel.class.getName());

  private final Netlink netlink;
  private final String uplink;
  private final int vni;
  private final int port;
  private int index;
  private int index6;

  public GatewayTunnel(Netlink netlink, String uplink, int vni, int port) {
    this.netlink = netlink;
    this.uplink = uplink;
    this.vni = vni;
    this.port = port;
  }

  /**
   * Makes the device, the rule {@code iif <uplink> lookup 118} and turns forwarding on. Sysctls are
   * written through {@code /proc/sys}, which shows the network namespace of the calling thread.
   */
  @Override
  public void setUp() {
    var up = netlink.links().get(uplink);
    var existing = netlink.links().find(EgressIds.GATEWAY_DEVICE);
    if (existing.isPresent()
        && (existing.get().vxlan() == null
            || existing.get().vxlan().vni() != vni
            || existing.get().vxlan().port() != port)) {
      netlink.links().delete(EgressIds.GATEWAY_DEVICE);
      existing = java.util.Optional.empty();
    }
    if (existing.isEmpty()) {
      netlink
          .links()
          .addVxlan(EgressIds.GATEWAY_DEVICE, new Vxlan(vni, null, null, port, up.index(), false));
    }
    netlink.links().setMac(EgressIds.GATEWAY_DEVICE, EgressIds.gatewayMac(vni));
    netlink.links().setMtu(EgressIds.GATEWAY_DEVICE, up.mtu() - EgressIds.VXLAN_OVERHEAD);
    netlink.links().setUp(EgressIds.GATEWAY_DEVICE);
    index = netlink.links().get(EgressIds.GATEWAY_DEVICE).index();
    index6 = device6(up);
    for (var family : List.of(Family.INET, Family.INET6)) {
      var rule =
          Rule.lookup(family, EgressIds.PREF_GATEWAY, EgressIds.GATEWAY_TABLE)
              .withIif(uplink)
              .withProtocol(EgressIds.PROTOCOL);
      if (netlink.rules().list(family).stream().noneMatch(r -> ClientTunnels.same(r, rule))) {
        netlink.rules().add(rule);
      }
    }
    sysctl("net/ipv4/ip_forward", "1");
    if (Files.isDirectory(Path.of("/proc/sys/net/ipv6"))) {
      sysctl("net/ipv6/conf/all/forwarding", "1");
    }
    // the decapsulated packets come in on the device from addresses routed via the uplink
    sysctl("net/ipv4/conf/all/rp_filter", "0");
    sysctl("net/ipv4/conf/" + EgressIds.GATEWAY_DEVICE + "/rp_filter", "0");
    LOG.info(
        "egress gateway up device=" + EgressIds.GATEWAY_DEVICE + " vni=" + vni + " port=" + port);
  }

  /**
   * The device for clients over an IPv6 underlay (a VXLAN device opens a socket of its addresses'
   * family only): bound to the uplink's global IPv6 address, made while the uplink has one; its
   * index, or 0.
   */
  private int device6(Link up) {
    InetAddress local = null;
    for (var a : netlink.addresses().list(Family.INET6, up.index())) {
      if (a.scope() == Scope.UNIVERSE) {
        local = a.address();
        break;
      }
    }
    var existing = netlink.links().find(EgressIds.GATEWAY_DEVICE6);
    if (existing.isPresent()
        && (local == null
            || existing.get().vxlan() == null
            || existing.get().vxlan().vni() != vni
            || existing.get().vxlan().port() != port
            || !local.equals(existing.get().vxlan().local()))) {
      netlink.links().delete(EgressIds.GATEWAY_DEVICE6);
      existing = java.util.Optional.empty();
    }
    if (local == null) {
      return 0;
    }
    if (existing.isEmpty()) {
      netlink
          .links()
          .addVxlan(
              EgressIds.GATEWAY_DEVICE6, new Vxlan(vni, local, null, port, up.index(), false));
    }
    netlink.links().setMac(EgressIds.GATEWAY_DEVICE6, EgressIds.gatewayMac(vni));
    netlink.links().setMtu(EgressIds.GATEWAY_DEVICE6, up.mtu() - EgressIds.VXLAN6_OVERHEAD);
    netlink.links().setUp(EgressIds.GATEWAY_DEVICE6);
    return netlink.links().get(EgressIds.GATEWAY_DEVICE6).index();
  }

  /** Makes the per-client entries exactly those of {@code clients} (IPv4-only pod addresses). */
  public void clients(Set<InetAddress> clients) {
    var map = new HashMap<InetAddress, List<InetAddress>>();
    for (var c : clients) {
      map.put(c, List.of());
    }
    clients(map);
  }

  /**
   * Makes the per-client entries exactly those of {@code clients}: each client pod's IPv4 address
   * (an IPv6-only pod's IPv6 address) (the tunnel's far end, and its MAC) with its IPv6 addresses
   * (carried inside the same tunnel).
   */
  @Override
  public void clients(Map<InetAddress, List<InetAddress>> clients) {
    var have = new HashSet<InetAddress>();
    for (var r :
        netlink
            .routes()
            .list(RouteFilter.ALL.table(EgressIds.GATEWAY_TABLE).protocol(EgressIds.PROTOCOL))) {
      have.add(r.destination().address());
    }
    var wanted = new HashSet<InetAddress>();
    for (var c : clients.entrySet()) {
      var underlay = c.getKey();
      int device = underlay instanceof Inet6Address ? index6 : index;
      if (device == 0) {
        LOG.warning(
            "egress client skipped client="
                + underlay.getHostAddress()
                + " reason=no-ipv6-address-on-"
                + uplink);
        continue;
      }
      var mac = EgressIds.clientMac(underlay);
      netlink.neighbors().replaceFdb(device, mac, underlay);
      var inner = new java.util.ArrayList<InetAddress>();
      inner.add(underlay);
      for (var a : c.getValue()) {
        if (a instanceof Inet6Address && !underlay.equals(a)) {
          inner.add(a);
        }
      }
      for (var a : inner) {
        wanted.add(a);
        netlink.neighbors().replace(Neighbor.permanent(device, a, mac));
        netlink.routes().replace(route(a, device));
        if (!have.contains(a)) {
          LOG.info(
              "egress client added client="
                  + a.getHostAddress()
                  + " underlay="
                  + underlay.getHostAddress());
        }
      }
    }
    for (var c : have) {
      if (wanted.contains(c)) {
        continue;
      }
      remove(c);
      LOG.info("egress client removed client=" + c.getHostAddress());
    }
  }

  private static Route route(InetAddress c, int device) {
    return Route.of(new IpPrefix(c, c instanceof Inet6Address ? 128 : 32))
        .table(EgressIds.GATEWAY_TABLE)
        .protocol(EgressIds.PROTOCOL)
        .scope(Scope.LINK)
        .nextHop(new NextHop(null, device, 1, Set.of()))
        .build();
  }

  private void remove(InetAddress c) {
    var family = c instanceof Inet6Address ? Family.INET6 : Family.INET;
    for (var r :
        netlink
            .routes()
            .list(RouteFilter.ALL.table(EgressIds.GATEWAY_TABLE).protocol(EgressIds.PROTOCOL))) {
      if (c.equals(r.destination().address())) {
        ClientTunnels.deleteQuietly(() -> netlink.routes().delete(r));
      }
    }
    for (int device : index6 == 0 ? List.of(index) : List.of(index, index6)) {
      for (var n : netlink.neighbors().list(family, device)) {
        if (c.equals(n.address())) {
          ClientTunnels.deleteQuietly(() -> netlink.neighbors().delete(n));
        }
      }
    }
    // the FDB entry of an underlay address (an IPv6 one is on the IPv6 device)
    var mac = EgressIds.clientMac(c);
    int device = c instanceof Inet6Address ? index6 : index;
    if (device != 0) {
      ClientTunnels.deleteQuietly(() -> netlink.neighbors().deleteFdb(device, mac, c));
    }
  }

  /** Removes the devices (and with them their routes, neighbours and FDB) and the rule. */
  @Override
  public void tearDown() {
    ClientTunnels.deleteQuietly(() -> netlink.links().delete(EgressIds.GATEWAY_DEVICE));
    ClientTunnels.deleteQuietly(() -> netlink.links().delete(EgressIds.GATEWAY_DEVICE6));
    for (var r : netlink.rules().list(null)) {
      if (r.protocol() == EgressIds.PROTOCOL) {
        ClientTunnels.deleteQuietly(() -> netlink.rules().delete(r));
      }
    }
  }

  static void sysctl(String key, String value) {
    try {
      Files.writeString(Path.of("/proc/sys").resolve(key), value);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot set " + key.replace('/', '.') + " = " + value, e);
    }
  }
}
