package dev.sart.testbed;

import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * What every driver can configure: the local AS and router id, the neighbours, and the prefixes the
 * router originates from the start (more can be announced at run time).
 */
public record RouterConfig(
    long asn, Inet4Address routerId, List<Neighbor> neighbors, List<IpPrefix> originate) {

  public RouterConfig {
    neighbors = List.copyOf(neighbors);
    originate = List.copyOf(originate);
    if (asn <= 0 || asn > 0xffff_ffffL) {
      throw new IllegalArgumentException("AS number out of range: " + asn);
    }
  }

  public static RouterConfig of(long asn, String routerId) {
    InetAddress id = Ip.parse(routerId);
    if (!(id instanceof Inet4Address v4)) {
      throw new IllegalArgumentException("a router id is an IPv4 address: " + routerId);
    }
    return new RouterConfig(asn, v4, List.of(), List.of());
  }

  public RouterConfig neighbor(Neighbor n) {
    List<Neighbor> ns = new ArrayList<>(neighbors);
    ns.add(n);
    return new RouterConfig(asn, routerId, ns, originate);
  }

  public RouterConfig originate(String... prefixes) {
    List<IpPrefix> ps = new ArrayList<>(originate);
    for (String p : prefixes) {
      ps.add(IpPrefix.parse(p));
    }
    return new RouterConfig(asn, routerId, neighbors, ps);
  }

  public String routerIdText() {
    return routerId.getHostAddress();
  }

  /** The neighbour with this address, or an exception naming what is configured. */
  public Neighbor neighbor(InetAddress address) {
    return neighbors.stream()
        .filter(n -> n.address().equals(address))
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "no neighbour "
                        + Ip.format(address)
                        + " configured; have "
                        + neighbors.stream().map(Neighbor::addressText).toList()));
  }
}
