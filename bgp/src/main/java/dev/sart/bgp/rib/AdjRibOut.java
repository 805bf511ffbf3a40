package dev.sart.bgp.rib;

import dev.sart.bgp.wire.Family;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One peer's Adj-RIB-Out (RFC 4271 §3.2): the RIB's shards record changes, which coalesce per
 * prefix while the peer cannot send (the latest wins); the peer's event loop drains them into
 * UPDATEs when its channel is writable.
 *
 * <p>What the peer holds is not stored here: it is what the Loc-RIB's selection exports to the
 * peer, which the RIB computes again when it needs it. The RIB hands every change over with what it
 * handed over before for the prefix (its <em>base</em>); a pending change keeps the base of the
 * first change since the last drain, so the drain still sends nothing twice (latest equal to the
 * base: nothing to send; a withdrawal of a prefix the peer never got: nothing either) and counts
 * the prefixes advertised. Only changes not sent yet take memory here: nothing is kept per prefix
 * and peer once it is sent.
 *
 * <p>The changes go into a {@link PrefixMap} (arrays, no node per entry) under a lock; a drain
 * takes the whole map at once (swapping in an empty one) and then walks it slot by slot over as
 * many drains as it takes. Each change is visited once: a new iterator per drain over a map whose
 * table never shrinks would walk again the bins emptied by the drains before it (quadratic in the
 * table size). A change that arrives for a prefix still in the taken map is sent after it, in a
 * later batch (a batch never holds the changes of two taken maps), so the latest still wins.
 */
public final class AdjRibOut {
  /** The latest of a pending change when it is a withdrawal. */
  private static final Object WITHDRAW = new Object();

  /**
   * The latest of a pending change that is sent even when it equals the base (a route refresh, RFC
   * 2918 §4).
   */
  private record Forced(Attrs attrs) {}

  private final Object lock = new Object();
  // guarded by lock: the changes recorded since the last take: per prefix its latest (Attrs,
  // Forced or WITHDRAW) and its base (what the peer has once the changes taken before are sent)
  private PrefixMap pending = new PrefixMap();

  /**
   * Families whose EoRR (RFC 7313 §4) is due once what was queued before has been sent (guarded by
   * lock).
   */
  private final Set<Family> endOfRefreshDue = new HashSet<>();

  /** Changes recorded and not yet taken by a drain: read without the lock. */
  private volatile boolean pendingNonEmpty;

  private final AtomicBoolean wakeupScheduled = new AtomicBoolean();
  private final Runnable wakeup;
  private final PrefixCounters counters;
  private volatile boolean initialTableQueued;
  // owned by the peer's event loop
  private PrefixMap walk; // taken from pending, walked by slot
  private int walkAt;
  private int advertisedCount;
  private volatile boolean endOfRibSent;

  /** A taken map is being walked (set under the lock by {@link #take}): read by {@link #isIdle}. */
  private volatile boolean walking;

  // RFC 7911, ADD-PATH send: the families whose paths are recorded one by one, by (prefix, our
  // Path Identifier), in pendingPaths (guarded by lock) instead of per prefix; set before the
  // session's table is queued
  private volatile AddPathSend addPath;
  private LinkedHashMap<PathKey, PathChange> pendingPaths = new LinkedHashMap<>();
  private volatile boolean pathsNonEmpty;
  private volatile boolean pathsWalking;
  private Iterator<Map.Entry<PathKey, PathChange>> pathWalk; // the peer's loop

  /** One path's change since the last drain: what the peer had before, and the latest. */
  private static final class PathChange {
    final Attrs base;
    Object latest;

    PathChange(Attrs base, Object latest) {
      this.base = base;
      this.latest = latest;
    }
  }

  /**
   * @param wakeup schedules {@link #drain} on the peer's event loop (called at most once per drain)
   */
  public AdjRibOut(Runnable wakeup) {
    this(wakeup, new PrefixCounters());
  }

  /**
   * @param counters where the number of advertised prefixes is kept
   */
  public AdjRibOut(Runnable wakeup, PrefixCounters counters) {
    this.wakeup = wakeup;
    this.counters = counters;
  }

  PrefixCounters counters() {
    return counters;
  }

  /**
   * Sends the paths of {@code a}'s families with ADD-PATH (RFC 7911): set once, when the session
   * comes up, before the RIB queues its table. Returns this.
   */
  public AdjRibOut withAddPath(AddPathSend a) {
    addPath = a;
    return this;
  }

  /** The ADD-PATH families and count this peer is sent, or null (any thread). */
  public AddPathSend addPath() {
    return addPath;
  }

  // --- RIB shards
  // ---------------------------------------------------------------------------------

  /**
   * The peer is to have {@code attrs} for {@code p}; {@code base} is what the RIB handed over for
   * it before (null: nothing, or a withdrawal).
   */
  void advertise(Prefix p, Attrs base, Attrs attrs) {
    record(p, base, attrs, false);
  }

  /** Like {@link #advertise}, but sent even when the peer has these attributes already. */
  void readvertise(Prefix p, Attrs base, Attrs attrs) {
    record(p, base, attrs, true);
  }

  /** The re-send of {@code family} has been queued: its EoRR follows when it has been sent. */
  void endOfRefreshQueued(Family family) {
    synchronized (lock) {
      endOfRefreshDue.add(family);
    }
    signal();
  }

  /**
   * The peer is no longer to have {@code p}; {@code base} is what the RIB handed over before (not
   * null).
   */
  void withdraw(Prefix p, Attrs base) {
    record(p, base, null, false);
  }

  /**
   * Records {@code n} changes at once, under one lock and with one wake-up: per index, the peer is
   * to have {@code attrs[k]} for {@code prefixes[k]} (null: withdrawn), and {@code bases[k]} is
   * what it was handed before (as {@link #advertise} and {@link #withdraw}).
   */
  void recordAll(Prefix[] prefixes, Attrs[] bases, Attrs[] attrs, int n) {
    synchronized (lock) {
      for (int k = 0; k < n; k++) {
        put(prefixes[k], bases[k], attrs[k], false);
      }
    }
    signal();
  }

  /**
   * RFC 7911: records {@code n} changes of single paths at once, as {@link #recordAll} does per
   * prefix: the peer is to have {@code attrs[k]} for the path {@code keys[k]} (null: withdrawn),
   * and was handed {@code bases[k]} for it before; {@code forced}: sent even when equal (a
   * refresh).
   */
  void recordPaths(PathKey[] keys, Attrs[] bases, Attrs[] attrs, int n, boolean forced) {
    synchronized (lock) {
      for (int k = 0; k < n; k++) {
        PathChange c = pendingPaths.get(keys[k]);
        Attrs a = attrs[k];
        if (c != null) {
          if (a == null && c.base == null) {
            pendingPaths.remove(keys[k]); // announced and withdrawn before the peer got it
          } else {
            c.latest =
                a == null ? WITHDRAW : forced || c.latest instanceof Forced ? new Forced(a) : a;
          }
        } else if (a != null || bases[k] != null) {
          pendingPaths.put(
              keys[k], new PathChange(bases[k], a == null ? WITHDRAW : forced ? new Forced(a) : a));
        }
      }
      pathsNonEmpty = !pendingPaths.isEmpty();
    }
    signal();
  }

  private void record(Prefix p, Attrs base, Attrs attrs, boolean forced) {
    synchronized (lock) {
      if (!put(p, base, attrs, forced)) {
        return;
      }
    }
    signal();
  }

  /** Records one change (the caller holds the lock); false when there was nothing to record. */
  private boolean put(Prefix p, Attrs base, Attrs attrs, boolean forced) {
    int i = pending.slot(p);
    if (i >= 0) {
      // the base of the first pending change stays; a pending forced re-send stays forced
      Object old = pending.valueAt(i);
      if (attrs == null) {
        if (pending.baseAt(i) == null) {
          pending.remove(p); // announced and withdrawn before the peer got it
        } else {
          pending.setValueAt(i, WITHDRAW);
        }
      } else {
        pending.setValueAt(i, forced || old instanceof Forced ? new Forced(attrs) : attrs);
      }
    } else if (attrs == null) {
      if (base == null) {
        return false; // nothing handed over before, nothing now
      }
      pending.put(p, base, WITHDRAW);
    } else {
      pending.put(p, base, forced ? new Forced(attrs) : attrs);
    }
    pendingNonEmpty = true;
    return true;
  }

  /**
   * The whole table has been queued once: End-of-RIB follows when it has been sent (RFC 4724 §2).
   */
  void initialTableQueued() {
    initialTableQueued = true;
    signal();
  }

  private void signal() {
    // a plain read first: while a wake-up is pending (nearly always during a table transfer) the
    // RIB's threads then only read the flag's cache line instead of taking it exclusive for a CAS
    // that the peer's event loop contends for
    if (!wakeupScheduled.get() && wakeupScheduled.compareAndSet(false, true)) {
      wakeup.run();
    }
  }

  // --- peer event loop
  // ----------------------------------------------------------------------------

  /**
   * What one drain produced: announcements grouped by attributes, withdrawals, End-of-RIB due, and
   * with ADD-PATH (RFC 7911) the paths announced and withdrawn by Path Identifier.
   */
  public record Batch(
      Map<Attrs, List<Prefix>> announce,
      List<Prefix> withdraw,
      boolean endOfRib,
      Map<Attrs, List<PathKey>> announcePaths,
      List<PathKey> withdrawPaths) {
    /** Without ADD-PATH. */
    public Batch(Map<Attrs, List<Prefix>> announce, List<Prefix> withdraw, boolean endOfRib) {
      this(announce, withdraw, endOfRib, Map.of(), List.of());
    }

    public boolean isEmpty() {
      return announce.isEmpty()
          && withdraw.isEmpty()
          && !endOfRib
          && announcePaths.isEmpty()
          && withdrawPaths.isEmpty();
    }
  }

  /**
   * Takes up to {@code max} pending changes (fewer when nothing is pending), skipping what equals
   * what was last advertised. When more remain, {@link #hasPending()} says so.
   */
  public Batch drain(int max, Set<Family> families) {
    wakeupScheduled.set(false);
    Map<Attrs, List<Prefix>> announce = new LinkedHashMap<>();
    List<Prefix> withdraw = new ArrayList<>();
    int taken = 0;
    while (taken < max) {
      if (!walkHasNext()) {
        // a batch holds the changes of one taken map: those recorded since may be of the same
        // prefixes, and its UPDATEs go withdrawals first (UpdatePacker), so an announcement from
        // this walk would be sent after its own withdrawal from the next one and stay at the peer
        if (!announce.isEmpty() || !withdraw.isEmpty()) {
          take(false);
          break;
        }
        if (!take(true)) {
          break;
        }
        continue;
      }
      Prefix p = walk.keyAt(walkAt);
      Object v = walk.valueAt(walkAt);
      walkAt++;
      taken++;
      if (!families.contains(p.family())) {
        continue;
      }
      Attrs base = walk.baseAt(walkAt - 1);
      // WITHDRAW is tested by identity before any type test: the JIT profiles the type test with
      // what the initial load passed it (Attrs only) and deoptimises on a new class
      boolean forced = false;
      Attrs latest;
      if (v == WITHDRAW) {
        latest = null;
      } else if (v instanceof Forced f) {
        forced = true;
        latest = f.attrs();
      } else {
        latest = (Attrs) v;
      }
      if (latest == null) {
        if (base != null) {
          withdraw.add(p);
          advertisedCount--;
          counters.advertised(p.family(), -1);
        }
        continue;
      }
      if (forced || !latest.equals(base)) {
        announce.computeIfAbsent(latest, k -> new ArrayList<>()).add(p);
      }
      if (base == null) {
        advertisedCount++;
        counters.advertised(p.family(), 1);
      }
    }
    Map<Attrs, List<PathKey>> announcePaths = Map.of();
    List<PathKey> withdrawPaths = List.of();
    while (taken < max) {
      if (pathWalk == null || !pathWalk.hasNext()) {
        // as above: one taken map per batch
        boolean holding = !announcePaths.isEmpty() || !withdrawPaths.isEmpty();
        if (!nextPath(!holding) || holding) {
          break;
        }
      }
      if (announcePaths.isEmpty() && withdrawPaths.isEmpty()) {
        announcePaths = new LinkedHashMap<>();
        withdrawPaths = new ArrayList<>();
      }
      Map.Entry<PathKey, PathChange> e = pathWalk.next();
      taken++;
      PathKey k = e.getKey();
      Family f = k.prefix().family();
      if (!families.contains(f)) {
        continue;
      }
      Attrs base = e.getValue().base;
      Object v = e.getValue().latest;
      if (v == WITHDRAW) {
        if (base != null) {
          withdrawPaths.add(k);
          advertisedCount--;
          counters.advertised(f, -1);
        }
        continue;
      }
      boolean forced = v instanceof Forced;
      Attrs latest = forced ? ((Forced) v).attrs() : (Attrs) v;
      if (forced || !latest.equals(base)) {
        announcePaths.computeIfAbsent(latest, x -> new ArrayList<>()).add(k);
      }
      if (base == null) {
        advertisedCount++;
        counters.advertised(f, 1);
      }
    }
    boolean eor = false;
    if (!endOfRibSent && initialTableQueued && !hasChanges()) {
      endOfRibSent = true;
      eor = true;
    }
    return new Batch(announce, withdraw, eor, announcePaths, withdrawPaths);
  }

  /**
   * Whether a path change is next in the walk, taking what the RIB recorded since the last take
   * when the walk is done (peer loop); without {@code andTake} only whether there is something to
   * take (a later drain takes it).
   */
  private boolean nextPath(boolean andTake) {
    if (pathWalk != null && pathWalk.hasNext()) {
      return true;
    }
    synchronized (lock) {
      if (pendingPaths.isEmpty()) {
        pathWalk = null;
        pathsWalking = false;
        pathsNonEmpty = false;
        return false;
      }
      if (!andTake) {
        return true;
      }
      pathsWalking = true;
      pathWalk = pendingPaths.entrySet().iterator();
      pendingPaths = new LinkedHashMap<>();
      pathsNonEmpty = false;
      return true;
    }
  }

  /**
   * Takes what the RIB recorded since the last take (false: nothing); the old map is dropped whole.
   * Without {@code andTake} it only ends the walk when nothing was recorded since (a later drain
   * takes it).
   */
  private boolean take(boolean andTake) {
    PrefixMap m;
    synchronized (lock) {
      if (pending.isEmpty()) {
        pendingNonEmpty = false;
        walk = null;
        walking = false;
        return false;
      }
      if (!andTake) {
        return true;
      }
      walking = true;
      m = pending;
      // sized for as many changes as came since the last take, up to 4,096 (8,192 slots, 128 kB):
      // while a table is being sent, that spares the map most of its doublings (a tenth of sartd's
      // allocation in bgperf b). A larger bound (32,768) cost memory when many peers fall behind:
      // bgperf a with --sart-advertise-peer-as, one run each, 247 B/route against 202 without it
      pending = new PrefixMap(Math.min(m.size(), 1 << 12));
    }
    walk = m;
    walkAt = 0;
    return true;
  }

  /**
   * Moves the walk to the next occupied slot; false when the taken map is done (or there is none).
   */
  private boolean walkHasNext() {
    PrefixMap w = walk;
    if (w == null) {
      return false;
    }
    int n = w.capacity();
    while (walkAt < n && w.keyAt(walkAt) == null) {
      walkAt++;
    }
    return walkAt < n;
  }

  /** Changes not sent yet, taken or not (peer loop). */
  private boolean hasChanges() {
    return walkHasNext()
        || pendingNonEmpty
        || pathsNonEmpty
        || (pathWalk != null && pathWalk.hasNext());
  }

  public boolean hasPending() {
    boolean refresh;
    synchronized (lock) {
      refresh = !endOfRefreshDue.isEmpty();
    }
    return hasChanges() || (!endOfRibSent && initialTableQueued) || refresh;
  }

  /**
   * The families whose EoRR is due now: their re-send was queued and nothing is pending any more
   * (call after draining; empty otherwise). RFC 7313 §4: the EoRR follows the re-advertised routes.
   */
  public List<Family> takeEndOfRefresh() {
    synchronized (lock) {
      // under the lock: the routes of a refresh are recorded before its EoRR is queued
      if (endOfRefreshDue.isEmpty()
          || !pending.isEmpty()
          || walkHasNext()
          || !pendingPaths.isEmpty()
          || (pathWalk != null && pathWalk.hasNext())) {
        return List.of();
      }
      List<Family> due = List.copyOf(endOfRefreshDue);
      endOfRefreshDue.clear();
      return due;
    }
  }

  /**
   * Whether everything recorded has been drained (the last drain's UPDATEs may still be on their
   * way out on the peer's loop), End-of-RIB included, and no EoRR is due: then the peer holds what
   * the Loc-RIB exports to it, and may join an update group. Any thread.
   */
  public boolean isIdle() {
    synchronized (lock) {
      return pending.isEmpty()
          && !walking
          && pendingPaths.isEmpty()
          && !pathsWalking
          && endOfRibSent
          && endOfRefreshDue.isEmpty();
    }
  }

  /**
   * Calls {@code each} with every change recorded and not drained yet, with its base: first the
   * rest of the map being walked, then the changes recorded since (a prefix in both comes twice,
   * the older base first). Only by whoever drains this Adj-RIB-Out, or while it cannot drain.
   * {@code each} is called without this Adj-RIB-Out's lock (it may record into another's).
   */
  void forEachPending(java.util.function.BiConsumer<Prefix, Attrs> each) {
    PrefixMap w = walk;
    if (w != null) {
      for (int i = walkAt; i < w.capacity(); i++) {
        if (w.keyAt(i) != null) {
          each.accept(w.keyAt(i), w.baseAt(i));
        }
      }
    }
    List<Prefix> prefixes = new ArrayList<>();
    List<Attrs> bases = new ArrayList<>();
    synchronized (lock) {
      for (int i = 0; i < pending.capacity(); i++) {
        if (pending.keyAt(i) != null) {
          prefixes.add(pending.keyAt(i));
          bases.add(pending.baseAt(i));
        }
      }
    }
    for (int i = 0; i < prefixes.size(); i++) {
      each.accept(prefixes.get(i), bases.get(i));
    }
  }

  /** Prefixes advertised to the peer, as far as the drains have gone (peer loop only). */
  public int advertisedCount() {
    return advertisedCount;
  }
}
