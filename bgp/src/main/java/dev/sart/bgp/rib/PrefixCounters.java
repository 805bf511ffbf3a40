package dev.sart.bgp.rib;

import dev.sart.bgp.wire.Family;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * How many prefixes one peer has in its Adj-RIB-In and Adj-RIB-Out, per family, for the API and
 * metrics. It outlives sessions: the RIB adds and removes as paths come and go (a session going
 * down removes all of them), so the counts fall to 0 without a reset.
 *
 * <p>Each count has one writer per slot: received and accepted are kept per RIB shard (each shard
 * writes its own slot, and a reader adds the slots up), advertised by the peer's event loop.
 * Writers use plain increments published with release semantics (no atomic read-modify-write on the
 * route path); readers may be on any thread.
 */
public final class PrefixCounters {
  /** The families counted apart; every other one is counted as {@link #OTHER}. */
  private static final int IPV4 = 0;

  private static final int IPV6 = 1;
  private static final int OTHER = 2;

  /** Received in the shard's slots 0-2, accepted in 3-5. */
  private final ShardCounts perShard = new ShardCounts();

  private final AtomicLongArray advertised = new AtomicLongArray(3);

  private static int index(Family f) {
    if (f.equals(Family.IPV4_UNICAST)) {
      return IPV4;
    }
    return f.equals(Family.IPV6_UNICAST) ? IPV6 : OTHER;
  }

  private static void add(AtomicLongArray a, Family f, long delta) {
    int i = index(f);
    a.setRelease(i, a.getPlain(i) + delta);
  }

  private static long get(AtomicLongArray a, Family f) {
    return a.getAcquire(index(f));
  }

  /**
   * Prefixes the peer sent us that it has not withdrawn (its Adj-RIB-In before policy), including
   * those we rejected (an AS_PATH loop).
   */
  public long received(Family f) {
    return perShard.sum(index(f));
  }

  /** Of the received prefixes, those that are candidates for the Loc-RIB (RFC 4271 §9.1.2). */
  public long accepted(Family f) {
    return perShard.sum(3 + index(f));
  }

  /** Prefixes currently advertised to the peer (its Adj-RIB-Out as sent). */
  public long advertised(Family f) {
    return get(advertised, f);
  }

  // --- RIB shard threads, each in its own slot ---------------------------------------------------

  void received(int shard, Family f, long delta) {
    perShard.add(shard, index(f), delta);
  }

  void accepted(int shard, Family f, long delta) {
    perShard.add(shard, 3 + index(f), delta);
  }

  // --- the peer's event loop --------------------------------------------------------------------

  /**
   * {@code delta} more prefixes of {@code f} advertised (also for a member of an update group, by
   * its peer).
   */
  public void advertised(Family f, long delta) {
    add(advertised, f, delta);
  }

  /** The Adj-RIB-Out was dropped with its session: nothing is advertised any more. */
  public void clearAdvertised() {
    for (int i = 0; i < advertised.length(); i++) {
      advertised.setRelease(i, 0);
    }
  }
}
