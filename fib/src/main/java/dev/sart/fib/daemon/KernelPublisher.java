package dev.sart.fib.daemon;

import dev.sart.fib.netlink.Batch;
import dev.sart.fib.netlink.BatchResult;
import dev.sart.fib.netlink.Errno;
import dev.sart.fib.netlink.Family;
import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.NetlinkException;
import dev.sart.fib.netlink.Route;
import dev.sart.fib.netlink.RouteFilter;
import dev.sart.net.IpPrefix;
import io.micrometer.core.instrument.Counter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * Installs a channel's selected routes into kernel tables over netlink, with our own protocol
 * number and the distance as metric; an ECMP route is one multipath route (DESIGN §6). Only routes
 * of our protocol are ever touched: {@link #reconcile} dumps them and removes what is not wanted.
 */
final class KernelPublisher implements Publisher {
  private static final Logger LOG = Logger.getLogger(KernelPublisher.class.getName());

  private final String channel;
  private final Set<Family> families;
  private final List<Integer> tables;
  private final int protocol;
  private final Netlink netlink;

  /** Per table what we believe is installed (read by the metrics from other threads). */
  private final Map<Integer, Map<IpPrefix, Route>> installed = new HashMap<>();

  private final Map<Integer, Counter> errors = new HashMap<>();
  private final Map<Integer, Counter> reconciles = new HashMap<>();
  private boolean dirty;

  KernelPublisher(
      String channel,
      Set<Family> families,
      List<Integer> tables,
      int protocol,
      Netlink netlink,
      FibMetrics metrics) {
    this.channel = channel;
    this.families = Set.copyOf(families);
    this.tables = List.copyOf(tables);
    this.protocol = protocol;
    this.netlink = netlink;
    for (int t : tables) {
      Map<IpPrefix, Route> m = new ConcurrentHashMap<>();
      installed.put(t, m);
      metrics.installedGauge(channel, t, m::size);
      errors.put(t, metrics.netlinkErrors(channel, t));
      reconciles.put(t, metrics.reconciles(channel, t));
    }
  }

  /** The kernel route for a selected route in {@code table}. */
  static Route route(ChannelRoute r, int table, int protocol) {
    return Route.of(r.destination())
        .table(table)
        .protocol(protocol)
        .metric(r.distance())
        .nextHops(r.nextHops())
        .build();
  }

  @Override
  public void reconcile(Map<IpPrefix, ChannelRoute> selected) {
    reconcile(selected, true);
  }

  @Override
  public void reconcileKeeping(Map<IpPrefix, ChannelRoute> selected) {
    reconcile(selected, false);
  }

  /**
   * Dumps our protocol's routes of each table and makes them what {@code selected} says; without
   * {@code removeOthers} a route of a destination {@code selected} does not name stays.
   */
  private void reconcile(Map<IpPrefix, ChannelRoute> selected, boolean removeOthers) {
    dirty = false;
    for (int table : tables) {
      reconciles.get(table).increment();
      Map<IpPrefix, Route> desired = new HashMap<>();
      selected.forEach(
          (p, r) -> {
            if (families.contains(Family.of(p))) {
              desired.put(p, route(r, table, protocol));
            }
          });
      List<Route> kernel = new ArrayList<>();
      try {
        for (Family f : families) {
          kernel.addAll(
              netlink.routes().list(RouteFilter.ALL.family(f).table(table).protocol(protocol)));
        }
      } catch (NetlinkException e) {
        errors.get(table).increment();
        dirty = true;
        LOG.warning(
            () ->
                "event=reconcile-failed channel="
                    + channel
                    + " table="
                    + table
                    + " reason=\""
                    + e.getMessage()
                    + "\"");
        continue;
      }
      KernelDiff.Plan plan = KernelDiff.plan(desired, kernel);
      if (!removeOthers) {
        plan =
            new KernelDiff.Plan(
                plan.delete().stream().filter(r -> desired.containsKey(r.destination())).toList(),
                plan.install());
      }
      KernelDiff.Plan done = plan;
      Batch b = netlink.batch();
      plan.delete().forEach(b::deleteRoute);
      plan.install().forEach(b::replaceRoute);
      int failed = report(table, b.execute(), plan.delete().size(), all(plan));
      Map<IpPrefix, Route> now = installed.get(table);
      now.clear();
      now.putAll(desired);
      if (failed > 0) {
        dirty = true; // what failed is looked at again by the next reconcile
      }
      LOG.info(
          () ->
              "event=reconciled channel="
                  + channel
                  + " table="
                  + Integer.toUnsignedString(table)
                  + " kept="
                  + (desired.size() - done.install().size())
                  + " installed="
                  + done.install().size()
                  + " removed="
                  + done.delete().size()
                  + " failed="
                  + failed
                  + (removeOthers ? "" : " kept-unselected=true"));
    }
  }

  private static List<Route> all(KernelDiff.Plan p) {
    List<Route> l = new ArrayList<>(p.delete());
    l.addAll(p.install());
    return l;
  }

  @Override
  public void apply(List<ChannelRib.Change> changes) {
    for (int table : tables) {
      Map<IpPrefix, Route> now = installed.get(table);
      Batch b = netlink.batch();
      List<Route> requests = new ArrayList<>();
      List<Boolean> deletes = new ArrayList<>();
      for (ChannelRib.Change c : changes) {
        if (!families.contains(Family.of(c.destination()))) {
          continue;
        }
        Route old = now.get(c.destination());
        Route want = c.selected() == null ? null : route(c.selected(), table, protocol);
        if (old != null && (want == null || old.metric() != want.metric())) {
          // a replace only matches the same metric: another metric would leave the old route in
          // place
          b.deleteRoute(old);
          requests.add(old);
          deletes.add(true);
          now.remove(c.destination());
        }
        if (want != null) {
          b.replaceRoute(want);
          requests.add(want);
          deletes.add(false);
          now.put(c.destination(), want);
        }
      }
      if (b.size() == 0) {
        continue;
      }
      BatchResult r = b.execute();
      int failed = 0;
      for (Map.Entry<Integer, NetlinkException> f : r.failures().entrySet()) {
        boolean delete = deletes.get(f.getKey());
        if (delete && f.getValue().errno() == Errno.ESRCH) {
          continue; // already gone: what we wanted
        }
        failed++;
        if (!delete) {
          now.remove(requests.get(f.getKey()).destination());
        }
      }
      if (failed > 0) {
        errors.get(table).increment(failed);
        dirty = true;
        NetlinkException first = r.failures().values().iterator().next();
        int n = failed;
        LOG.warning(
            () ->
                "event=install-failed channel="
                    + channel
                    + " table="
                    + Integer.toUnsignedString(table)
                    + " failed="
                    + n
                    + " of="
                    + r.size()
                    + " first=\""
                    + first.getMessage()
                    + "\"");
      }
    }
  }

  /** Counts the failures of a reconcile batch (a delete that finds nothing is not one). */
  private int report(int table, BatchResult r, int deletes, List<Route> requests) {
    int failed = 0;
    NetlinkException first = null;
    for (Map.Entry<Integer, NetlinkException> f : r.failures().entrySet()) {
      if (f.getKey() < deletes && f.getValue().errno() == Errno.ESRCH) {
        continue;
      }
      failed++;
      first = first == null ? f.getValue() : first;
    }
    if (failed > 0) {
      errors.get(table).increment(failed);
      NetlinkException e = first;
      int n = failed;
      LOG.warning(
          () ->
              "event=install-failed channel="
                  + channel
                  + " table="
                  + Integer.toUnsignedString(table)
                  + " failed="
                  + n
                  + " of="
                  + requests.size()
                  + " first=\""
                  + e.getMessage()
                  + "\"");
    }
    return failed;
  }

  /** What this publisher believes is installed in {@code table}. */
  Map<IpPrefix, Route> installed(int table) {
    return Map.copyOf(installed.get(table));
  }

  @Override
  public boolean needsReconcile() {
    return dirty;
  }

  @Override
  public void close() {
    netlink.close();
  }
}
