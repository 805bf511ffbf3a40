package dev.sart.fib.daemon;

import dev.sart.fib.netlink.Family;
import dev.sart.fib.netlink.NextHop;
import dev.sart.fib.netlink.Rtnl;
import dev.sart.net.IpPrefix;
import dev.sart.proto.v1.AddressFamily;
import dev.sart.proto.v1.BgpApiGrpc;
import dev.sart.proto.v1.GetBgpInfoRequest;
import dev.sart.proto.v1.Path;
import dev.sart.proto.v1.PathEvent;
import dev.sart.proto.v1.WatchPathRequest;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * A speaker as a source: follows {@code BgpApi.WatchPath} per family (the whole table, an
 * end-of-initial marker, then every change) and turns each prefix's selected paths into one route —
 * several selected paths make an ECMP route. Paths the speaker originates itself are not routes to
 * install. When the stream breaks (the speaker restarted) it reconnects with back-off and the new
 * snapshot replaces what it had offered, so prefixes the speaker no longer has go away; until then
 * the routes stay.
 */
final class BgpWatchSubscriber implements Subscriber {
  private static final Logger LOG = Logger.getLogger(BgpWatchSubscriber.class.getName());

  /** Path events asked for ahead of the one being read ({@link StreamWindow}). */
  static final int WINDOW = 512;

  static final Duration MIN_BACKOFF = Duration.ofMillis(200);
  static final Duration MAX_BACKOFF = Duration.ofSeconds(10);

  private final int index;
  private final String endpoint;
  private final Set<Family> families;
  private final ManagedChannel channel;
  private final List<Context.CancellableContext> calls = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean running = true;

  BgpWatchSubscriber(int index, String endpoint, Set<Family> families, ManagedChannel channel) {
    this.index = index;
    this.endpoint = endpoint;
    this.families = Set.copyOf(families);
    this.channel = channel;
  }

  @Override
  public Set<Family> syncs() {
    return families;
  }

  @Override
  public void start(Consumer<SourceEvent> sink) {
    for (Family f : families) {
      threads.add(
          Thread.ofVirtual()
              .name("fib-watch-" + endpoint + "-" + FibConfig.name(f))
              .start(() -> loop(f, sink)));
    }
  }

  private void loop(Family family, Consumer<SourceEvent> sink) {
    Duration backoff = MIN_BACKOFF;
    while (running) {
      Context.CancellableContext call = Context.current().withCancellation();
      synchronized (calls) {
        calls.add(call);
      }
      try {
        boolean synced = call.call(() -> watch(family, sink));
        if (synced) {
          backoff = MIN_BACKOFF;
        }
      } catch (StatusRuntimeException e) {
        if (running) {
          LOG.info(
              () ->
                  "event=speaker-unreachable endpoint="
                      + endpoint
                      + " family="
                      + FibConfig.name(family)
                      + " status="
                      + e.getStatus().getCode());
        }
      } catch (Exception e) {
        if (running) {
          LOG.log(java.util.logging.Level.WARNING, "event=watch-failed endpoint=" + endpoint, e);
        }
      } finally {
        call.cancel(null);
        synchronized (calls) {
          calls.remove(call);
        }
      }
      if (!running) {
        return;
      }
      try {
        // full jitter: speakers restarted together do not see every FIB reconnect at once
        Thread.sleep(
            ThreadLocalRandom.current().nextLong(backoff.toMillis() / 2, backoff.toMillis() + 1));
      } catch (InterruptedException e) {
        return;
      }
      backoff =
          backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0
              ? MAX_BACKOFF
              : backoff.multipliedBy(2);
    }
  }

  /** One watch until the stream ends; returns whether the snapshot was complete. */
  private boolean watch(Family family, Consumer<SourceEvent> sink) {
    BgpApiGrpc.BgpApiBlockingStub stub = BgpApiGrpc.newBlockingStub(channel);
    long localAs =
        Integer.toUnsignedLong(
            stub.withDeadlineAfter(10, TimeUnit.SECONDS)
                .getBgpInfo(GetBgpInfoRequest.getDefaultInstance())
                .getInfo()
                .getAsn());
    AddressFamily af =
        AddressFamily.newBuilder()
            .setAfi(family == Family.INET ? AddressFamily.Afi.AFI_IP4 : AddressFamily.Afi.AFI_IP6)
            .setSafi(AddressFamily.Safi.SAFI_UNICAST)
            .build();
    StreamWindow<PathEvent> events = new StreamWindow<>(WINDOW);
    BgpApiGrpc.newStub(channel)
        .watchPath(WatchPathRequest.newBuilder().setFamily(af).build(), events);
    Map<IpPrefix, ChannelRoute> initial = new HashMap<>();
    boolean synced = false;
    while (events.hasNext()) {
      PathEvent e = events.next();
      if (!synced) {
        if (e.getEndOfInitial()) {
          synced = true;
          sink.accept(new SourceEvent.Sync(index, family, initial.values()));
          int n = initial.size();
          LOG.info(
              () ->
                  "event=speaker-synced endpoint="
                      + endpoint
                      + " family="
                      + FibConfig.name(family)
                      + " routes="
                      + n);
          initial = null;
        } else {
          ChannelRoute r = route(e, localAs, source());
          if (r != null) {
            initial.put(r.destination(), r);
          } else {
            initial.remove(IpPrefix.parse(e.getPrefix()));
          }
        }
        continue;
      }
      ChannelRoute r = route(e, localAs, source());
      sink.accept(
          r != null
              ? new SourceEvent.Update(index, r)
              : new SourceEvent.Withdraw(index, IpPrefix.parse(e.getPrefix())));
    }
    return synced;
  }

  private String source() {
    return "bgp " + endpoint;
  }

  /**
   * The route for a prefix's selected paths, or null when there is none to install: withdrawn,
   * originated by the speaker itself, or without a usable next hop. The distance is the best path's
   * (iBGP when its peer is in our AS).
   */
  static ChannelRoute route(PathEvent e, long localAs, String source) {
    if (e.getSelectedCount() == 0) {
      return null;
    }
    Path best = e.getSelected(0);
    if (best.getPeerAddr().isEmpty()) {
      return null; // our own route: announced, not installed
    }
    IpPrefix prefix = IpPrefix.parse(e.getPrefix());
    Set<NextHop> gateways = new LinkedHashSet<>();
    for (Path p : e.getSelectedList()) {
      if (p.getPeerAddr().isEmpty() || p.getNextHopsCount() == 0) {
        continue;
      }
      NextHop hop = nextHop(p.getNextHops(0));
      InetAddress gw = hop.gateway();
      // a link-local next hop needs the interface the speaker names as its zone ("fe80::1%5");
      // an IPv4 prefix may have an IPv6 next hop (RFC 8950, installed with RTA_VIA), not the
      // other way round
      if (gw.isAnyLocalAddress()
          || (gw.isLinkLocalAddress() && hop.index() == 0)
          || (Family.of(prefix) == Family.INET6 && gw.getAddress().length == 4)) {
        continue;
      }
      gateways.add(hop);
    }
    if (gateways.isEmpty()) {
      return null;
    }
    List<NextHop> hops = List.copyOf(gateways);
    return new ChannelRoute(
        prefix,
        hops,
        Distance.ofBgp(Integer.toUnsignedLong(best.getPeerAsn()), localAs),
        Rtnl.RTPROT_BGP,
        source);
  }

  /**
   * A next hop as the speaker writes it: an address, or a link-local one with its interface index
   * as the zone ({@code fe80::1%5}).
   */
  static NextHop nextHop(String text) {
    int zone = text.indexOf('%');
    if (zone < 0) {
      return NextHop.via(InetAddress.ofLiteral(text));
    }
    InetAddress gw = InetAddress.ofLiteral(text.substring(0, zone));
    int index;
    try {
      index = Integer.parseInt(text.substring(zone + 1));
    } catch (NumberFormatException e) {
      index = 0; // an interface name: not something the speaker sends
    }
    return index > 0 ? new NextHop(gw, index, 1, Set.of()) : NextHop.via(gw);
  }

  @Override
  public void close() {
    running = false;
    synchronized (calls) {
      calls.forEach(c -> c.cancel(null));
    }
    threads.forEach(Thread::interrupt);
  }
}
