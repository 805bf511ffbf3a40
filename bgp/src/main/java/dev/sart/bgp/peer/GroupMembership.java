package dev.sart.bgp.peer;

import dev.sart.bgp.policy.PeerPolicy;
import dev.sart.bgp.rib.Regrouping;
import dev.sart.bgp.rib.RibPeer;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.MpNextHop;
import dev.sart.bgp.wire.SessionOptions;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;

/**
 * A peer's place in the update groups ({@link UpdateGroup}): the group its session sends from and
 * what a group it left had still queued for it (its <em>tail</em>). Owned by the peer's event loop,
 * like the rest of its session state: the move itself happens with every RIB shard stopped ({@link
 * dev.sart.bgp.rib.Rib#regroup}), where the RIB's outboxes and {@link UpdateGroups} (the barrier's
 * record of who is in which group) change; the barrier then posts its result to the loop ({@link
 * #joined}, {@link #left}), so these fields change only there, in the order of the barriers.
 *
 * <p>The ordering the barrier gives is kept while the result is on its way. A joining session's own
 * Adj-RIB-Out is idle (its initial table and End-of-RIB are out), and the RIB records nothing more
 * there, so it has nothing to send until the loop learns it joined; the group's UPDATEs wait in the
 * group's queue from its position. A leaving session sends nothing of its own Adj-RIB-Out (and no
 * EoRR) from the moment the leave is queued until the loop has its tail ({@link #leaving}), so the
 * tail goes first.
 */
final class GroupMembership {
  /** The update group a session of this peer is in ({@code rp}: that session's RIB peer). */
  private record Membership(RibPeer rp, UpdateGroup group, byte[] nextHopV4, byte[] nextHopV6) {
    Membership(RibPeer rp, UpdateGroup group) {
      this(rp, group, UpdateGroup.bytes(rp.nextHopSelfV4()), UpdateGroup.bytes(rp.nextHopSelfV6()));
    }
  }

  /** What a session had still to send of its group's UPDATEs when it left the group. */
  private record Tail(Membership was, List<UpdateGroup.Packet> packets) {}

  /** What {@link #send} did. */
  enum Sent {
    /** Sent UPDATEs of the tail or the group (or finished the tail): go on. */
    SOME,
    /** In a group that has nothing for the session now. */
    NOTHING,
    /** In a group whose queue is full while another member is behind: look again soon. */
    BLOCKED,
    /** In no group: the session sends from its own Adj-RIB-Out. */
    NOT_GROUPED
  }

  /**
   * UPDATEs of a group sent per round of a drain (as many as {@link Peer#DRAIN_CHUNK} prefixes
   * make, about).
   */
  private static final int PACKETS_PER_ROUND = 8;

  private final Peer peer;
  private volatile Membership membership; // volatile for the API (groupId, groupSize)
  private Tail tail;
  private int tailAt;
  private boolean joinQueued; // a join is at the barrier or its result on its way
  private boolean joinAgain; // a join was asked for while one was queued
  private int leavesQueued; // leaves at the barrier or whose result is on its way

  GroupMembership(Peer peer) {
    this.peer = peer;
  }

  /** The group's number; 0: none (any thread). */
  int groupId() {
    Membership m = membership;
    return m == null ? 0 : m.group().id();
  }

  /** How many sessions share the group (0: none; any thread). */
  int groupSize() {
    Membership m = membership;
    return m == null ? 0 : m.group().size();
  }

  /** Whether a leave is queued whose tail the loop has not had yet (loop). */
  boolean leaving() {
    return leavesQueued > 0;
  }

  /** Whether session {@code rp} sends from a group (loop). */
  boolean grouped(RibPeer rp) {
    Membership m = membership;
    return m != null && m.rp() == rp;
  }

  /** Whether session {@code rp} has more to send, from the tail, the group or its own (loop). */
  boolean hasPending(RibPeer rp, boolean grouped) {
    return tail != null || (grouped ? membership.group().hasPendingFor(rp) : rp.out().hasPending());
  }

  /**
   * Sends a round of what a group this session left had queued for it, else of its group's (loop).
   */
  Sent send(Connection c, RibPeer rp) {
    Tail t = tail;
    if (t != null) {
      if (t.was().rp() == rp) {
        int end = Math.min(t.packets().size(), tailAt + PACKETS_PER_ROUND);
        for (; tailAt < end; tailAt++) {
          send(c, t.was(), t.packets().get(tailAt));
        }
        if (tailAt < t.packets().size()) {
          return Sent.SOME;
        }
      }
      tail = null;
      tailAt = 0;
      return Sent.SOME;
    }
    Membership m = membership;
    if (m == null || m.rp() != rp) {
      return Sent.NOT_GROUPED;
    }
    UpdateGroup.Taken taken = m.group().take(rp, PACKETS_PER_ROUND);
    for (UpdateGroup.Packet p : taken.packets()) {
      send(c, m, p);
    }
    if (!taken.packets().isEmpty()) {
      return Sent.SOME;
    }
    return taken.blocked() ? Sent.BLOCKED : Sent.NOTHING;
  }

  /**
   * Sends one UPDATE of an update group, with this session's next hop, and counts what it
   * advertises.
   */
  private void send(Connection c, Membership m, UpdateGroup.Packet p) {
    c.sendUpdate(m.group().bytesFor(p, m.nextHopV4(), m.nextHopV6()));
    if (p.advertisedV4() != 0) {
      peer.prefixCounters.advertised(Family.IPV4_UNICAST, p.advertisedV4());
    }
    if (p.advertisedV6() != 0) {
      peer.prefixCounters.advertised(Family.IPV6_UNICAST, p.advertisedV6());
    }
  }

  /**
   * The session's own Adj-RIB-Out is idle (it holds what the Loc-RIB exports to it): it joins the
   * update group of the peers that export alike, if the speaker has them. Checked again with every
   * RIB shard stopped, where the move happens (loop). Asked for while a join is queued, it is asked
   * again once that one's result is in: the queued one may find the Adj-RIB-Out busy (a re-send's
   * routes still coming, RFC 7313) and leave the session out, and the drain that emptied it since,
   * which asked for this, is the last one until something changes.
   */
  void join(RibPeer rp, SessionOptions options) {
    UpdateGroups groups = peer.speaker.updateGroups();
    if (groups == null) {
      return;
    }
    if (joinQueued) {
      joinAgain = true;
      return;
    }
    if (leavesQueued > 0
        || tail != null
        || rp.out().addPath() != null // ADD-PATH sessions send from their own Adj-RIB-Out
        || rp.reflection().client() // a client's own routes would come back to it (RFC 4456)
        // IPv4 NLRI with an IPv6 next hop (RFC 8950): the group's next-hop rewriting assumes IPv4
        || (rp.nextHopSelfV4() != null && !(rp.nextHopSelfV4() instanceof MpNextHop.V4))
        || !rp.out().isIdle()) {
      return;
    }
    joinQueued = true;
    peer.speaker
        .rib()
        .regroup(
            r -> {
              try {
                // the group is chosen by the policy the RIB exports to rp with: what its own
                // Adj-RIB-Out holds. A policy set since (peer.policy) has not reached the RIB yet;
                // its change leaves and re-diffs after this (Peer.setPolicy), so rp joins once that
                // is done. Keyed by peer.policy, rp would join a group whose base it does not hold,
                // and a route withdrawn meanwhile that the group never exported stays at the peer.
                PeerPolicy held = r.policyOf(rp);
                // the session may have gone (its leave is queued after this) or had a change since
                if (held != null
                    && held.equals(peer.policy)
                    && groups.groupOf(rp) == null
                    && rp.out().isIdle()) {
                  joinAt(r, groups, UpdateGroup.Key.of(rp, options, held), rp);
                }
              } finally {
                onLoop(() -> joinDone(rp, options)); // after joined: one loop, its tasks in order
              }
            });
  }

  /**
   * Puts the session {@code rp} into the group of {@code key} (with every RIB shard stopped): the
   * RIB records its changes for the group from now on, and the loop learns it ({@link #joined})
   * after what it had queued before.
   */
  UpdateGroup joinAt(Regrouping r, UpdateGroups groups, UpdateGroup.Key key, RibPeer rp) {
    UpdateGroup g = groups.join(key, rp, peer, r);
    onLoop(() -> joined(rp, g));
    return g;
  }

  /** A join's barrier is done, whatever it did (loop). */
  private void joinDone(RibPeer rp, SessionOptions options) {
    joinQueued = false;
    if (joinAgain) {
      joinAgain = false;
      if (peer.ribPeer == rp && !grouped(rp)) {
        join(rp, options);
      }
    }
  }

  /** The barrier put the session {@code rp} into {@code g} (loop). */
  private void joined(RibPeer rp, UpdateGroup g) {
    membership = new Membership(rp, g);
    Peer.LOG.info(() -> "peer=" + peer.name() + " event=update-group-joined members=" + g.size());
    peer.drainLater();
  }

  /**
   * Takes the session {@code rp} out of its update group (if it is in one) before it is to get
   * something the others must not, or before it goes: queued on the RIB like every change, so what
   * the RIB does after this call sees it out. What the group had queued for it is sent before
   * anything from its own Adj-RIB-Out (loop).
   */
  void leave(RibPeer rp, String why) {
    leave(rp, why, true);
  }

  /**
   * As {@link #leave(RibPeer, String)}; without {@code takeTail} (its session has ended) it takes
   * nothing along (loop).
   */
  void leave(RibPeer rp, String why, boolean takeTail) {
    UpdateGroups groups = peer.speaker.updateGroups();
    if (groups == null || rp == null) {
      return;
    }
    leavesQueued++;
    peer.speaker
        .rib()
        .regroup(
            r -> {
              UpdateGroup g = groups.groupOf(rp);
              List<UpdateGroup.Packet> packets =
                  g == null ? List.of() : groups.leave(g, rp, r, takeTail);
              onLoop(() -> left(rp, g, packets, why));
            });
  }

  /**
   * The barrier took the session {@code rp} out of {@code g} (null: it was in none) with {@code
   * packets} still to send (loop).
   */
  private void left(RibPeer rp, UpdateGroup g, List<UpdateGroup.Packet> packets, String why) {
    leavesQueued--;
    if (g != null) {
      Membership m = membership;
      boolean current = m != null && m.rp() == rp && m.group() == g;
      if (current) {
        membership = null;
      }
      if (!packets.isEmpty()) {
        // no tail is pending here: a session joins only once its tail is sent
        tail = new Tail(current ? m : new Membership(rp, g), packets);
        tailAt = 0;
      }
      Peer.LOG.info(
          () ->
              "peer="
                  + peer.name()
                  + " event=update-group-left reason=\""
                  + why
                  + "\" queued="
                  + packets.size());
    }
    peer.drainLater();
  }

  /**
   * Hands a barrier's result to the loop, the one writer of this state. A loop that is shut down
   * (the speaker closing) runs nothing more anyway.
   */
  private void onLoop(Runnable result) {
    try {
      peer.loop.execute(result);
    } catch (RejectedExecutionException e) {
      Peer.LOG.fine(() -> "peer=" + peer.name() + " event=regroup-result-dropped loop=closed");
    }
  }
}
