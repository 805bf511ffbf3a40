package dev.sart.bgp.rib;

import dev.sart.bgp.policy.PeerPolicy;
import dev.sart.bgp.wire.Family;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A shard's part of what changes a peer's routes as a whole, in or out, while its session stays up:
 * a route refresh asked by the peer (RFC 2918 §4) and its demarcation (RFC 7313 §4: BoRR, EoRR), a
 * changed import policy applied to the routes as received (soft reconfiguration inbound), a changed
 * export policy applied to the whole table. Runs on the shard's thread, on the shard's state.
 */
final class ShardRefresh {
  private final RibShard shard;

  ShardRefresh(RibShard shard) {
    this.shard = shard;
  }

  /**
   * Queues this shard's routes of {@code family} (null: all) again (RFC 2918 §4); false: the peer
   * is not up.
   */
  boolean resend(RibPeer peer, Family family) {
    AdjRibIn st = shard.adjRibsIn.get(peer);
    if (st == null) {
      return false;
    }
    AddPathExport x = shard.addPathExport(peer);
    for (Destination d : shard.table.values()) {
      if (family != null && !d.family().equals(family)) {
        continue;
      }
      Path best = d.best();
      if (best == null) {
        continue;
      }
      Prefix p = d.prefix();
      if (x != null && x.send.covers(p.family())) {
        x.update(d, p, shard.localAs, shard.options, true);
        continue;
      }
      Attrs a = st.export(p, best, peer, shard.localAs);
      if (a != null) {
        peer.out().readvertise(p, a, a);
      }
    }
    return true;
  }

  /** See {@link Rib#setPolicy}; when the limit changed, the max-prefix report was reset before. */
  void setPolicy(RibPeer peer, PeerPolicy policy) {
    AdjRibIn st = shard.adjRibsIn.get(peer);
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
      reexport(peer, new AdjRibIn(old, st.limit, shard.index));
    }
    if (!Objects.equals(old.maxPrefix(), policy.maxPrefix())) {
      shard.checkMaxPrefix(peer, st);
    }
  }

  /** RFC 7313 §4: the peer sent a BoRR: its routes of {@code family} in this shard are stale. */
  void beginningOfRefresh(RibPeer peer, Family family) {
    AdjRibIn st = shard.adjRibsIn.get(peer);
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
      for (Destination d : shard.table.values()) {
        if (d.family().equals(family)) {
          for (Path p : d.paths()) {
            if (p.source() == peer) {
              marked.add(new AdjRibIn.Key(d.prefix(), p.pathId()));
            }
          }
        }
      }
      for (RibShard.Rejected r : shard.rejected.getOrDefault(peer, Map.of()).keySet()) {
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
    AdjRibIn st = shard.adjRibsIn.get(peer);
    Set<AdjRibIn.Key> left = st == null || st.stale == null ? null : st.stale.remove(family);
    if (left == null) {
      return 0;
    }
    for (AdjRibIn.Key k : left) {
      if (st.received != null) {
        st.received.remove(k);
      }
      shard.remove(peer, st, k.prefix(), k.pathId());
      shard.unreject(peer, k.prefix(), k.pathId());
    }
    return left.size();
  }

  /** Soft reconfiguration inbound: every route as received goes through the import policy again. */
  private void reimport(RibPeer peer, AdjRibIn st) {
    int now = Path.now();
    for (Map.Entry<AdjRibIn.Key, Attrs> e : st.received.entrySet()) {
      Prefix p = e.getKey().prefix();
      int id = e.getKey().pathId();
      Attrs a = st.importPath(p, e.getValue(), shard.localAs);
      if (a == null) {
        shard.remove(peer, st, p, id);
        shard.reject(peer, p, id, e.getValue());
        continue;
      }
      shard.unreject(peer, p, id);
      Destination d = shard.table.getOrCreate(p);
      Path old = d.find(peer, id);
      if (old != null && old.attrs() == a) {
        continue; // interned: the same instance means the same attributes
      }
      if (d.put(new Path(peer, id, a, old == null ? now : old.receivedAt()))) {
        shard.added(peer, st, p);
      }
      shard.decide(d, p);
    }
  }

  /**
   * A changed export policy: what the peer should have now, as changes against what it has (what
   * {@code before}, the peer's state with the old policy, exports).
   */
  private void reexport(RibPeer peer, AdjRibIn before) {
    // a member of an update group leaves it before its policy changes (Peer.setPolicy)
    Outbox box =
        shard.outboxes.stream()
            .filter(o -> o.peer == peer)
            .findFirst()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        peer + " is in an update group: it must leave it first"));
    AdjRibIn st = box.st;
    for (Destination d : shard.table.values()) {
      Path best = d.best();
      if (best == null) {
        continue;
      }
      Prefix p = d.prefix();
      if (box.addPathCovers(p)) {
        shard
            .addPathExport(peer)
            .update(d, p, shard.localAs, shard.options, false); // with the new policy
        continue;
      }
      Attrs was = before.export(p, best, peer, shard.localAs);
      Attrs a = st.export(p, best, peer, shard.localAs);
      RibShard.change(box, p, was, a);
    }
  }
}
