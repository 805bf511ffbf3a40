package dev.sart.fib.daemon;

import dev.sart.fib.netlink.EventGroup;
import dev.sart.fib.netlink.EventStream;
import dev.sart.fib.netlink.Family;
import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.NetlinkEvent;
import dev.sart.fib.netlink.Netns;
import dev.sart.fib.netlink.Route;
import dev.sart.fib.netlink.RouteFilter;
import dev.sart.fib.netlink.RouteType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * Kernel tables as a source: a dump of the tables, then the route events of the kernel (re-dumped
 * when events were lost). Routes of our own protocol are left out, so that a channel never feeds
 * itself; only unicast routes with next hops are offered, with a distance by their protocol ({@link
 * Distance#ofKernelProtocol}). The socket joins the route groups before the dump, so no change
 * falls between the two.
 */
final class KernelSubscriber implements Subscriber {
  private static final Logger LOG = Logger.getLogger(KernelSubscriber.class.getName());

  private final int index;
  private final List<Integer> tables;
  private final Set<Family> families;
  private final int ownProtocol;
  private final Netns netns;
  private final String source;
  private volatile boolean running = true;
  private Thread thread;

  KernelSubscriber(
      int index, List<Integer> tables, Set<Family> families, int ownProtocol, Netns netns) {
    this.index = index;
    this.tables = List.copyOf(tables);
    this.families = Set.copyOf(families);
    this.ownProtocol = ownProtocol;
    this.netns = netns;
    this.source =
        "kernel " + String.join(",", tables.stream().map(Integer::toUnsignedString).toList());
  }

  @Override
  public Set<Family> syncs() {
    return families;
  }

  @Override
  public void start(Consumer<SourceEvent> sink) {
    // netlink sockets block: a platform thread
    thread =
        Thread.ofPlatform().daemon().name("fib-kernel-source-" + source).start(() -> run(sink));
  }

  private void run(Consumer<SourceEvent> sink) {
    Set<EventGroup> groups = EnumSet.noneOf(EventGroup.class);
    if (families.contains(Family.INET)) {
      groups.add(EventGroup.IPV4_ROUTE);
    }
    if (families.contains(Family.INET6)) {
      groups.add(EventGroup.IPV6_ROUTE);
    }
    try (EventStream events =
            netns == null ? EventStream.open(groups) : EventStream.open(netns, groups);
        Netlink nl = netns == null ? Netlink.open() : Netlink.open(netns)) {
      sync(nl, sink);
      while (running) {
        NetlinkEvent e = events.poll(Duration.ofMillis(200));
        switch (e) {
          case null -> {}
          case NetlinkEvent.Overrun o -> {
            LOG.info(
                () ->
                    "event=kernel-events-lost source=\""
                        + source
                        + "\" msg=\"reading the tables again\"");
            sync(nl, sink);
          }
          case NetlinkEvent.RouteEvent r when wanted(r.route()) -> {
            ChannelRoute cr = r.change() == NetlinkEvent.Change.NEW ? route(r.route()) : null;
            sink.accept(
                cr != null
                    ? new SourceEvent.Update(index, cr)
                    : new SourceEvent.Withdraw(index, r.route().destination()));
          }
          default -> {}
        }
      }
    } catch (RuntimeException e) {
      if (running) {
        LOG.log(
            java.util.logging.Level.WARNING,
            "event=kernel-source-failed source=\"" + source + "\"",
            e);
      }
    }
  }

  private void sync(Netlink nl, Consumer<SourceEvent> sink) {
    for (Family f : families) {
      List<ChannelRoute> routes = new ArrayList<>();
      for (int t : tables) {
        for (Route r : nl.routes().list(RouteFilter.ALL.family(f).table(t))) {
          ChannelRoute cr = wanted(r) ? route(r) : null;
          if (cr != null) {
            routes.add(cr);
          }
        }
      }
      sink.accept(new SourceEvent.Sync(index, f, routes));
    }
  }

  private boolean wanted(Route r) {
    return tables.contains(r.table())
        && families.contains(r.family())
        && r.protocol() != ownProtocol;
  }

  private ChannelRoute route(Route r) {
    if (r.type() != RouteType.UNICAST || r.nextHops().isEmpty()) {
      return null;
    }
    return new ChannelRoute(
        r.destination(),
        r.nextHops(),
        Distance.ofKernelProtocol(r.protocol()),
        r.protocol(),
        source);
  }

  @Override
  public void close() {
    running = false;
    if (thread != null) {
      try {
        thread.join(2000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
