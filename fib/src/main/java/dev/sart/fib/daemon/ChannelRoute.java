package dev.sart.fib.daemon;

import dev.sart.fib.netlink.NextHop;
import dev.sart.net.IpPrefix;
import java.util.List;
import java.util.Objects;

/**
 * What one source of a channel offers for a destination: next hops (several make an ECMP route),
 * its administrative distance, and where it came from.
 *
 * @param destination the prefix
 * @param nextHops one or more, each with weight 1 unless the source said otherwise
 * @param distance administrative distance, see {@link Distance}
 * @param protocol the rtm_protocol it would be shown with (the source's kind: 186 for BGP, the
 *     kernel route's own protocol for a kernel table)
 * @param source the subscriber it came from ("bgp 127.0.0.1:5000", "kernel 254")
 */
public record ChannelRoute(
    IpPrefix destination, List<NextHop> nextHops, int distance, int protocol, String source) {
  public ChannelRoute {
    Objects.requireNonNull(destination, "destination");
    nextHops = List.copyOf(nextHops);
    if (nextHops.isEmpty()) {
      throw new IllegalArgumentException(destination + ": a route needs a next hop");
    }
    if (distance < 0 || distance > 255) {
      throw new IllegalArgumentException(
          destination + ": distance " + distance + " outside 0..255");
    }
  }
}
