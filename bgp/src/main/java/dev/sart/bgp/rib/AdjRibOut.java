package dev.sart.bgp.rib;

import dev.sart.bgp.wire.Family;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One peer's Adj-RIB-Out (RFC 4271 §3.2): the RIB thread records changes, which coalesce per
 * prefix while the peer cannot send (the latest wins); the peer's event loop drains them into
 * UPDATEs when its channel is writable and remembers what it last advertised, so nothing is sent
 * twice.
 *
 * <p>The changes go into a plain map under a lock; a drain takes the whole map at once (swapping
 * in an empty one) and then walks it with one iterator over as many drains as it takes. Each
 * change is visited once: an earlier version kept a {@code ConcurrentHashMap} and began a new
 * iterator at every drain, which re-walked the bins emptied by the drains before it (quadratic
 * in the table size). A change that arrives for a prefix still in the taken map is sent after
 * it, so the latest still wins.
 */
public final class AdjRibOut {
  private static final Object WITHDRAW = new Object();

  /** A route to send even when it equals what was advertised (a route refresh, RFC 2918 §4). */
  private record Forced(Attrs attrs) {}

  private final Object lock = new Object();
  // guarded by lock: the changes recorded since the last take
  private HashMap<Prefix, Object> pending = new HashMap<>();
  /** Families whose EoRR (RFC 7313 §4) is due once what was queued before has been sent (guarded by lock). */
  private final Set<Family> endOfRefreshDue = new HashSet<>();
  /** Changes recorded and not yet taken by a drain: read without the lock. */
  private volatile boolean pendingNonEmpty;
  private final AtomicBoolean wakeupScheduled = new AtomicBoolean();
  private final Runnable wakeup;
  private final PrefixCounters counters;
  private volatile boolean initialTableQueued;
  // owned by the peer's event loop
  private Iterator<Map.Entry<Prefix, Object>> walk;
  private final Map<Prefix, Attrs> advertised = new HashMap<>();
  private boolean endOfRibSent;

  /** @param wakeup schedules {@link #drain} on the peer's event loop (called at most once per drain) */
  public AdjRibOut(Runnable wakeup) {
    this(wakeup, new PrefixCounters());
  }

  /** @param counters where the number of advertised prefixes is kept */
  public AdjRibOut(Runnable wakeup, PrefixCounters counters) {
    this.wakeup = wakeup;
    this.counters = counters;
  }

  PrefixCounters counters() {
    return counters;
  }

  // --- RIB thread ---------------------------------------------------------------------------------

  void advertise(Prefix p, Attrs attrs) {
    synchronized (lock) {
      // a pending forced re-send stays forced: the peer must get the prefix in its refresh
      pending.merge(p, attrs, (old, now) -> old instanceof Forced ? new Forced((Attrs) now) : now); // no capture: no allocation
      pendingNonEmpty = true;
    }
    signal();
  }

  /** Like {@link #advertise}, but sent even when the peer has these attributes already. */
  void readvertise(Prefix p, Attrs attrs) {
    put(p, new Forced(attrs));
  }

  /** The re-send of {@code family} has been queued: its EoRR follows when it has been sent. */
  void endOfRefreshQueued(Family family) {
    synchronized (lock) {
      endOfRefreshDue.add(family);
    }
    signal();
  }

  void withdraw(Prefix p) {
    put(p, WITHDRAW);
  }

  private void put(Prefix p, Object v) {
    synchronized (lock) {
      pending.put(p, v);
      pendingNonEmpty = true;
    }
    signal();
  }

  /** The whole table has been queued once: End-of-RIB follows when it has been sent (RFC 4724 §2). */
  void initialTableQueued() {
    initialTableQueued = true;
    signal();
  }

  private void signal() {
    if (wakeupScheduled.compareAndSet(false, true)) {
      wakeup.run();
    }
  }

  // --- peer event loop ----------------------------------------------------------------------------

  /** What one drain produced: announcements grouped by attributes, withdrawals, End-of-RIB due. */
  public record Batch(Map<Attrs, List<Prefix>> announce, List<Prefix> withdraw, boolean endOfRib) {
    public boolean isEmpty() {
      return announce.isEmpty() && withdraw.isEmpty() && !endOfRib;
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
      if (walk == null || !walk.hasNext()) {
        if (!take()) {
          break;
        }
        continue;
      }
      Map.Entry<Prefix, Object> e = walk.next();
      Prefix p = e.getKey();
      Object v = e.getValue();
      taken++;
      if (!families.contains(p.family())) {
        continue;
      }
      if (v == WITHDRAW) {
        if (advertised.remove(p) != null) {
          withdraw.add(p);
          counters.advertised(p.family(), -1);
        }
      } else if (v instanceof Forced f) {
        if (advertised.put(p, f.attrs()) == null) {
          counters.advertised(p.family(), 1);
        }
        announce.computeIfAbsent(f.attrs(), k -> new ArrayList<>()).add(p);
      } else {
        Attrs a = (Attrs) v;
        Attrs before = advertised.put(p, a);
        if (!a.equals(before)) {
          announce.computeIfAbsent(a, k -> new ArrayList<>()).add(p);
        }
        if (before == null) {
          counters.advertised(p.family(), 1);
        }
      }
    }
    boolean eor = false;
    if (!endOfRibSent && initialTableQueued && !hasChanges()) {
      endOfRibSent = true;
      eor = true;
    }
    return new Batch(announce, withdraw, eor);
  }

  /** Takes what the RIB recorded since the last take (false: nothing); the old map is dropped whole. */
  private boolean take() {
    HashMap<Prefix, Object> m;
    synchronized (lock) {
      if (pending.isEmpty()) {
        pendingNonEmpty = false;
        walk = null;
        return false;
      }
      m = pending;
      pending = new HashMap<>();
    }
    walk = m.entrySet().iterator();
    return true;
  }

  /** Changes not sent yet, taken or not (peer loop). */
  private boolean hasChanges() {
    return (walk != null && walk.hasNext()) || pendingNonEmpty;
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
      if (endOfRefreshDue.isEmpty() || !pending.isEmpty() || (walk != null && walk.hasNext())) {
        return List.of();
      }
      List<Family> due = List.copyOf(endOfRefreshDue);
      endOfRefreshDue.clear();
      return due;
    }
  }

  /** Prefixes currently advertised to the peer (peer loop only). */
  public int advertisedCount() {
    return advertised.size();
  }

  /** A copy of what is advertised, for the API (peer loop only). */
  public Map<Prefix, Attrs> advertisedSnapshot() {
    return Map.copyOf(advertised);
  }
}
