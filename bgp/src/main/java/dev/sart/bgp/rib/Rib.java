package dev.sart.bgp.rib;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Adj-RIBs-In, Loc-RIB and the feeding of the Adj-RIBs-Out, owned by one thread: every change
 * arrives as a task on its queue, so nothing here needs a lock. Queries from the API run on the
 * same thread through {@link #query}.
 */
public final class Rib implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(Rib.class.getName());

  private final BlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();
  private final Thread worker;
  private final List<RibListener> listeners = new CopyOnWriteArrayList<>();
  // owned by the worker
  private final Map<Prefix, Destination> table = new HashMap<>();
  private final List<RibPeer> peers = new ArrayList<>();
  /** Per peer, the paths it sent that were rejected (AS_PATH loop): counted as received, not accepted. */
  private final Map<RibPeer, java.util.Set<Rejected>> rejected = new HashMap<>();
  private long localAs;
  private BestPath.Options options = BestPath.Options.DEFAULT;
  private long sequence;
  private volatile boolean closed;

  public Rib() {
    worker = Thread.ofPlatform().name("bgp-rib").daemon().start(this::run);
  }

  private void run() {
    while (!closed) {
      Runnable task;
      try {
        task = tasks.take();
      } catch (InterruptedException e) {
        return;
      }
      try {
        task.run();
      } catch (RuntimeException e) {
        LOG.log(Level.SEVERE, "RIB task failed", e);
      }
    }
  }

  public void addListener(RibListener l) {
    listeners.add(l);
  }

  public void removeListener(RibListener l) {
    listeners.remove(l);
  }

  /**
   * Subscribes on the RIB thread: {@code initial} gets the current selection of every prefix
   * first, then {@code l} every change, with nothing lost or doubled in between.
   */
  public void subscribe(RibListener initial, Runnable endOfInitial, RibListener l) {
    submit(() -> {
      for (Destination d : table.values()) {
        if (!d.selection.selected().isEmpty()) {
          initial.selectionChanged(d.prefix, d.selection);
        }
      }
      endOfInitial.run();
      listeners.add(l);
    });
  }

  /** Tasks waiting for the RIB thread: peers stop reading when this grows (back-pressure). */
  public int backlog() {
    return tasks.size();
  }

  private void submit(Runnable r) {
    if (!closed) {
      tasks.add(r);
    }
  }

  /** Runs {@code f} on the RIB thread and completes with its result. */
  public <T> CompletableFuture<T> query(Function<View, T> f) {
    CompletableFuture<T> result = new CompletableFuture<>();
    submit(() -> {
      try {
        result.complete(f.apply(new View()));
      } catch (RuntimeException e) {
        result.completeExceptionally(e);
      }
    });
    return result;
  }

  public void setLocalAs(long asn) {
    submit(() -> localAs = asn);
  }

  /** Changes multipath options and re-runs the decision process for every prefix. */
  public void setOptions(BestPath.Options o) {
    submit(() -> {
      options = o;
      for (Destination d : table.values()) {
        decide(d);
      }
    });
  }

  /** A session reached Established: send it the table, then End-of-RIB. */
  public void peerUp(RibPeer peer) {
    submit(() -> {
      peers.add(peer);
      for (Destination d : table.values()) {
        Path best = d.selection.best();
        if (best != null) {
          Attrs a = Export.toPeer(d.prefix, best, peer, localAs);
          if (a != null) {
            peer.out().advertise(d.prefix, a);
          }
        }
      }
      peer.out().initialTableQueued();
    });
  }

  /** Sends the peer the whole table again (it asked with ROUTE-REFRESH, RFC 2918 §4). */
  public void resend(RibPeer peer) {
    peer.out().forgetAdvertised();
    submit(() -> {
      if (!peers.contains(peer)) {
        return;
      }
      for (Destination d : table.values()) {
        Path best = d.selection.best();
        Attrs a = best == null ? null : Export.toPeer(d.prefix, best, peer, localAs);
        if (a != null) {
          peer.out().advertise(d.prefix, a);
        }
      }
    });
  }

  /** A session left Established: its paths go (RFC 4271 §8.2.2 "deletes all routes"). */
  public void peerDown(RibPeer peer) {
    submit(() -> {
      peers.remove(peer);
      List<Destination> changed = new ArrayList<>();
      for (Destination d : table.values()) {
        int removed = d.removeAll(peer);
        if (removed > 0) {
          peer.counters().accepted(d.prefix.family(), -removed);
          peer.counters().received(d.prefix.family(), -removed);
          changed.add(d);
        }
      }
      java.util.Set<Rejected> r = rejected.remove(peer);
      if (r != null) {
        r.forEach(x -> peer.counters().received(x.prefix().family(), -1));
      }
      changed.forEach(this::decideAndForget);
    });
  }

  /**
   * What one UPDATE said: {@code withdrawn} are gone, {@code announced} reachable with
   * {@code attrs} (which may be null when nothing is announced). Paths whose AS_PATH holds our
   * own AS are loops and count as withdrawn (RFC 4271 §9.1.2).
   */
  public void update(RibPeer from, List<Prefix> withdrawn, int[] withdrawnPathIds, List<Prefix> announced,
      int[] announcedPathIds, Attrs attrs) {
    submit(() -> {
      for (int i = 0; i < withdrawn.size(); i++) {
        Prefix p = withdrawn.get(i);
        int pathId = withdrawnPathIds == null ? 0 : withdrawnPathIds[i];
        Destination d = table.get(p);
        if (d != null && d.remove(from, pathId)) {
          from.counters().accepted(p.family(), -1);
          from.counters().received(p.family(), -1);
          decideAndForget(d);
        } else if (unreject(from, p, pathId)) {
          from.counters().received(p.family(), -1);
        }
      }
      if (announced.isEmpty()) {
        return;
      }
      boolean loop = attrs.asPath().contains(localAs);
      long now = System.currentTimeMillis();
      for (int i = 0; i < announced.size(); i++) {
        Prefix p = announced.get(i);
        int pathId = announcedPathIds == null ? 0 : announcedPathIds[i];
        if (loop) {
          Destination d = table.get(p);
          boolean wasAccepted = d != null && d.remove(from, pathId);
          boolean newlyRejected = rejected.computeIfAbsent(from, k -> new java.util.HashSet<>())
              .add(new Rejected(p, pathId));
          if (wasAccepted) {
            from.counters().accepted(p.family(), -1);
            decideAndForget(d);
          } else if (newlyRejected) {
            from.counters().received(p.family(), 1);
          }
          continue;
        }
        boolean wasRejected = unreject(from, p, pathId);
        Destination d = table.computeIfAbsent(p, Destination::new);
        if (d.put(new Path(from, pathId, attrs, ++sequence, now))) {
          from.counters().accepted(p.family(), 1);
          if (!wasRejected) {
            from.counters().received(p.family(), 1);
          }
        }
        decide(d);
      }
    });
  }

  /** Our own routes (the API's AddPath): announced to every peer the export rules allow. */
  public void originate(List<Prefix> prefixes, Attrs attrs) {
    update(RibPeer.LOCAL, List.of(), null, prefixes, null, attrs);
  }

  public void withdrawLocal(List<Prefix> prefixes) {
    update(RibPeer.LOCAL, prefixes, null, List.of(), null, null);
  }

  /** Drops every locally originated path (ClearBgpInfo). */
  public void clearLocal() {
    peerDown(RibPeer.LOCAL);
  }

  /** Forgets a rejected path of {@code from}; whether there was one. */
  private boolean unreject(RibPeer from, Prefix p, int pathId) {
    java.util.Set<Rejected> r = rejected.isEmpty() ? null : rejected.get(from);
    return r != null && r.remove(new Rejected(p, pathId));
  }

  private record Rejected(Prefix prefix, int pathId) {}

  private void decideAndForget(Destination d) {
    decide(d);
    if (d.paths.isEmpty()) {
      table.remove(d.prefix);
    }
  }

  /** Runs the decision process for one prefix and passes a changed selection on (RFC 4271 §9.1.2-3). */
  private void decide(Destination d) {
    BestPath.Selection before = d.selection;
    BestPath.Selection now = BestPath.select(d.paths, options);
    d.selection = now;
    if (Objects.equals(before.selected(), now.selected())) {
      return;
    }
    Path best = now.best();
    if (best == null || before.best() != best || !best.attrs().equals(before.best().attrs())) {
      for (RibPeer peer : peers) {
        Attrs a = best == null ? null : Export.toPeer(d.prefix, best, peer, localAs);
        if (a == null) {
          peer.out().withdraw(d.prefix);
        } else {
          peer.out().advertise(d.prefix, a);
        }
      }
    }
    for (RibListener l : listeners) {
      l.selectionChanged(d.prefix, now);
    }
  }

  @Override
  public void close() {
    closed = true;
    worker.interrupt();
  }

  /** Read access for queries; valid only inside {@link #query}. */
  public final class View {
    /** Every destination of a family: its paths, the selection first. */
    public List<RouteView> routes(dev.sart.bgp.wire.Family family) {
      List<RouteView> out = new ArrayList<>();
      for (Destination d : table.values()) {
        if (d.prefix.family().equals(family)) {
          out.add(view(d));
        }
      }
      out.sort((a, b) -> a.prefix().compareTo(b.prefix()));
      return out;
    }

    public RouteView route(Prefix p) {
      Destination d = table.get(p);
      return d == null ? null : view(d);
    }

    /** The Adj-RIB-In of one peer (post-policy): its paths for a family. */
    public List<RouteView> receivedFrom(RibPeer peer, dev.sart.bgp.wire.Family family) {
      List<RouteView> out = new ArrayList<>();
      for (Destination d : table.values()) {
        if (!d.prefix.family().equals(family)) {
          continue;
        }
        List<Path> ps = d.paths.stream().filter(p -> p.source() == peer).toList();
        if (!ps.isEmpty()) {
          out.add(new RouteView(d.prefix, ps, d.selection.selected(), d.selection.reason()));
        }
      }
      out.sort((a, b) -> a.prefix().compareTo(b.prefix()));
      return out;
    }

    public int size() {
      return table.size();
    }

    public long localAs() {
      return localAs;
    }

    private RouteView view(Destination d) {
      return new RouteView(d.prefix, List.copyOf(d.paths), d.selection.selected(), d.selection.reason());
    }
  }

  /** A prefix with its paths, which of them are selected, and why the best won. */
  public record RouteView(Prefix prefix, List<Path> paths, List<Path> selected, BestPathReason reason) {
    public boolean isSelected(Path p) {
      return selected.contains(p);
    }

    public boolean isBest(Path p) {
      return !selected.isEmpty() && selected.getFirst() == p;
    }
  }
}
