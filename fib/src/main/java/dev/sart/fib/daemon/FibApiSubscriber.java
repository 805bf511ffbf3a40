package dev.sart.fib.daemon;

import dev.sart.fib.netlink.Family;
import dev.sart.fib.netlink.NextHop;
import dev.sart.fib.netlink.Rtnl;
import dev.sart.net.IpPrefix;
import io.grpc.Status;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * sart's way for a speaker to feed a channel: it pushes its best paths to the {@code FibApi} served
 * at this subscriber's endpoint ({@code sartd bgp --fib HOST:PORT}). Multipath requests add or
 * remove next hops of the route this source offers (sart.md §5). Nothing can be re-read after a
 * restart, so the channel does not wait for this source.
 */
final class FibApiSubscriber implements Subscriber {
  private final int index;
  private final String endpoint;
  private final Set<Family> families;
  private final Map<IpPrefix, ChannelRoute> offered = new HashMap<>();
  private volatile Consumer<SourceEvent> sink = e -> {};

  FibApiSubscriber(int index, String endpoint, Set<Family> families) {
    this.index = index;
    this.endpoint = endpoint;
    this.families = Set.copyOf(families);
  }

  String endpoint() {
    return endpoint;
  }

  @Override
  public Set<Family> syncs() {
    return Set.of();
  }

  @Override
  public void start(Consumer<SourceEvent> sink) {
    this.sink = sink;
  }

  private void check(IpPrefix p) {
    if (!families.contains(Family.of(p))) {
      throw Status.INVALID_ARGUMENT
          .withDescription(
              "this channel does not carry " + FibConfig.name(Family.of(p)) + " routes: " + p)
          .asRuntimeException();
    }
  }

  /** AddRoute: the route replaces what this source offered only when {@code replace}. */
  synchronized void add(IpPrefix p, List<NextHop> hops, int distance, boolean replace) {
    check(p);
    if (!replace && offered.containsKey(p)) {
      throw Status.ALREADY_EXISTS
          .withDescription(p + " is there already (set replace)")
          .asRuntimeException();
    }
    offer(new ChannelRoute(p, hops, distance, Rtnl.RTPROT_BGP, "bgp " + endpoint));
  }

  /** AddMultiPathRoute: the next hops join those this source offers for {@code p}. */
  synchronized void addMultipath(IpPrefix p, List<NextHop> hops, int distance) {
    check(p);
    Map<InetAddress, NextHop> all = new LinkedHashMap<>();
    ChannelRoute old = offered.get(p);
    if (old != null) {
      old.nextHops().forEach(h -> all.put(h.gateway(), h));
    }
    hops.forEach(h -> all.put(h.gateway(), h));
    offer(
        new ChannelRoute(
            p, new ArrayList<>(all.values()), distance, Rtnl.RTPROT_BGP, "bgp " + endpoint));
  }

  /** DeleteRoute. */
  synchronized void delete(IpPrefix p) {
    if (offered.remove(p) == null) {
      throw Status.NOT_FOUND.withDescription("no route to " + p).asRuntimeException();
    }
    sink.accept(new SourceEvent.Withdraw(index, p));
  }

  /** DeleteMultiPathRoute: these gateways leave the route; without any left the route goes. */
  synchronized void deleteMultipath(IpPrefix p, List<InetAddress> gateways) {
    ChannelRoute old = offered.get(p);
    if (old == null) {
      throw Status.NOT_FOUND.withDescription("no route to " + p).asRuntimeException();
    }
    List<NextHop> left =
        old.nextHops().stream().filter(h -> !gateways.contains(h.gateway())).toList();
    if (left.isEmpty()) {
      delete(p);
    } else {
      offer(new ChannelRoute(p, left, old.distance(), old.protocol(), old.source()));
    }
  }

  private void offer(ChannelRoute r) {
    offered.put(r.destination(), r);
    sink.accept(new SourceEvent.Update(index, r));
  }

  @Override
  public void close() {
    sink = e -> {};
  }
}
