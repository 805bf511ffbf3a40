package dev.sart.bgp.rib;

import dev.sart.bgp.policy.MaxPrefix;
import dev.sart.bgp.policy.PeerPolicy;
import dev.sart.bgp.wire.Family;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One shard of the {@link Rib}: the Adj-RIBs-In and Loc-RIB of the prefixes that hash to it, and
 * the feeding of every peer's Adj-RIB-Out with their changes, owned by one thread. Every change
 * arrives as a task on its queue, so nothing here needs a lock; a prefix lives in exactly one
 * shard, so its changes stay in order. The per-peer state that must be whole (max-prefix counts,
 * prefix counters, End-of-RIB) is shared through {@link AdjRibIn.Limit} and per-shard slots.
 */
final class RibShard {
  private static final Logger LOG = Logger.getLogger(Rib.class.getName());

  final int index;
  private final Rib rib;
  private final BlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();
  private final Thread worker;
  private volatile boolean closed;
  // owned by the worker (or read by a cross-shard task while every shard waits, see
  // Rib.acrossShards)
  final DestinationTable table = new DestinationTable();

  /**
   * Per Established peer, in the order they came up: the peer, its state and the Adj-RIB-Out
   * changes of the running task, handed over when the task ends or the outbox is full: one lock and
   * one wake-up per peer and UPDATE instead of per prefix (with a hand-over per prefix, the pending
   * maps and the wake-up were a third of the RIB thread's samples).
   */
  final List<Outbox> outboxes = new ArrayList<>();

  /** The peers sent several paths per prefix (RFC 7911 ADD-PATH), with what each was handed. */
  final List<AddPathExport> addPathExports = new ArrayList<>();

  final Map<RibPeer, AdjRibIn> adjRibsIn = new HashMap<>();

  /**
   * Per peer, the paths it sent that are not in the table (an AS_PATH loop, or the import policy
   * rejected them) with the attributes as received: counted as received, not accepted. A loop is
   * how a peer shows that it took our route ({@link RibView#sentBack}).
   */
  final Map<RibPeer, Map<Rejected, Attrs>> rejected = new HashMap<>();

  long localAs;

  /**
   * Withdrawals are looked up {@value} at a time ahead of their processing ({@link
   * DestinationTable#touch}): the Loc-RIB lookup of a withdrawn prefix was half of the RIB thread's
   * samples in bgperf d's withdrawals, waiting on cache misses one after another.
   */
  private static final int TOUCH_AHEAD = 64;

  /** What {@link DestinationTable#touch} returned, summed (written so that its loads are kept). */
  private int touched;

  BestPath.Options options = BestPath.Options.DEFAULT;

  /** Route refresh and policy changes of a peer that stays up (RFC 2918, RFC 7313). */
  final ShardRefresh refresh = new ShardRefresh(this);

  /** The stale paths of restarting peers (RFC 4724 §4.2). */
  final ShardRestart restart = new ShardRestart(this);

  RibShard(Rib rib, int index, int count) {
    this.rib = rib;
    this.index = index;
    worker =
        Thread.ofPlatform()
            .name(count == 1 ? "bgp-rib" : "bgp-rib-" + index)
            .daemon()
            .start(this::run);
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
      } finally {
        for (Outbox o : outboxes) {
          o.flush();
        }
        for (AddPathExport x : addPathExports) {
          x.flush();
        }
      }
    }
  }

  void submit(Runnable r) {
    if (!closed) {
      tasks.add(r);
    }
  }

  int backlog() {
    return tasks.size();
  }

  void close() {
    closed = true;
    worker.interrupt();
  }

  // --- tasks, run on the shard's thread
  // -----------------------------------------------------------

  void setLocalAs(long asn) {
    localAs = asn;
    adjRibsIn.values().forEach(AdjRibIn::forgetExports);
    outboxes.forEach(o -> o.st.forgetExports()); // the update groups' own states
  }

  /**
   * {@code member} now gets its changes through the update group {@code proxy} (see {@link
   * Rib#regroup}): its own outbox goes (it is empty: outboxes are handed over at the end of every
   * task), and the group's is made if this is its first member. Nothing is computed: a group holds
   * what the Loc-RIB exports to it, as a peer does.
   */
  void joinGroup(RibPeer member, RibPeer proxy, PeerPolicy policy) {
    outboxes.removeIf(o -> o.peer == member);
    if (outboxes.stream().noneMatch(o -> o.peer == proxy)) {
      outboxes.add(new Outbox(proxy, new AdjRibIn(policy, new AdjRibIn.Limit(null), index)));
    }
  }

  /**
   * {@code member} leaves the group {@code proxy} and gets its own outbox again; the last one takes
   * the group's away.
   */
  void leaveGroup(RibPeer member, RibPeer proxy, boolean last) {
    AdjRibIn st = adjRibsIn.get(member);
    if (st != null && outboxes.stream().noneMatch(o -> o.peer == member)) {
      outboxes.add(new Outbox(member, st));
    }
    if (last) {
      outboxes.removeIf(o -> o.peer == proxy);
    }
  }

  void setOptions(BestPath.Options o) {
    options = o;
    for (Destination d : table.values()) {
      decide(d, null);
    }
  }

  /**
   * Queues this shard's part of the table for a peer that came up (all handed over when it
   * returns).
   */
  void peerUp(RibPeer peer, PeerPolicy policy, AdjRibIn.Limit limit) {
    AdjRibIn st = new AdjRibIn(policy, limit, index);
    // RFC 4724 §4.2: the session of a peer that restarted; its paths replace the stale ones
    st.predecessor = restart.restarting.get(peer.address());
    Outbox box = new Outbox(peer, st);
    outboxes.add(box);
    adjRibsIn.put(peer, st);
    AddPathExport x = box.addPath == null ? null : new AddPathExport(peer, st, box.addPath);
    if (x != null) {
      if (addPathExports.stream().noneMatch(e -> e.inDestinations)) {
        x.inDestinations = true; // the destinations created from now on hold its state
        table.addPathSlots = true;
      }
      addPathExports.add(x);
    }
    for (Destination d : table.values()) {
      Path best = d.best();
      if (best != null) {
        Prefix p = d.prefix();
        if (box.addPathCovers(p)) {
          x.update(d, p, localAs, options, false);
          continue;
        }
        Attrs a = st.export(p, best, peer, localAs);
        if (a != null) {
          box.add(p, null, a);
        }
      }
    }
    box.flush(); // before the caller may queue End-of-RIB
    if (x != null) {
      x.flush();
    }
  }

  /**
   * Hands a change to the peer's Adj-RIB-Out (through its outbox): {@code was} is what it was
   * handed before.
   */
  static void change(Outbox box, Prefix p, Attrs was, Attrs a) {
    if (a == null ? was != null : !a.equals(was)) {
      box.add(p, was, a);
    }
  }

  /**
   * Drops {@code peer}'s ADD-PATH export; when its state was in the destinations, it is cleared
   * there, and destinations created from now on have no room for one.
   */
  void dropAddPathExport(RibPeer peer) {
    AddPathExport x = addPathExport(peer);
    if (x == null) {
      return;
    }
    addPathExports.remove(x);
    if (x.inDestinations) {
      table.addPathSlots = false;
      for (Destination d : table.values()) {
        if (d.holdsAddPath()) {
          d.addPathState(null);
        }
      }
    }
  }

  /** The ADD-PATH state of {@code peer} in this shard, or null when it has none. */
  AddPathExport addPathExport(RibPeer peer) {
    for (AddPathExport x : addPathExports) {
      if (x.peer == peer) {
        return x;
      }
    }
    return null;
  }

  /**
   * RFC 4271 §9.1.3 export rules, then the peer's export policy (cached per peer, see {@link
   * AdjRibIn#export}).
   */
  Attrs exportTo(Prefix p, Path best, RibPeer peer) {
    AdjRibIn st = adjRibsIn.get(peer);
    return st == null ? Export.toPeer(p, best, peer, localAs) : st.export(p, best, peer, localAs);
  }

  /**
   * RFC 4486 §4: more prefixes accepted than the configured upper bound (counted over all shards).
   * Told once per family and session (the handler closes the session with Cease/1), or logged once
   * in warning-only mode.
   */
  void checkMaxPrefix(RibPeer peer, AdjRibIn st) {
    MaxPrefix m = st.policy.maxPrefix();
    if (m == null) {
      return;
    }
    for (Family f : List.of(Family.IPV4_UNICAST, Family.IPV6_UNICAST)) {
      long n = st.limit.accepted(f);
      if (n > m.limit() && st.limit.trip(f)) {
        if (m.warningOnly()) {
          LOG.warning(
              () ->
                  "peer="
                      + peer
                      + " event=max-prefix-exceeded family="
                      + f
                      + " accepted="
                      + n
                      + " limit="
                      + m.limit()
                      + " action=warning-only");
        } else {
          LOG.info(
              () ->
                  "peer="
                      + peer
                      + " event=max-prefix-exceeded family="
                      + f
                      + " accepted="
                      + n
                      + " limit="
                      + m.limit()
                      + " action=cease");
          if (st.limit.handler != null) {
            st.limit.handler.exceeded(peer, f, n, m);
          }
        }
      }
    }
  }

  /**
   * A session left Established: its paths in this shard go (RFC 4271 §8.2.2 "deletes all routes").
   */
  void peerDown(RibPeer peer) {
    outboxes.removeIf(o -> o.peer == peer);
    dropAddPathExport(peer);
    AdjRibIn down = adjRibsIn.remove(peer);
    if (down != null && down.predecessor != null) {
      restart.flushStale(
          down.predecessor, null); // the session that was to send them again is gone too
    }
    List<Destination> changed = new ArrayList<>();
    for (Destination d : table.values()) {
      int removed = d.removeAll(peer);
      if (removed > 0) {
        peer.counters().accepted(index, d.family(), -removed);
        peer.counters().received(index, d.family(), -removed);
        changed.add(d);
      }
    }
    Map<Rejected, Attrs> r = rejected.remove(peer);
    if (r != null) {
      r.keySet().forEach(x -> peer.counters().received(index, x.prefix().family(), -1));
    }
    changed.forEach(d -> decideAndForget(d, null));
  }

  /**
   * What one UPDATE said about this shard's prefixes: {@code withdrawn} are gone, {@code announced}
   * reachable with {@code attrs} (which may be null when nothing is announced). Paths whose AS_PATH
   * holds our own AS are loops and count as withdrawn (RFC 4271 §9.1.2).
   */
  void apply(
      RibPeer from,
      List<Prefix> withdrawn,
      int[] withdrawnPathIds,
      List<Prefix> announced,
      int[] announcedPathIds,
      Attrs attrs) {
    AdjRibIn st = from == RibPeer.LOCAL ? null : adjRibsIn.get(from);
    if (st != null && st.predecessor != null) {
      restart.applyAfterRestart(
          st.predecessor,
          from,
          st,
          withdrawn,
          withdrawnPathIds,
          announced,
          announcedPathIds,
          attrs);
    } else {
      applyTo(from, st, withdrawn, withdrawnPathIds, announced, announcedPathIds, attrs);
    }
  }

  void applyTo(
      RibPeer from,
      AdjRibIn st,
      List<Prefix> withdrawn,
      int[] withdrawnPathIds,
      List<Prefix> announced,
      int[] announcedPathIds,
      Attrs attrs) {
    int touchedTo = 0;
    for (int i = 0; i < withdrawn.size(); i++) {
      if (i == touchedTo) {
        touchedTo = Math.min(i + TOUCH_AHEAD, withdrawn.size());
        touched += table.touch(withdrawn, i, touchedTo);
      }
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
    // RFC 4271 §9.1.2 (our AS in the path), RFC 4456 §8 (our ORIGINATOR_ID or CLUSTER_ID)
    boolean loop = attrs.asPath().contains(localAs) || from.reflection().loops(attrs);
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
        reject(from, p, pathId, attrs);
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
          reject(from, p, pathId, attrs);
          continue;
        }
      }
      unreject(from, p, pathId);
      Destination d = table.getOrCreate(p);
      if (d.put(new Path(from, pathId, accepted, now))) {
        added(from, st, p);
      }
      decide(d, p);
    }
    if (st != null) {
      checkMaxPrefix(from, st);
    }
  }

  // The counts a peer's paths keep: received = accepted (in the table) + rejected; the AdjRibIn's
  // count (for max-prefix) follows accepted.

  /** A new path of {@code from} went into the table. */
  void added(RibPeer from, AdjRibIn st, Prefix p) {
    if (st != null) {
      st.count(p, 1);
    }
    from.counters().accepted(index, p.family(), 1);
    from.counters().received(index, p.family(), 1);
  }

  /** A path of {@code from} went out of the table (without a decision yet). */
  void removed(RibPeer from, Prefix p) {
    from.counters().accepted(index, p.family(), -1);
    from.counters().received(index, p.family(), -1);
  }

  /** Takes the path of {@code from} out of the table, if it is there. */
  void remove(RibPeer from, AdjRibIn st, Prefix p, int pathId) {
    Destination d = table.get(p);
    if (d != null && d.remove(from, pathId)) {
      if (st != null) {
        st.count(p, -1);
      }
      from.counters().accepted(index, p.family(), -1);
      from.counters().received(index, p.family(), -1);
      decideAndForget(d, p);
    }
  }

  /** Records a path of {@code from} that was received (with {@code attrs}) but not accepted. */
  void reject(RibPeer from, Prefix p, int pathId, Attrs attrs) {
    if (rejected.computeIfAbsent(from, k -> new HashMap<>()).put(new Rejected(p, pathId), attrs)
        == null) {
      from.counters().received(index, p.family(), 1);
    }
  }

  /** Forgets a rejected path of {@code from}, if there was one. */
  void unreject(RibPeer from, Prefix p, int pathId) {
    Map<Rejected, Attrs> r = rejected.isEmpty() ? null : rejected.get(from);
    if (r != null && r.remove(new Rejected(p, pathId)) != null) {
      from.counters().received(index, p.family(), -1);
    }
  }

  /** The attributes of the paths {@code from} sent for {@code p} that are not in the table. */
  List<Attrs> rejectedFrom(RibPeer from, Prefix p) {
    List<Attrs> out = new ArrayList<>();
    rejected
        .getOrDefault(from, Map.of())
        .forEach(
            (k, a) -> {
              if (k.prefix().equals(p)) {
                out.add(a);
              }
            });
    return out;
  }

  record Rejected(Prefix prefix, int pathId) {}

  void decideAndForget(Destination d, Prefix known) {
    Prefix p = decide(d, known);
    if (d.isEmpty()) {
      table.remove(p != null ? p : d.prefix());
    }
  }

  /**
   * Runs the decision process for one prefix and passes a changed selection on (RFC 4271 §9.1.2-3).
   * {@code known} is the destination's prefix when the caller has it (null: made when needed);
   * returns the prefix when it was needed, else {@code known}.
   */
  Prefix decide(Destination d, Prefix known) {
    Path before = d.best();
    Path single = d.single();
    Path[] two = single == null ? d.several() : null;
    boolean changed;
    if (single != null) {
      changed = d.selectBest(single, BestPathReason.ONLY_PATH);
    } else if (two != null && two.length == 2 && !options.multipath()) {
      int w = BestPath.selectTwo(two[0], two[1], options);
      changed = d.selectBest(two[w & 1], Destination.reason(w >>> 1));
    } else {
      changed = d.select(BestPath.select(d.paths(), options));
    }
    if (!addPathExports.isEmpty()) {
      // RFC 7911: a peer sent every path learns of a change of any of them, not only of the best
      known = known != null ? known : d.prefix();
      for (AddPathExport x : addPathExports) {
        x.update(d, known, localAs, options, false);
      }
    }
    if (!changed) {
      return known;
    }
    Prefix p = known != null ? known : d.prefix();
    Path best = d.best();
    if (best == null || before != best || !best.attrs().equals(before.attrs())) {
      // what each peer was handed before is what the previous best exports to it: nothing per
      // peer and prefix is stored (see AdjRibOut)
      for (int i = 0; i < outboxes.size(); i++) {
        Outbox o = outboxes.get(i);
        if (o.addPath != null && o.addPathCovers(p)) {
          continue; // AddPathExport above
        }
        Attrs was = before == null ? null : o.st.export(p, before, o.peer, localAs);
        Attrs a = best == null ? null : o.st.export(p, best, o.peer, localAs);
        change(o, p, was, a);
      }
    }
    List<RibListener> listeners = rib.listeners;
    if (!listeners.isEmpty()) {
      BestPath.Selection now = d.selection();
      for (RibListener l : listeners) {
        l.selectionChanged(p, now);
      }
    }
    return p;
  }
}
