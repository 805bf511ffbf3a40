package dev.sart.bgp.peer;

import dev.sart.bgp.rib.Regrouping;
import dev.sart.bgp.rib.Rib;
import dev.sart.bgp.rib.RibPeer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A speaker's update groups ({@link UpdateGroup}), one per {@link UpdateGroup.Key}: made for its
 * first member, dropped with its last. Changed only with every RIB shard stopped ({@link
 * Rib#regroup}), so the groups, the RIB's outboxes and the members' own Adj-RIB-Outs change
 * together; the barrier is the one writer (one barrier runs at a time), so no lock is held here
 * while a group's is taken. The API reads {@link #sizes} from any thread.
 */
public final class UpdateGroups {
  private final Map<UpdateGroup.Key, UpdateGroup> groups = new ConcurrentHashMap<>();

  /** The group of each member session (at the barrier only: its sessions' loops learn it later). */
  private final Map<RibPeer, UpdateGroup> memberOf = new HashMap<>();

  /** The proxies' RIB ids: negative, so they meet no peer's (at the barrier only). */
  private int lastId;

  /** Puts {@code rp} (of {@code peer}) into the group of {@code key}, made if it is the first. */
  UpdateGroup join(UpdateGroup.Key key, RibPeer rp, Peer peer, Regrouping regrouping) {
    UpdateGroup g = groups.computeIfAbsent(key, k -> new UpdateGroup(k, --lastId, rp));
    g.add(rp, peer);
    memberOf.put(rp, g);
    regrouping.join(rp, g.proxy(), g.proxyPolicy());
    return g;
  }

  /**
   * Takes {@code rp} out of {@code g}; returns what it has still to send of the group's UPDATEs
   * (nothing when its session has ended: {@code tail} false).
   */
  List<UpdateGroup.Packet> leave(UpdateGroup g, RibPeer rp, Regrouping regrouping, boolean tail) {
    List<UpdateGroup.Packet> left = g.remove(rp, tail, regrouping);
    memberOf.remove(rp, g);
    boolean last = g.isEmpty();
    regrouping.leave(rp, g.proxy(), last);
    if (last) {
      groups.remove(g.key);
    }
    return left;
  }

  /** The group session {@code rp} is in, null if none (at the barrier only). */
  UpdateGroup groupOf(RibPeer rp) {
    return memberOf.get(rp);
  }

  /** The number of groups and, per group, of members (for the API and tests). */
  public List<Integer> sizes() {
    return groups.values().stream().map(UpdateGroup::size).sorted().toList();
  }
}
