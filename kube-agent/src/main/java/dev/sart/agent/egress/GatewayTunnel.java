package dev.sart.agent.egress;

import dev.sart.fib.netlink.Family;
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
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
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
 */
public final class GatewayTunnel {
  private static final Logger LOG = Logger.getLogger(GatewayTunnel.class.getName());

  private final Netlink netlink;
  private final String uplink;
  private final int vni;
  private final int port;
  private int index;

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
    var rule =
        Rule.lookup(Family.INET, EgressIds.PREF_GATEWAY, EgressIds.GATEWAY_TABLE)
            .withIif(uplink)
            .withProtocol(EgressIds.PROTOCOL);
    if (netlink.rules().list(Family.INET).stream().noneMatch(r -> ClientTunnels.same(r, rule))) {
      netlink.rules().add(rule);
    }
    sysctl("net/ipv4/ip_forward", "1");
    // the decapsulated packets come in on the device from addresses routed via the uplink
    sysctl("net/ipv4/conf/all/rp_filter", "0");
    sysctl("net/ipv4/conf/" + EgressIds.GATEWAY_DEVICE + "/rp_filter", "0");
    LOG.info(
        "egress gateway up device=" + EgressIds.GATEWAY_DEVICE + " vni=" + vni + " port=" + port);
  }

  /** Makes the per-client entries exactly those of {@code clients} (IPv4 pod addresses). */
  public void clients(Set<InetAddress> clients) {
    var have = new HashSet<InetAddress>();
    for (var r :
        netlink
            .routes()
            .list(RouteFilter.ALL.table(EgressIds.GATEWAY_TABLE).protocol(EgressIds.PROTOCOL))) {
      have.add(r.destination().address());
    }
    for (var c : clients) {
      var mac = EgressIds.clientMac(c);
      netlink.neighbors().replaceFdb(index, mac, c);
      netlink.neighbors().replace(Neighbor.permanent(index, c, mac));
      netlink
          .routes()
          .replace(
              Route.of(new IpPrefix(c, 32))
                  .table(EgressIds.GATEWAY_TABLE)
                  .protocol(EgressIds.PROTOCOL)
                  .scope(Scope.LINK)
                  .nextHop(new NextHop(null, index, 1, Set.of()))
                  .build());
      if (!have.contains(c)) {
        LOG.info("egress client added client=" + c.getHostAddress());
      }
    }
    for (var c : have) {
      if (clients.contains(c)) {
        continue;
      }
      remove(c);
      LOG.info("egress client removed client=" + c.getHostAddress());
    }
  }

  private void remove(InetAddress c) {
    var mac = EgressIds.clientMac(c);
    ClientTunnels.deleteQuietly(
        () ->
            netlink
                .routes()
                .delete(
                    Route.of(new IpPrefix(c, 32))
                        .table(EgressIds.GATEWAY_TABLE)
                        .protocol(EgressIds.PROTOCOL)
                        .scope(Scope.LINK)
                        .nextHop(new NextHop(null, index, 1, Set.of()))
                        .build()));
    ClientTunnels.deleteQuietly(
        () -> netlink.neighbors().delete(Neighbor.permanent(index, c, mac)));
    ClientTunnels.deleteQuietly(() -> netlink.neighbors().deleteFdb(index, mac, c));
  }

  /** Removes the device (and with it its routes, neighbours and FDB) and the rule. */
  public void tearDown() {
    ClientTunnels.deleteQuietly(() -> netlink.links().delete(EgressIds.GATEWAY_DEVICE));
    for (var r : netlink.rules().list(Family.INET)) {
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
