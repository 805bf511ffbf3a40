package dev.sart.bgp.rib;

import dev.sart.bgp.wire.Family;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * RFC 4724 §4.2, the Receiving Speaker ("helper"), in one shard: the paths of a peer whose session
 * ended without a NOTIFICATION stay, stale, until its next session sends them again, its End-of-RIB
 * arrives or the restart time runs out. Runs on the shard's thread, on the shard's state.
 */
final class ShardRestart {
  private final RibShard shard;

  /**
   * The sessions of restarting peers whose paths are kept, stale, by the peer's address: the RIB
   * peer of the session that went down. Owned by the worker; the API reads {@link Rib#isStale}.
   */
  final Map<java.net.InetAddress, RibPeer> restarting = new HashMap<>();

  ShardRestart(RibShard shard) {
    this.shard = shard;
  }

  /**
   * RFC 4724 §4.2: an UPDATE of the session that follows a graceful restart of its peer, whose
   * previous session's paths are still here, stale. A stale path the UPDATE withdraws goes; one it
   * announces again is taken out before the new one goes in, and the destination is decided once,
   * so the route is never withdrawn in between (for the other peers or for the FIB). Kept apart
   * from {@link RibShard#applyTo}, whose loop is the route path of every other UPDATE.
   */
  void applyAfterRestart(
      RibPeer stale,
      RibPeer from,
      AdjRibIn st,
      List<Prefix> withdrawn,
      int[] withdrawnPathIds,
      List<Prefix> announced,
      int[] announcedPathIds,
      Attrs attrs) {
    for (int i = 0; i < withdrawn.size(); i++) {
      shard.remove(
          stale, null, withdrawn.get(i), withdrawnPathIds == null ? 0 : withdrawnPathIds[i]);
    }
    List<Destination> replaced = new ArrayList<>();
    for (int i = 0; i < announced.size(); i++) {
      Prefix p = announced.get(i);
      Destination d = shard.table.get(p);
      if (d != null && d.remove(stale, announcedPathIds == null ? 0 : announcedPathIds[i])) {
        shard.removed(stale, p); // decided below, with the path sent again in
        replaced.add(d);
      }
    }
    shard.applyTo(from, st, withdrawn, withdrawnPathIds, announced, announcedPathIds, attrs);
    // an announcement that was not taken (an AS loop, the import policy) leaves the destination
    // without the stale path and undecided: decide it now (no change, no notice, for the others)
    for (Destination d : replaced) {
      shard.decideAndForget(d, null);
    }
  }

  /**
   * A session of a peer with graceful restart ended without a NOTIFICATION: its paths of {@code
   * keep} stay in the table, stale, best path unchanged; those of other families go as in {@link
   * RibShard#peerDown}. A session of the same peer that was stale already is flushed first.
   */
  void peerRestarting(RibPeer old, Set<Family> keep) {
    RibPeer before = restarting.get(old.address());
    if (before != null && before != old) {
      flushStale(before, null);
    }
    shard.outboxes.removeIf(o -> o.peer == old);
    shard.dropAddPathExport(old);
    shard.adjRibsIn.remove(old);
    List<Destination> changed = new ArrayList<>();
    for (Destination d : shard.table.values()) {
      if (!keep.contains(d.family())) {
        int removed = d.removeAll(old);
        if (removed > 0) {
          old.counters().accepted(shard.index, d.family(), -removed);
          old.counters().received(shard.index, d.family(), -removed);
          changed.add(d);
        }
      }
    }
    Map<RibShard.Rejected, Attrs> r = shard.rejected.remove(old);
    if (r != null) {
      r.keySet().forEach(x -> old.counters().received(shard.index, x.prefix().family(), -1));
    }
    changed.forEach(d -> shard.decideAndForget(d, null));
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
    for (Destination d : shard.table.values()) {
      if (family == null || d.family().equals(family)) {
        int removed = d.removeAll(old);
        if (removed > 0) {
          n += removed;
          old.counters().accepted(shard.index, d.family(), -removed);
          old.counters().received(shard.index, d.family(), -removed);
          changed.add(d);
        }
      }
    }
    changed.forEach(d -> shard.decideAndForget(d, null));
    if (family == null) {
      restarting.remove(old.address());
      for (AdjRibIn st : shard.adjRibsIn.values()) {
        if (st.predecessor == old) {
          st.predecessor = null;
        }
      }
    }
    return n;
  }
}
