package dev.sart.bgp.rib;

import dev.sart.bgp.policy.MaxPrefix;
import dev.sart.bgp.policy.PeerPolicy;
import dev.sart.bgp.wire.Family;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
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
  private final List<Outbox> outboxes = new ArrayList<>();

  /** The peers sent several paths per prefix (RFC 7911 ADD-PATH), with what each was handed. */
  private final List<AddPathExport> addPathExports = new ArrayList<>();

  final Map<RibPeer, AdjRibIn> adjRibsIn = new HashMap<>();

  /**
   * Per peer, the paths it sent that are not in the table (an AS_PATH loop, or the import policy
   * rejected them) with the attributes as received: counted as received, not accepted. A loop is
   * how a peer shows that it took our route ({@link Rib.View#sentBack}).
   */
  private final Map<RibPeer, Map<Rejected, Attrs>> rejected = new HashMap<>();

  long localAs;

  /**
   * Withdrawals are looked up {@value} at a time ahead of their processing ({@link
   * DestinationTable#touch}): the Loc-RIB lookup of a withdrawn prefix was half of the RIB thread's
   * samples in bgperf d's withdrawals, waiting on cache misses one after another.
   */
  private static final int TOUCH_AHEAD = 64;

  /** What {@link DestinationTable#touch} returned, summed (written so that its loads are kept). */
  private int touched;

  private BestPath.Options options = BestPath.Options.DEFAULT;

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

  /**
   * One peer's changes waiting to be handed to its Adj-RIB-Out (see {@link #outboxes}), with the
   * peer and its state at hand for the export loop (no map lookup per prefix and peer).
   */
  private static final class Outbox {
    private static final int MAX = 1024;
    final RibPeer peer;
    final AdjRibIn st;
    private final AdjRibOut out;

    /** The families this peer gets with ADD-PATH, from {@link AddPathExport}; null: none. */
    final AddPathSend addPath;

    private Prefix[] prefixes = new Prefix[16];
    private Attrs[] bases = new Attrs[16];
    private Attrs[] attrs = new Attrs[16];
    private int size;

    Outbox(RibPeer peer, AdjRibIn st) {
      this.peer = peer;
      this.st = st;
      this.out = peer.out();
      this.addPath = out.addPath();
    }

    /** Whether {@code p}'s paths go to this peer through {@link AddPathExport} instead. */
    boolean addPathCovers(Prefix p) {
      return addPath != null && addPath.covers(p.family());
    }

    /**
     * The peer is to have {@code a} for {@code p} (null: withdrawn); it was handed {@code base}
     * before.
     */
    void add(Prefix p, Attrs base, Attrs a) {
      if (size == prefixes.length) {
        if (size == MAX) {
          flush();
        } else {
          prefixes = Arrays.copyOf(prefixes, size * 2);
          bases = Arrays.copyOf(bases, size * 2);
          attrs = Arrays.copyOf(attrs, size * 2);
        }
      }
      prefixes[size] = p;
      bases[size] = base;
      attrs[size] = a;
      size++;
    }

    void flush() {
      if (size > 0) {
        out.recordAll(prefixes, bases, attrs, size);
        Arrays.fill(prefixes, 0, size, null);
        Arrays.fill(bases, 0, size, null);
        Arrays.fill(attrs, 0, size, null);
        size = 0;
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
    st.predecessor = restarting.get(peer.address());
    Outbox box = new Outbox(peer, st);
    outboxes.add(box);
    adjRibsIn.put(peer, st);
    AddPathExport x = box.addPath == null ? null : new AddPathExport(peer, st, box.addPath);
    if (x != null) {
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
   * Queues this shard's routes of {@code family} (null: all) again (RFC 2918 §4); false: the peer
   * is not up.
   */
  boolean resend(RibPeer peer, Family family) {
    AdjRibIn st = adjRibsIn.get(peer);
    if (st == null) {
      return false;
    }
    AddPathExport x = addPathExport(peer);
    for (Destination d : table.values()) {
      if (family != null && !d.family().equals(family)) {
        continue;
      }
      Path best = d.best();
      if (best == null) {
        continue;
      }
      Prefix p = d.prefix();
      if (x != null && x.send.covers(p.family())) {
        x.update(d, p, localAs, options, true);
        continue;
      }
      Attrs a = st.export(p, best, peer, localAs);
      if (a != null) {
        peer.out().readvertise(p, a, a);
      }
    }
    return true;
  }

  /** See {@link Rib#setPolicy}; when the limit changed, the max-prefix report was reset before. */
  void setPolicy(RibPeer peer, PeerPolicy policy) {
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
    if (kept
        && policy.softReconfigurationInbound()
        && !old.importPolicy().equals(policy.importPolicy())) {
      reimport(peer, st);
    }
    if (!old.exportPolicy().equals(policy.exportPolicy())
        || old.advertisePeerAs() != policy.advertisePeerAs()) {
      reexport(peer, new AdjRibIn(old, st.limit, index));
    }
    if (!Objects.equals(old.maxPrefix(), policy.maxPrefix())) {
      checkMaxPrefix(peer, st);
    }
  }

  /** RFC 7313 §4: the peer sent a BoRR: its routes of {@code family} in this shard are stale. */
  void beginningOfRefresh(RibPeer peer, Family family) {
    AdjRibIn st = adjRibsIn.get(peer);
    if (st == null) {
      return;
    }
    Set<AdjRibIn.Key> marked = new HashSet<>();
    if (st.received != null) {
      // as received: also the routes the import policy rejects
      st.received.keySet().stream()
          .filter(k -> k.prefix().family().equals(family))
          .forEach(marked::add);
    } else {
      for (Destination d : table.values()) {
        if (d.family().equals(family)) {
          for (Path p : d.paths()) {
            if (p.source() == peer) {
              marked.add(new AdjRibIn.Key(d.prefix(), p.pathId()));
            }
          }
        }
      }
      for (Rejected r : rejected.getOrDefault(peer, Map.of()).keySet()) {
        if (r.prefix().family().equals(family)) {
          marked.add(new AdjRibIn.Key(r.prefix(), r.pathId()));
        }
      }
    }
    if (st.stale == null) {
      st.stale = new HashMap<>();
    }
    st.stale.put(family, marked);
  }

  /**
   * RFC 7313 §4: the peer sent an EoRR: its routes of {@code family} still stale are removed;
   * returns how many.
   */
  int endOfRefresh(RibPeer peer, Family family) {
    AdjRibIn st = adjRibsIn.get(peer);
    Set<AdjRibIn.Key> left = st == null || st.stale == null ? null : st.stale.remove(family);
    if (left == null) {
      return 0;
    }
    for (AdjRibIn.Key k : left) {
      if (st.received != null) {
        st.received.remove(k);
      }
      remove(peer, st, k.prefix(), k.pathId());
      unreject(peer, k.prefix(), k.pathId());
    }
    return left.size();
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
        reject(peer, p, id, e.getValue());
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
      decide(d, p);
    }
  }

  /**
   * A changed export policy: what the peer should have now, as changes against what it has (what
   * {@code before}, the peer's state with the old policy, exports).
   */
  private void reexport(RibPeer peer, AdjRibIn before) {
    // a member of an update group leaves it before its policy changes (Peer.setPolicy)
    Outbox box =
        outboxes.stream()
            .filter(o -> o.peer == peer)
            .findFirst()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        peer + " is in an update group: it must leave it first"));
    AdjRibIn st = box.st;
    for (Destination d : table.values()) {
      Path best = d.best();
      if (best == null) {
        continue;
      }
      Prefix p = d.prefix();
      if (box.addPathCovers(p)) {
        addPathExport(peer).update(d, p, localAs, options, false); // with the new policy
        continue;
      }
      Attrs was = before.export(p, best, peer, localAs);
      Attrs a = st.export(p, best, peer, localAs);
      change(box, p, was, a);
    }
  }

  /**
   * Hands a change to the peer's Adj-RIB-Out (through its outbox): {@code was} is what it was
   * handed before.
   */
  private static void change(Outbox box, Prefix p, Attrs was, Attrs a) {
    if (a == null ? was != null : !a.equals(was)) {
      box.add(p, was, a);
    }
  }

  /** The ADD-PATH state of {@code peer} in this shard, or null when it has none. */
  private AddPathExport addPathExport(RibPeer peer) {
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
  private void checkMaxPrefix(RibPeer peer, AdjRibIn st) {
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
    addPathExports.removeIf(x -> x.peer == peer);
    AdjRibIn down = adjRibsIn.remove(peer);
    if (down != null && down.predecessor != null) {
      flushStale(down.predecessor, null); // the session that was to send them again is gone too
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
      applyAfterRestart(
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

  /**
   * RFC 4724 §4.2: an UPDATE of the session that follows a graceful restart of its peer, whose
   * previous session's paths are still here, stale. A stale path the UPDATE withdraws goes; one it
   * announces again is taken out before the new one goes in, and the destination is decided once,
   * so the route is never withdrawn in between (for the other peers or for the FIB). Kept apart
   * from {@link #applyTo}, whose loop is the route path of every other UPDATE.
   */
  private void applyAfterRestart(
      RibPeer stale,
      RibPeer from,
      AdjRibIn st,
      List<Prefix> withdrawn,
      int[] withdrawnPathIds,
      List<Prefix> announced,
      int[] announcedPathIds,
      Attrs attrs) {
    for (int i = 0; i < withdrawn.size(); i++) {
      remove(stale, null, withdrawn.get(i), withdrawnPathIds == null ? 0 : withdrawnPathIds[i]);
    }
    List<Destination> replaced = new ArrayList<>();
    for (int i = 0; i < announced.size(); i++) {
      Prefix p = announced.get(i);
      Destination d = table.get(p);
      if (d != null && d.remove(stale, announcedPathIds == null ? 0 : announcedPathIds[i])) {
        removed(stale, p); // decided below, with the path sent again in
        replaced.add(d);
      }
    }
    applyTo(from, st, withdrawn, withdrawnPathIds, announced, announcedPathIds, attrs);
    // an announcement that was not taken (an AS loop, the import policy) leaves the destination
    // without the stale path and undecided: decide it now (no change, no notice, for the others)
    for (Destination d : replaced) {
      decideAndForget(d, null);
    }
  }

  private void applyTo(
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
  private void added(RibPeer from, AdjRibIn st, Prefix p) {
    if (st != null) {
      st.count(p, 1);
    }
    from.counters().accepted(index, p.family(), 1);
    from.counters().received(index, p.family(), 1);
  }

  /** A path of {@code from} went out of the table (without a decision yet). */
  private void removed(RibPeer from, Prefix p) {
    from.counters().accepted(index, p.family(), -1);
    from.counters().received(index, p.family(), -1);
  }

  // --- RFC 4724 §4.2, the Receiving Speaker ("helper")

  /**
   * The sessions of restarting peers whose paths are kept, stale, by the peer's address: the RIB
   * peer of the session that went down. Owned by the worker; the API reads {@link Rib#isStale}.
   */
  final Map<java.net.InetAddress, RibPeer> restarting = new HashMap<>();

  /**
   * A session of a peer with graceful restart ended without a NOTIFICATION: its paths of {@code
   * keep} stay in the table, stale, best path unchanged; those of other families go as in {@link
   * #peerDown}. A session of the same peer that was stale already is flushed first.
   */
  void peerRestarting(RibPeer old, Set<Family> keep) {
    RibPeer before = restarting.get(old.address());
    if (before != null && before != old) {
      flushStale(before, null);
    }
    outboxes.removeIf(o -> o.peer == old);
    addPathExports.removeIf(x -> x.peer == old);
    adjRibsIn.remove(old);
    List<Destination> changed = new ArrayList<>();
    for (Destination d : table.values()) {
      if (!keep.contains(d.family())) {
        int removed = d.removeAll(old);
        if (removed > 0) {
          old.counters().accepted(index, d.family(), -removed);
          old.counters().received(index, d.family(), -removed);
          changed.add(d);
        }
      }
    }
    Map<Rejected, Attrs> r = rejected.remove(old);
    if (r != null) {
      r.keySet().forEach(x -> old.counters().received(index, x.prefix().family(), -1));
    }
    changed.forEach(d -> decideAndForget(d, null));
    if (!keep.isEmpty()) {
      restarting.put(old.address(), old);
    }
  }

  /**
   * The stale paths of {@code old} of {@code family} (null: all) go: after the End-of-RIB of the
   * new session, when the restart or stale time ran out, or when the new session does not keep the
   * family's forwarding state (RFC 4724 §4.2). Returns how many.
   */
  int flushStale(RibPeer old, Family family) {
    if (restarting.get(old.address()) != old) {
      return 0;
    }
    List<Destination> changed = new ArrayList<>();
    int n = 0;
    for (Destination d : table.values()) {
      if (family == null || d.family().equals(family)) {
        int removed = d.removeAll(old);
        if (removed > 0) {
          n += removed;
          old.counters().accepted(index, d.family(), -removed);
          old.counters().received(index, d.family(), -removed);
          changed.add(d);
        }
      }
    }
    changed.forEach(d -> decideAndForget(d, null));
    if (family == null) {
      restarting.remove(old.address());
      for (AdjRibIn st : adjRibsIn.values()) {
        if (st.predecessor == old) {
          st.predecessor = null;
        }
      }
    }
    return n;
  }

  /** Takes the path of {@code from} out of the table, if it is there. */
  private void remove(RibPeer from, AdjRibIn st, Prefix p, int pathId) {
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
  private void reject(RibPeer from, Prefix p, int pathId, Attrs attrs) {
    if (rejected.computeIfAbsent(from, k -> new HashMap<>()).put(new Rejected(p, pathId), attrs)
        == null) {
      from.counters().received(index, p.family(), 1);
    }
  }

  /** Forgets a rejected path of {@code from}, if there was one. */
  private void unreject(RibPeer from, Prefix p, int pathId) {
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

  private record Rejected(Prefix prefix, int pathId) {}

  private void decideAndForget(Destination d, Prefix known) {
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
  private Prefix decide(Destination d, Prefix known) {
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
