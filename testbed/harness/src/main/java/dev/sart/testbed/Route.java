package dev.sart.testbed;

import dev.sart.net.IpPrefix;
import java.net.InetAddress;
import java.util.List;
import java.util.OptionalLong;

/**
 * A route as a router's own CLI shows it: learned from a BGP neighbour, with the attributes a test
 * checks. Communities are printed "ASN:VALUE" (RFC 1997), large ones "A:B:C" (RFC 8092).
 *
 * @param from the neighbour it was learned from, or null when the CLI does not say
 * @param best whether the router chose it as its best path for the prefix
 */
public record Route(
    IpPrefix prefix,
    List<InetAddress> nextHops,
    List<Long> asPath,
    List<String> communities,
    OptionalLong med,
    OptionalLong localPref,
    InetAddress from,
    boolean best) {

  public Route {
    nextHops = List.copyOf(nextHops);
    asPath = List.copyOf(asPath);
    communities = List.copyOf(communities);
  }

  /** The first next hop (routes in these tests have one unless ECMP is at play). */
  public InetAddress nextHop() {
    return nextHops.isEmpty() ? null : nextHops.getFirst();
  }
}
