package dev.sart.bgp.peer;

import dev.sart.bgp.policy.PeerPolicy;
import dev.sart.bgp.policy.Policy;
import dev.sart.bgp.rib.AdjRibOut;
import dev.sart.bgp.rib.PrefixCounters;
import dev.sart.bgp.rib.Regrouping;
import dev.sart.bgp.rib.RibPeer;
import dev.sart.bgp.wire.BgpCodec;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.MpNextHop;
import dev.sart.bgp.wire.SessionOptions;
import dev.sart.bgp.wire.Update;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Peers that export alike, sharing one Adj-RIB-Out and one encoding of their UPDATEs (FRR's
 * update-groups). The RIB records each change once, for the group's pseudo-peer (its {@link
 * #proxy}); the group drains that Adj-RIB-Out into UPDATEs once, encoded with the proxy's next hop,
 * and queues them; each member sends the queue from its own position, with its own next hop written
 * into its copy (RFC 4271 §5.1.3: in eBGP, our own address on that link).
 *
 * <p>Members join once they hold what the Loc-RIB exports to them (their own Adj-RIB-Out is idle,
 * see {@link AdjRibOut#isIdle}), so a joiner starts at the end of the queue: what the group still
 * has pending are changes the joiner has already had or gets again, which does no harm (an UPDATE
 * replaces the route, a withdrawal of a route the peer does not have is ignored, RFC 4271 §9). A
 * member leaves before it must get something the others must not (a route refresh, a new export
 * policy), when its session ends, or when it falls too far behind: it sends what it has not sent of
 * the queue (its <em>tail</em>), and what the group has recorded but not encoded yet goes to its
 * own Adj-RIB-Out, where it coalesces and is sent after the tail (a session that has ended takes
 * nothing along). Joining and leaving happen with every RIB shard stopped ({@link
 * dev.sart.bgp.rib.Rib#regroup}), so no change is recorded in between.
 *
 * <p>Flow control: the group drains its Adj-RIB-Out (a chunk of up to {@link Peer#DRAIN_CHUNK}
 * prefixes at a time) only while fewer than {@link #MAX_PACKETS} UPDATEs are queued; while it is
 * full, the changes coalesce in the group's Adj-RIB-Out as they would in a peer's. A member that
 * keeps the queue full for {@link #EVICT_AFTER_NANOS} while another waits is made to leave, so one
 * slow peer holds the others up for at most that long.
 *
 * <p>Split horizon: a group does not leave a route out for the member it came from. Without {@code
 * advertise_peer_as} an external member's own routes carry its AS and go to no member of its AS
 * anyway (RFC 4271 §9.1.2); with it, a member gets its routes back and drops them as a loop, as
 * with FRR's update groups. iBGP-learned routes go to no internal peer (§9.1.1).
 */
final class UpdateGroup {
  /** UPDATEs queued before the group stops draining (about 2 MiB at 4,096 octets each). */
  static final int MAX_PACKETS = 512;

  /** How long one member may keep the queue full before it is made to leave. */
  static final long EVICT_AFTER_NANOS = 2_000_000_000L;

  /**
   * What the members share, so that one encoding is right for all of them: the export (our side of
   * the AS boundary, their AS, the families, the export policy) and the encoding (the session's
   * options, and the shape of the next hop written into it).
   */
  record Key(
      boolean internal,
      long asn,
      Set<Family> families,
      SessionOptions options,
      Policy exportPolicy,
      boolean advertisePeerAs,
      int nextHopV4Length,
      int nextHopV6Length,
      dev.sart.bgp.rib.Reflection reflection) {
    static Key of(RibPeer rp, SessionOptions options, PeerPolicy policy) {
      return new Key(
          rp.internal(),
          rp.asn(),
          rp.families(),
          options,
          policy.exportPolicy(),
          policy.advertisePeerAs(),
          length(rp.nextHopSelfV4()),
          length(rp.nextHopSelfV6()),
          rp.reflection());
    }

    private static int length(MpNextHop nh) {
      return nh == null ? 0 : nh.length();
    }
  }

  /**
   * One encoded UPDATE. {@code nextHopAt} is the offset of its next hop (NEXT_HOP's value, or the
   * next hop of MP_REACH_NLRI), -1 when it has none; {@code v6}: it is the IPv6 next hop. {@code
   * advertisedV4} and {@code V6} are how many prefixes more the members have once they sent it (for
   * their counters).
   */
  record Packet(byte[] bytes, int nextHopAt, boolean v6, int advertisedV4, int advertisedV6) {}

  /** What {@link #take} gave: UPDATEs to send, or why there are none. */
  record Taken(List<Packet> packets, boolean blocked) {
    static final Taken NOTHING = new Taken(List.of(), false);
    static final Taken BLOCKED = new Taken(List.of(), true);
  }

  private static final class Member {
    final RibPeer rp;
    final Peer peer;

    /** The index of the next packet it sends. */
    long cursor;

    Member(RibPeer rp, Peer peer, long cursor) {
      this.rp = rp;
      this.peer = peer;
      this.cursor = cursor;
    }
  }

  final Key key;
  private final RibPeer proxy;
  private final PeerPolicy proxyPolicy;
  private final BgpCodec codec;
  private final List<Family> families;
  private final byte[] proxyV4;
  private final byte[] proxyV6;
  private final PrefixCounters proxyCounters = new PrefixCounters();
  private final List<Member> members = new CopyOnWriteArrayList<>();
  // guarded by this (the group's lock), which is never held while another lock is taken: the
  // group's Adj-RIB-Out (whose lock is taken to drain it) is used by one thread at a time, the one
  // that holds the proxy role below, without the group's lock
  // the queue: packet number n (first <= n < end()) is packets.get(head + n - first); indexed, so
  // that a member's next packets are found at its cursor, not by walking the queue from its head
  private final ArrayList<Packet> packets = new ArrayList<>();
  private int head;

  /** The number of the first packet still queued. */
  private long first;

  /** Since when the queue has been full with a member at its end waiting (-1: it is not). */
  private long fullSince = -1;

  /**
   * Whether a thread holds the proxy role: it alone uses the group's Adj-RIB-Out (drains and
   * encodes a chunk on a member's loop, or hands it to a leaving member at a RIB barrier) until it
   * gives the role back ({@link #release}).
   */
  private boolean proxyBusy;

  /** A member found the role taken: it is woken when the holder adds packets or gives it back. */
  private boolean turnedAway;

  /**
   * A group whose proxy exports as {@code representative} would (its next hop is written over for
   * the others).
   */
  UpdateGroup(Key key, int proxyId, RibPeer representative) {
    this.key = key;
    this.proxy =
        new RibPeer(
            proxyId,
            null,
            key.asn(),
            0,
            key.internal(),
            representative.nextHopSelfV4(),
            representative.nextHopSelfV6(),
            key.families(),
            new AdjRibOut(this::wakeAll, proxyCounters),
            proxyCounters,
            key.reflection());
    this.proxyPolicy =
        new PeerPolicy(Policy.ACCEPT_ALL, key.exportPolicy(), null, false, key.advertisePeerAs());
    this.codec = new BgpCodec(key.options());
    this.families = List.copyOf(key.families());
    this.proxyV4 = bytes(representative.nextHopSelfV4());
    this.proxyV6 = bytes(representative.nextHopSelfV6());
  }

  RibPeer proxy() {
    return proxy;
  }

  /** The group's number, for people (1, 2, ... as groups are made). */
  int id() {
    return -proxy.id();
  }

  PeerPolicy proxyPolicy() {
    return proxyPolicy;
  }

  int size() {
    return members.size();
  }

  boolean isEmpty() {
    return members.isEmpty();
  }

  /**
   * Adds a member, which starts at the end of the queue (at a RIB barrier, see the class comment).
   */
  synchronized void add(RibPeer rp, Peer peer) {
    members.add(new Member(rp, peer, end()));
  }

  /**
   * Removes a member (at a RIB barrier). With {@code tail}, it gets what it has not sent of the
   * queue (returned, for it to send before anything else) and, in its own Adj-RIB-Out, what the
   * group has recorded and not encoded yet ({@link Regrouping#handOver}); without (its session has
   * ended), nothing. With {@code tail} it waits for a chunk being encoded on a member's loop (which
   * needs no lock this thread holds), so that chunk is in the tail and nothing is drained while the
   * rest is handed over.
   */
  List<Packet> remove(RibPeer rp, boolean tail, Regrouping regrouping) {
    List<Packet> left = new ArrayList<>();
    synchronized (this) {
      Member m = member(rp);
      if (m == null) {
        return List.of();
      }
      if (tail && !awaitProxy()) {
        tail = false; // interrupted: the speaker is closing
      }
      if (tail) {
        for (long n = m.cursor; n < end(); n++) {
          left.add(at(n));
        }
      }
      members.remove(m);
      trim();
    }
    if (tail) {
      try {
        regrouping.handOver(proxy, rp); // the shards are stopped and this thread has the role
      } finally {
        boolean wake;
        synchronized (this) {
          wake = release(true);
        }
        if (wake) {
          wakeAll();
        }
      }
    }
    return left;
  }

  /**
   * Up to {@code max} UPDATEs for member {@code rp} to send next (on its loop): from the queue, or
   * drained and encoded from the group's Adj-RIB-Out when it is at the end of the queue. {@code
   * blocked}: the queue is full and another member is behind.
   */
  Taken take(RibPeer rp, int max) {
    boolean wake = false;
    try {
      while (true) {
        boolean full;
        synchronized (this) {
          Member m = member(rp);
          if (m == null) {
            return Taken.NOTHING;
          }
          if (m.cursor < end()) {
            long to = Math.min(end(), m.cursor + max);
            List<Packet> out = new ArrayList<>((int) (to - m.cursor));
            for (long n = m.cursor; n < to; n++) {
              out.add(at(n));
            }
            m.cursor = to;
            boolean wasFull = queued() >= MAX_PACKETS;
            trim();
            if (wasFull && queued() < MAX_PACKETS) {
              fullSince = -1;
              wake = true; // those waiting at the end of a full queue
            }
            return new Taken(out, false);
          }
          if (!acquire()) {
            return Taken.NOTHING; // another member is encoding: it wakes this one
          }
          full = queued() >= MAX_PACKETS;
        }
        // this thread has the role: the group's Adj-RIB-Out is used without the group's lock
        List<Packet> fresh = null;
        boolean pending = false;
        try {
          if (full) {
            pending = proxy.out().hasPending();
          } else {
            fresh = fill();
          }
        } finally {
          synchronized (this) {
            if (fresh != null) {
              packets.addAll(fresh);
            }
            // wake those turned away if there is something for them: new packets, or pending
            // changes (a full queue) they must wait for in turn
            wake |= release(full ? pending : fresh != null && !fresh.isEmpty());
            Member m = member(rp);
            if (pending && m != null && m.cursor == end() && queued() >= MAX_PACKETS) {
              evictIfStuck(m);
            }
          }
        }
        if (full) {
          return pending ? Taken.BLOCKED : Taken.NOTHING;
        }
        if (fresh == null) {
          return Taken.NOTHING;
        }
      }
    } finally {
      if (wake) {
        wakeAll(); // never under the group's lock
      }
    }
  }

  /** Whether member {@code rp} has anything to send (its loop). */
  boolean hasPendingFor(RibPeer rp) {
    synchronized (this) {
      Member m = member(rp);
      if (m == null) {
        return false;
      }
      if (m.cursor < end()) {
        return true;
      }
      if (!acquire()) {
        return false; // the holder wakes it when it is done
      }
    }
    boolean pending = false;
    try {
      pending = proxy.out().hasPending();
    } finally {
      boolean wake;
      synchronized (this) {
        wake = release(pending);
      }
      if (wake) {
        wakeAll();
      }
    }
    return pending;
  }

  /** Takes the proxy role, or notes that this member must be woken (the caller holds the lock). */
  private boolean acquire() {
    if (proxyBusy) {
      turnedAway = true;
      return false;
    }
    proxyBusy = true;
    return true;
  }

  /**
   * Gives the proxy role back (the caller holds the lock); true when the members must be woken
   * (some were turned away and {@code progress}: there is something new for them).
   */
  private boolean release(boolean progress) {
    proxyBusy = false;
    notifyAll(); // a leave waiting for the role
    if (turnedAway && progress) {
      turnedAway = false;
      return true;
    }
    return false;
  }

  /**
   * Waits for the proxy role and takes it (the caller holds the lock; at a RIB barrier, for a
   * leave); false if interrupted.
   */
  private boolean awaitProxy() {
    while (proxyBusy) {
      try {
        wait();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    proxyBusy = true;
    return true;
  }

  /**
   * A member's copy of {@code p}: its own next hop ({@code ownV4}, {@code ownV6}, as on the wire)
   * written in where the proxy's is.
   */
  byte[] bytesFor(Packet p, byte[] ownV4, byte[] ownV6) {
    if (p.nextHopAt() < 0) {
      return p.bytes();
    }
    byte[] proxyNh = p.v6() ? proxyV6 : proxyV4;
    byte[] own = p.v6() ? ownV6 : ownV4;
    if (own == null
        || proxyNh == null
        || own.length != proxyNh.length
        || Arrays.equals(own, proxyNh)
        || !Arrays.equals(
            p.bytes(), p.nextHopAt(), p.nextHopAt() + proxyNh.length, proxyNh, 0, proxyNh.length)) {
      // the same next hop, or not ours (an iBGP route keeps the next hop it came with, RFC 4271
      // §5.1.3)
      return p.bytes();
    }
    byte[] copy = p.bytes().clone();
    System.arraycopy(own, 0, copy, p.nextHopAt(), own.length);
    return copy;
  }

  /**
   * Drains one chunk of the group's Adj-RIB-Out and encodes it (it may give no UPDATE: a change
   * back to what the members have); null when nothing was pending. Only by the proxy role's holder,
   * without the group's lock.
   */
  private List<Packet> fill() {
    long v4 = proxyCounters.advertised(Family.IPV4_UNICAST);
    long v6 = proxyCounters.advertised(Family.IPV6_UNICAST);
    AdjRibOut.Batch batch = proxy.out().drain(Peer.DRAIN_CHUNK, key.families());
    if (batch.isEmpty()) {
      return null;
    }
    List<Update> updates = UpdatePacker.pack(batch, codec, families);
    List<Packet> out = new ArrayList<>(updates.size());
    int dv4 = (int) (proxyCounters.advertised(Family.IPV4_UNICAST) - v4);
    int dv6 = (int) (proxyCounters.advertised(Family.IPV6_UNICAST) - v6);
    for (int k = 0; k < updates.size(); k++) {
      byte[] bytes = codec.encode(updates.get(k));
      long at = nextHopAt(bytes);
      boolean last = k == updates.size() - 1;
      out.add(
          new Packet(bytes, (int) at, at >= 0 && at >>> 32 != 0, last ? dv4 : 0, last ? dv6 : 0));
    }
    return out;
  }

  /** Drops the packets every member has sent. */
  private void trim() {
    long min = end();
    for (Member m : members) {
      min = Math.min(min, m.cursor);
    }
    while (first < min) {
      packets.set(head++, null);
      first++;
    }
    if (head > 0 && head >= packets.size() / 2) {
      packets.subList(0, head).clear(); // amortised: at most as many moves as packets were dropped
      head = 0;
    }
  }

  /** The number the next packet queued will have. */
  private long end() {
    return first + queued();
  }

  private int queued() {
    return packets.size() - head;
  }

  private Packet at(long n) {
    return packets.get(head + (int) (n - first));
  }

  /**
   * The queue is full and {@code waiting} is at its end: the member furthest behind leaves if that
   * has lasted.
   */
  private void evictIfStuck(Member waiting) {
    long now = System.nanoTime();
    if (fullSince < 0) {
      fullSince = now;
      return;
    }
    if (now - fullSince < EVICT_AFTER_NANOS) {
      return;
    }
    Member slowest = null;
    for (Member m : members) {
      if (m != waiting && (slowest == null || m.cursor < slowest.cursor)) {
        slowest = m;
      }
    }
    if (slowest != null && slowest.cursor == first) {
      fullSince = -1;
      Member s = slowest;
      s.peer.loop.execute(
          () -> s.peer.grouping.leave(s.rp, "behind the group by " + MAX_PACKETS + " UPDATEs"));
    }
  }

  private void wakeAll() {
    for (Member m : members) {
      m.peer.drainLater();
    }
  }

  private Member member(RibPeer rp) {
    for (Member m : members) {
      if (m.rp == rp) {
        return m;
      }
    }
    return null;
  }

  /**
   * Where the next hop is in an encoded UPDATE (RFC 4271 §4.3): the value of NEXT_HOP (type 3), or
   * the next hop field of MP_REACH_NLRI (type 14, RFC 4760 §3: AFI, SAFI, its length, the next
   * hop); -1 when there is none. Bit 32 is set when it is MP_REACH_NLRI's of AFI 2 (IPv6).
   */
  static long nextHopAt(byte[] m) {
    int withdrawn = ((m[19] & 0xff) << 8) | (m[20] & 0xff);
    int at = 21 + withdrawn;
    int attrsLength = ((m[at] & 0xff) << 8) | (m[at + 1] & 0xff);
    at += 2;
    int end = at + attrsLength;
    while (at < end) {
      int flags = m[at] & 0xff;
      int type = m[at + 1] & 0xff;
      boolean extended = (flags & 0x10) != 0;
      int length = extended ? ((m[at + 2] & 0xff) << 8) | (m[at + 3] & 0xff) : m[at + 2] & 0xff;
      int value = at + (extended ? 4 : 3);
      if (type == 3) {
        return value;
      }
      if (type == 14) {
        int afi = ((m[value] & 0xff) << 8) | (m[value + 1] & 0xff);
        return (afi == 2 ? 1L << 32 : 0) | (value + 4);
      }
      at = value + length;
    }
    return -1;
  }

  /** A next hop as it is on the wire (RFC 4760 §3), or null. */
  static byte[] bytes(MpNextHop nh) {
    return nh == null ? null : nh.toBytes();
  }
}
