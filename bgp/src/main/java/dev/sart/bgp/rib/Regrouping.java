package dev.sart.bgp.rib;

import dev.sart.bgp.policy.PeerPolicy;

/**
 * Moves peers between their own Adj-RIB-Outs and their update group's (only inside {@link
 * Rib#regroup}).
 */
public final class Regrouping {
  private final RibShard[] shards;

  Regrouping(RibShard[] shards) {
    this.shards = shards;
  }

  /**
   * The policy the RIB exports to {@code peer} with, so what its own Adj-RIB-Out holds (null: it is
   * down). The peer's own idea of its policy runs ahead of this while a change is on its way to the
   * RIB; a group must be chosen by this one.
   */
  public PeerPolicy policyOf(RibPeer peer) {
    AdjRibIn st = shards[0].adjRibsIn.get(peer);
    return st == null ? null : st.policy;
  }

  /**
   * {@code member}'s changes go to {@code proxy}'s Adj-RIB-Out from now on (its own must be empty).
   */
  public void join(RibPeer member, RibPeer proxy, PeerPolicy policy) {
    for (RibShard s : shards) {
      s.joinGroup(member, proxy, policy);
    }
  }

  /** {@code member}'s changes go to its own Adj-RIB-Out again; {@code last}: the group is gone. */
  public void leave(RibPeer member, RibPeer proxy, boolean last) {
    for (RibShard s : shards) {
      s.leaveGroup(member, proxy, last);
    }
  }

  /**
   * What {@code proxy}'s Adj-RIB-Out has recorded and not drained, handed to {@code member}'s own
   * as what the Loc-RIB exports to {@code member} now, with the group's bases: so a member leaving
   * gets those changes from its own Adj-RIB-Out (where they coalesce), not encoded by the group.
   * Only while nobody drains the group's Adj-RIB-Out.
   */
  public void handOver(RibPeer proxy, RibPeer member) {
    proxy
        .out()
        .forEachPending(
            (p, base) -> {
              RibShard s = shards[Rib.shardOf(p, shards.length)];
              Destination d = s.table.get(p);
              Path best = d == null ? null : d.best();
              Attrs now = best == null ? null : s.exportTo(p, best, member);
              if (now == null) {
                if (base != null) {
                  member.out().withdraw(p, base);
                }
              } else {
                member.out().advertise(p, base, now);
              }
            });
  }
}
