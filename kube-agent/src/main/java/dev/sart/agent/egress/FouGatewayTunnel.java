package dev.sart.agent.egress;

import dev.sart.fib.netlink.Family;
import dev.sart.fib.netlink.GenericNetlink;
import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.NextHop;
import dev.sart.fib.netlink.Route;
import dev.sart.fib.netlink.RouteFilter;
import dev.sart.fib.netlink.Rule;
import dev.sart.fib.netlink.Scope;
import dev.sart.net.IpPrefix;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Logger;

/**
 * The gateway end of coil's FoU tunnels, inside an egress pod (coil's "Rules in an egress Pod"):
 * FoU receivers on the port for IPIP (4) and, where the uplink has an IPv6 address, IP6IP6 (41);
 * per client pod an ipip link {@code fou4_<hex>} from the pod's own address to the client's (and an
 * ip6tnl link per IPv6 client address), and the client's address routed through it in table 118,
 * looked up by {@code iif <uplink>} only: replies from outside go into the tunnel, the encapsulated
 * packets (made locally) use the main table.
 *
 * <p>{@link #setUp} undoes what it made when a step fails: on a kernel without {@code fou} it fails
 * at the first step (resolving the family) with {@link Fou#NO_FOU} and leaves nothing.
 */
public final class FouGatewayTunnel implements GatewayEnd {
  private static final Logger LOG = Logger.getLogger(FouGatewayTunnel.class.getName());

  private final Netlink netlink;
  private final GenericNetlink genl;
  private final String uplink;
  private final int port;
  private final boolean sourcePortAuto;
  private int family = -1;
  private boolean ipv6;

  /**
   * @param sourcePortAuto the outer source port from the flow's hash (coil's {@code
   *     fouSourcePortAuto}), else {@code port}
   */
  public FouGatewayTunnel(
      Netlink netlink, GenericNetlink genl, String uplink, int port, boolean sourcePortAuto) {
    this.netlink = netlink;
    this.genl = genl;
    this.uplink = uplink;
    this.port = port;
    this.sourcePortAuto = sourcePortAuto;
  }

  @Override
  public void setUp() {
    var up = netlink.links().get(uplink);
    ipv6 = local(up.index(), true) != null;
    family = Fou.family(genl);
    var rules = new ArrayList<Rule>();
    boolean v4Port = false;
    try {
      Fou.addPort(genl, family, port, false);
      v4Port = true;
      if (ipv6) {
        Fou.addPort(genl, family, port, true);
      }
      for (var f : List.of(Family.INET, Family.INET6)) {
        var rule =
            Rule.lookup(f, EgressIds.PREF_GATEWAY, EgressIds.GATEWAY_TABLE)
                .withIif(uplink)
                .withProtocol(EgressIds.PROTOCOL);
        if (netlink.rules().list(f).stream().noneMatch(r -> ClientTunnels.same(r, rule))) {
          netlink.rules().add(rule);
          rules.add(rule);
        }
      }
      GatewayTunnel.sysctl("net/ipv4/ip_forward", "1");
      if (ipv6) {
        GatewayTunnel.sysctl("net/ipv6/conf/all/forwarding", "1");
      }
      GatewayTunnel.sysctl("net/ipv4/conf/all/rp_filter", "0");
    } catch (RuntimeException e) {
      for (var r : rules) {
        ClientTunnels.deleteQuietly(() -> netlink.rules().delete(r));
      }
      if (v4Port) {
        Fou.deletePort(genl, family, port, false);
        Fou.deletePort(genl, family, port, true);
      }
      throw e;
    }
    LOG.info("egress gateway up mode=fou port=" + port + " ipv6=" + ipv6);
  }

  private InetAddress local(int index, boolean v6) {
    for (var a : netlink.addresses().list(v6 ? Family.INET6 : Family.INET, index)) {
      if (a.scope() == Scope.UNIVERSE) {
        return a.address();
      }
    }
    return null;
  }

  @Override
  public void clients(Map<InetAddress, List<InetAddress>> clients) {
    var up = netlink.links().get(uplink);
    var local4 = local(up.index(), false);
    var local6 = local(up.index(), true);
    var wanted = new HashMap<String, InetAddress>();
    for (var c : clients.entrySet()) {
      wanted.put(EgressIds.fouDevice(c.getKey()), c.getKey());
      for (var a : c.getValue()) {
        if (a instanceof Inet6Address && local6 != null) {
          wanted.put(EgressIds.fouDevice(a), a);
        }
      }
    }
    int sport = sourcePortAuto ? 0 : port;
    for (var w : wanted.entrySet()) {
      var client = w.getValue();
      var local = client instanceof Inet4Address ? local4 : local6;
      if (local == null) {
        continue;
      }
      boolean made = netlink.links().find(w.getKey()).isEmpty();
      Fou.link(netlink, w.getKey(), local, client, sport, port, up.mtu());
      int index = netlink.links().get(w.getKey()).index();
      netlink.routes().replace(route(client, index));
      if (made) {
        LOG.info("egress client added mode=fou client=" + client.getHostAddress());
      }
    }
    for (var r :
        netlink
            .routes()
            .list(RouteFilter.ALL.table(EgressIds.GATEWAY_TABLE).protocol(EgressIds.PROTOCOL))) {
      if (!wanted.containsValue(r.destination().address())) {
        ClientTunnels.deleteQuietly(() -> netlink.routes().delete(r));
      }
    }
    for (var link : netlink.links().list()) {
      if (Fou.isOurs(link) && !wanted.containsKey(link.name())) {
        ClientTunnels.deleteQuietly(() -> netlink.links().delete(link.name()));
        LOG.info("egress client removed mode=fou device=" + link.name());
      }
    }
  }

  private static Route route(InetAddress client, int index) {
    return Route.of(new IpPrefix(client, client instanceof Inet6Address ? 128 : 32))
        .table(EgressIds.GATEWAY_TABLE)
        .protocol(EgressIds.PROTOCOL)
        .scope(Scope.LINK)
        .nextHop(new NextHop(null, index, 1, Set.of()))
        .build();
  }

  @Override
  public void tearDown() {
    for (var link : netlink.links().list()) {
      if (Fou.isOurs(link)) {
        ClientTunnels.deleteQuietly(() -> netlink.links().delete(link.name()));
      }
    }
    for (var r : netlink.rules().list(null)) {
      if (r.protocol() == EgressIds.PROTOCOL) {
        ClientTunnels.deleteQuietly(() -> netlink.rules().delete(r));
      }
    }
    if (family >= 0) {
      Fou.deletePort(genl, family, port, false);
      Fou.deletePort(genl, family, port, true);
    }
  }
}
