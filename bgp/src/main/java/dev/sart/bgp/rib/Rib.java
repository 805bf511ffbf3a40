package dev.sart.bgp.rib;

import dev.sart.bgp.policy.MaxPrefix;
import dev.sart.bgp.policy.PeerPolicy;
import dev.sart.bgp.wire.Family;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
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
  private final DestinationTable table = new DestinationTable();
  private final List<RibPeer> peers = new ArrayList<>();
  private final Map<RibPeer, AdjRibIn> adjRibsIn = new HashMap<>();
  /**
   * Per peer, the paths it sent that are not in the table (an AS_PATH loop, or the import policy
   * rejected them): counted as received, not accepted.
   */
  private final Map<RibPeer, java.util.Set<Rejected>> rejected = new HashMap<>();
  private long localAs;
  private BestPath.Options options = BestPath.Options.DEFAULT;
  private volatile boolean closed;
  /** Prefixes in UPDATE tasks not yet run: what read back-pressure ({@link #overHighWater}) looks at. */
  private final IngestBacklog ingest = new IngestBacklog();

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
        if (d.hasSelection()) {
          initial.selectionChanged(d.prefix, d.selection());
        }
      }
      endOfInitial.run();
      listeners.add(l);
    });
  }

  /** Tasks waiting for the RIB thread. */
  public int backlog() {
    return tasks.size();
  }

  /** Prefixes (announced or withdrawn) in UPDATEs handed to the RIB thread and not processed yet. */
  public long queuedPrefixes() {
    return ingest.queued();
  }

  /**
   * Whether the RIB is behind by more than the high-water mark: peers then stop reading from their
   * sockets (TCP pushes back on the senders) until {@link #whenBelowLowWater} tells them to go on.
   */
  public boolean overHighWater() {
    return ingest.overHighWater();
  }

  /**
   * Runs {@code r} (on the RIB thread, or at once on the caller's) as soon as the prefixes queued
   * are at or below the low-water mark; {@code r} must be short (hand it to an event loop).
   */
  public void whenBelowLowWater(Runnable r) {
    ingest.whenBelowLowWater(r);
  }

  /** The marks of {@link #overHighWater} and {@link #whenBelowLowWater}, in prefixes (low &lt; high). */
  public void setBackPressure(long high, long low) {
    ingest.setMarks(high, low);
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
    submit(() -> {
      localAs = asn;
      adjRibsIn.values().forEach(AdjRibIn::forgetExports);
    });
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
    peerUp(peer, PeerPolicy.NONE, null);
  }

  /**
   * A session reached Established with its policies: {@code handler} is told when it sends more
   * prefixes than its limit allows (null: nobody is told).
   */
  public void peerUp(RibPeer peer, PeerPolicy policy, MaxPrefixHandler handler) {
    submit(() -> {
      peers.add(peer);
      adjRibsIn.put(peer, new AdjRibIn(policy, handler));
      for (Destination d : table.values()) {
        Path best = d.best();
        if (best != null) {
          Attrs a = exportTo(d.prefix, best, peer);
          if (a != null) {
            peer.out().advertise(d.prefix, null, a);
          }
        }
      }
      peer.out().initialTableQueued();
    });
  }

  /** Sends the peer the whole table again (it asked with ROUTE-REFRESH, RFC 2918 §4). */
  public void resend(RibPeer peer) {
    resend(peer, null, false);
  }

  /**
   * Sends the peer the routes of {@code family} (null: all) again, even those it has had already
   * (RFC 2918 §4); with {@code endOfRefresh}, an EoRR follows them (RFC 7313 §4: the BoRR was
   * sent before this was asked).
   */
  public void resend(RibPeer peer, Family family, boolean endOfRefresh) {
    submit(() -> {
      if (!peers.contains(peer)) {
        return;
      }
      for (Destination d : table.values()) {
        if (family != null && !d.prefix.family().equals(family)) {
          continue;
        }
        Path best = d.best();
        Attrs a = best == null ? null : exportTo(d.prefix, best, peer);
        if (a != null) {
          peer.out().readvertise(d.prefix, a, a);
        }
      }
      if (endOfRefresh && family != null) {
        peer.out().endOfRefreshQueued(family);
      }
    });
  }

  /**
   * Changes a peer's policies while it is up. A changed export policy is applied to the whole
   * table at once (what no longer passes is withdrawn). A changed import policy is applied to the
   * routes as received when they are kept (soft reconfiguration inbound); otherwise the caller asks
   * the peer to send them again (ROUTE-REFRESH, RFC 2918), and they pass the new policy as they come.
   */
  public void setPolicy(RibPeer peer, PeerPolicy policy) {
    submit(() -> {
      AdjRibIn st = adjRibsIn.get(peer);
      if (st == null) {
        return;
      }
      PeerPolicy old = st.policy;
      st.policy = policy;
      st.forgetMemos();
      boolean kept = st.received != null;
      if (!policy.softReconfigurationInbound()) {
        st.received = null;
      } else if (!kept) {
        st.received = new HashMap<>(); // filled as routes arrive (after a route refresh)
      }
      if (kept && policy.softReconfigurationInbound() && !old.importPolicy().equals(policy.importPolicy())) {
        reimport(peer, st);
      }
      if (!old.exportPolicy().equals(policy.exportPolicy())) {
        reexport(peer, new AdjRibIn(old, null));
      }
      if (!Objects.equals(old.maxPrefix(), policy.maxPrefix())) {
        st.trippedV4 = false;
        st.trippedV6 = false;
        checkMaxPrefix(peer, st);
      }
    });
  }

  /**
   * RFC 7313 §4: the peer sent a BoRR: its routes of {@code family} are stale until it sends them
   * again; those it has not sent again by its EoRR go ({@link #endOfRefresh}).
   */
  public void beginningOfRefresh(RibPeer peer, Family family) {
    submit(() -> {
      AdjRibIn st = adjRibsIn.get(peer);
      if (st == null) {
        return;
      }
      Set<AdjRibIn.Key> marked = new HashSet<>();
      if (st.received != null) {
        // as received: also the routes the import policy rejects
        st.received.keySet().stream().filter(k -> k.prefix().family().equals(family)).forEach(marked::add);
      } else {
        for (Destination d : table.values()) {
          if (d.prefix.family().equals(family)) {
            for (Path p : d.paths()) {
              if (p.source() == peer) {
                marked.add(new AdjRibIn.Key(d.prefix, p.pathId()));
              }
            }
          }
        }
        for (Rejected r : rejected.getOrDefault(peer, Set.of())) {
          if (r.prefix().family().equals(family)) {
            marked.add(new AdjRibIn.Key(r.prefix(), r.pathId()));
          }
        }
      }
      if (st.stale == null) {
        st.stale = new HashMap<>();
      }
      st.stale.put(family, marked);
    });
  }

  /** RFC 7313 §4: the peer sent an EoRR: its routes of {@code family} still stale are removed. */
  public void endOfRefresh(RibPeer peer, Family family) {
    submit(() -> {
      AdjRibIn st = adjRibsIn.get(peer);
      Set<AdjRibIn.Key> left = st == null || st.stale == null ? null : st.stale.remove(family);
      if (left == null) {
        return;
      }
      for (AdjRibIn.Key k : left) {
        if (st.received != null) {
          st.received.remove(k);
        }
        remove(peer, st, k.prefix(), k.pathId());
        unreject(peer, k.prefix(), k.pathId());
      }
      if (!left.isEmpty()) {
        LOG.fine(() -> "peer=" + peer + " event=stale-routes-removed family=" + family + " count=" + left.size());
      }
    });
  }

  /** Soft reconfiguration inbound: every route as received goes through the import policy again. */
  private void reimport(RibPeer peer, AdjRibIn st) {
    int now = Path.now();
    for (Map.Entry<AdjRibIn.Key, Attrs> e : st.received.entrySet()) {
      Prefix p = e.getKey().prefix();
      int id = e.getKey().pathId();
      Attrs a = st.importPath(p, e.getValue(), localAs);
      if (a == null) {
        remove(peer, st, p, id);
        reject(peer, p, id);
        continue;
      }
      unreject(peer, p, id);
      Destination d = table.getOrCreate(p);
      Path old = d.find(peer, id);
      if (old != null && old.attrs() == a) {
        continue; // interned: the same instance means the same attributes
      }
      if (d.put(new Path(peer, id, a, old == null ? now : old.receivedAt()))) {
        added(peer, st, p);
      }
      decide(d);
    }
  }

  /**
   * A changed export policy: what the peer should have now, as changes against what it has (what
   * {@code before}, the peer's state with the old policy, exports).
   */
  private void reexport(RibPeer peer, AdjRibIn before) {
    for (Destination d : table.values()) {
      Path best = d.best();
      if (best == null) {
        continue;
      }
      Attrs was = before.export(d.prefix, best, peer, localAs);
      Attrs a = exportTo(d.prefix, best, peer);
      change(peer, d.prefix, was, a);
    }
  }

  /** Hands a change to the peer's Adj-RIB-Out: {@code was} is what it was handed before. */
  private static void change(RibPeer peer, Prefix p, Attrs was, Attrs a) {
    if (a == null) {
      if (was != null) {
        peer.out().withdraw(p, was);
      }
    } else if (!a.equals(was)) {
      peer.out().advertise(p, was, a);
    }
  }

  /** RFC 4271 §9.1.3 export rules, then the peer's export policy (cached per peer, see {@link AdjRibIn#export}). */
  private Attrs exportTo(Prefix p, Path best, RibPeer peer) {
    AdjRibIn st = adjRibsIn.get(peer);
    return st == null ? Export.toPeer(p, best, peer, localAs) : st.export(p, best, peer, localAs);
  }

  /**
   * RFC 4486 §4: more prefixes accepted than the configured upper bound. Told once per family and
   * session (the handler closes the session with Cease/1), or logged once in warning-only mode.
   */
  private void checkMaxPrefix(RibPeer peer, AdjRibIn st) {
    MaxPrefix m = st.policy.maxPrefix();
    if (m == null) {
      return;
    }
    for (Family f : List.of(Family.IPV4_UNICAST, Family.IPV6_UNICAST)) {
      long n = st.accepted(f);
      if (n > m.limit() && !st.tripped(f)) {
        st.trip(f);
        if (m.warningOnly()) {
          LOG.warning(() -> "peer=" + peer + " event=max-prefix-exceeded family=" + f + " accepted=" + n
              + " limit=" + m.limit() + " action=warning-only");
        } else {
          LOG.info(() -> "peer=" + peer + " event=max-prefix-exceeded family=" + f + " accepted=" + n
              + " limit=" + m.limit() + " action=cease");
          if (st.handler != null) {
            st.handler.exceeded(peer, f, n, m);
          }
        }
      }
    }
  }

  /** A session left Established: its paths go (RFC 4271 §8.2.2 "deletes all routes"). */
  public void peerDown(RibPeer peer) {
    submit(() -> {
      peers.remove(peer);
      adjRibsIn.remove(peer);
      List<Destination> changed = new ArrayList<>();
      for (Destination d : table.values()) {
        int removed = d.removeAll(peer);
        if (removed > 0) {
          peer.counters().accepted(d.prefix.family(), -removed);
          peer.counters().received(d.prefix.family(), -removed);
          changed.add(d);
        }
      }
      Set<Rejected> r = rejected.remove(peer);
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
    long n = (long) withdrawn.size() + announced.size();
    if (closed) {
      return;
    }
    ingest.added(n);
    submit(() -> {
      try {
        apply(from, withdrawn, withdrawnPathIds, announced, announcedPathIds, attrs);
      } finally {
        ingest.processed(n);
      }
    });
  }

  private void apply(RibPeer from, List<Prefix> withdrawn, int[] withdrawnPathIds, List<Prefix> announced,
      int[] announcedPathIds, Attrs attrs) {
    AdjRibIn st = from == RibPeer.LOCAL ? null : adjRibsIn.get(from);
    for (int i = 0; i < withdrawn.size(); i++) {
      Prefix p = withdrawn.get(i);
      int pathId = withdrawnPathIds == null ? 0 : withdrawnPathIds[i];
      if (st != null) {
        st.refreshed(p, pathId);
        if (st.received != null) {
          st.received.remove(new AdjRibIn.Key(p, pathId));
        }
      }
      remove(from, st, p, pathId);
      unreject(from, p, pathId);
    }
    if (announced.isEmpty()) {
      return;
    }
    boolean loop = attrs.asPath().contains(localAs);
    int now = Path.now();
    for (int i = 0; i < announced.size(); i++) {
      Prefix p = announced.get(i);
      int pathId = announcedPathIds == null ? 0 : announcedPathIds[i];
      if (st != null) {
        st.refreshed(p, pathId);
      }
      if (loop) {
        if (st != null && st.received != null) {
          st.received.remove(new AdjRibIn.Key(p, pathId));
        }
        remove(from, st, p, pathId);
        reject(from, p, pathId);
        continue;
      }
      Attrs accepted = attrs;
      if (st != null) {
        if (st.received != null) {
          st.received.put(new AdjRibIn.Key(p, pathId), attrs);
        }
        // the import policy, before the decision process (RFC 4271 §9.1.1); a rejected route
        // replaces what the peer sent before for the prefix, so it counts as a withdrawal
        accepted = st.importPath(p, attrs, localAs);
        if (accepted == null) {
          remove(from, st, p, pathId);
          reject(from, p, pathId);
          continue;
        }
      }
      unreject(from, p, pathId);
      Destination d = table.getOrCreate(p);
      if (d.put(new Path(from, pathId, accepted, now))) {
        added(from, st, p);
      }
      decide(d);
    }
    if (st != null) {
      checkMaxPrefix(from, st);
    }
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

  // The counts a peer's paths keep: received = accepted (in the table) + rejected; the AdjRibIn's
  // count (for max-prefix) follows accepted.

  /** A new path of {@code from} went into the table. */
  private void added(RibPeer from, AdjRibIn st, Prefix p) {
    if (st != null) {
      st.count(p, 1);
    }
    from.counters().accepted(p.family(), 1);
    from.counters().received(p.family(), 1);
  }

  /** Takes the path of {@code from} out of the table, if it is there. */
  private void remove(RibPeer from, AdjRibIn st, Prefix p, int pathId) {
    Destination d = table.get(p);
    if (d != null && d.remove(from, pathId)) {
      if (st != null) {
        st.count(p, -1);
      }
      from.counters().accepted(p.family(), -1);
      from.counters().received(p.family(), -1);
      decideAndForget(d);
    }
  }

  /** Records a path of {@code from} that was received but not accepted. */
  private void reject(RibPeer from, Prefix p, int pathId) {
    if (rejected.computeIfAbsent(from, k -> new HashSet<>()).add(new Rejected(p, pathId))) {
      from.counters().received(p.family(), 1);
    }
  }

  /** Forgets a rejected path of {@code from}, if there was one. */
  private void unreject(RibPeer from, Prefix p, int pathId) {
    Set<Rejected> r = rejected.isEmpty() ? null : rejected.get(from);
    if (r != null && r.remove(new Rejected(p, pathId))) {
      from.counters().received(p.family(), -1);
    }
  }

  private record Rejected(Prefix prefix, int pathId) {}

  private void decideAndForget(Destination d) {
    decide(d);
    if (d.isEmpty()) {
      table.remove(d.prefix);
    }
  }

  /** Runs the decision process for one prefix and passes a changed selection on (RFC 4271 §9.1.2-3). */
  private void decide(Destination d) {
    Path before = d.best();
    Path single = d.single();
    boolean changed = single != null ? d.selectOnly(single) : d.select(BestPath.select(d.paths(), options));
    if (!changed) {
      return;
    }
    Path best = d.best();
    if (best == null || before != best || !best.attrs().equals(before.attrs())) {
      // what each peer was handed before is what the previous best exports to it: nothing per
      // peer and prefix is stored (see AdjRibOut)
      for (RibPeer peer : peers) {
        Attrs was = before == null ? null : exportTo(d.prefix, before, peer);
        Attrs a = best == null ? null : exportTo(d.prefix, best, peer);
        change(peer, d.prefix, was, a);
      }
    }
    if (!listeners.isEmpty()) {
      BestPath.Selection now = d.selection();
      for (RibListener l : listeners) {
        l.selectionChanged(d.prefix, now);
      }
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
        List<Path> ps = d.paths().stream().filter(p -> p.source() == peer).toList();
        if (!ps.isEmpty()) {
          out.add(new RouteView(d.prefix, ps, d.selectedPaths(), d.reason()));
        }
      }
      out.sort((a, b) -> a.prefix().compareTo(b.prefix()));
      return out;
    }

    public int size() {
      return table.size();
    }

    /**
     * What is advertised to a peer (its Adj-RIB-Out, RFC 4271 §3.2) for a family, sorted: what the
     * Loc-RIB's selection exports to it (changes still being sent included).
     */
    public List<Map.Entry<Prefix, Attrs>> advertisedTo(RibPeer peer, Family family) {
      List<Map.Entry<Prefix, Attrs>> out = new ArrayList<>();
      if (!peers.contains(peer)) {
        return out;
      }
      for (Destination d : table.values()) {
        Path best = d.best();
        if (best != null && d.prefix.family().equals(family)) {
          Attrs a = exportTo(d.prefix, best, peer);
          if (a != null) {
            out.add(Map.entry(d.prefix, a));
          }
        }
      }
      out.sort(Map.Entry.comparingByKey());
      return out;
    }

    /**
     * The Adj-RIB-In of one peer as received, before the import policy (RFC 4271 §3.2), sorted;
     * null when the peer does not keep it (no soft reconfiguration inbound).
     */
    public List<Map.Entry<Prefix, Attrs>> receivedPrePolicy(RibPeer peer, Family family) {
      AdjRibIn st = adjRibsIn.get(peer);
      if (st == null || st.received == null) {
        return null;
      }
      return st.received.entrySet().stream().filter(e -> e.getKey().prefix().family().equals(family))
          .map(e -> Map.entry(e.getKey().prefix(), e.getValue()))
          .sorted(Map.Entry.comparingByKey()).toList();
    }

    /** How many prefixes of a family the peer's import policy accepted (what max-prefix counts). */
    public long accepted(RibPeer peer, Family family) {
      AdjRibIn st = adjRibsIn.get(peer);
      return st == null ? 0 : st.accepted(family);
    }

    public long localAs() {
      return localAs;
    }

    private RouteView view(Destination d) {
      return new RouteView(d.prefix, List.copyOf(d.paths()), d.selectedPaths(), d.reason());
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
