package dev.sart.bgp.rib;

import dev.sart.bgp.policy.PeerPolicy;
import dev.sart.bgp.wire.Family;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Adj-RIBs-In, Loc-RIB and the feeding of the Adj-RIBs-Out, split into {@link RibShard shards} by
 * prefix: each shard is owned by one thread and fed by a queue, so nothing on the route path takes
 * a lock, and the shards work on different prefixes at the same time. An UPDATE is split by shard;
 * what concerns a peer as a whole (it came up, went down, changed policy) goes to every shard in
 * the same order; queries and subscriptions see every shard at one instant: each shard stops at a
 * barrier, the query runs, and they go on ({@link #acrossShards}).
 *
 * <p>The number of shards is {@code -Dsart.bgp.rib.shards}, by default {@link #defaultShards}.
 */
public final class Rib implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(Rib.class.getName());

  /** The most shards a RIB can have (per-shard counter slots are sized for it). */
  public static final int MAX_SHARDS = 8;

  private final RibShard[] shards;

  /** Read by the shards on every change of a selection. */
  final List<RibListener> listeners = new CopyOnWriteArrayList<>();

  /**
   * Held while a task is put on every shard's queue, so all shards see such tasks in one order
   * (barriers of two cross-shard tasks can never wait on each other).
   */
  private final Object broadcast = new Object();

  private volatile boolean closed;

  /**
   * Prefixes in UPDATE tasks not yet run: what read back-pressure ({@link #overHighWater}) looks
   * at.
   */
  private final IngestBacklog ingest = new IngestBacklog();

  public Rib() {
    this(
        Integer.getInteger(
            "sart.bgp.rib.shards", defaultShards(Runtime.getRuntime().availableProcessors())));
  }

  /**
   * One shard up to 3 CPUs, then one per two CPUs (at most {@link #MAX_SHARDS}): the speaker's I/O
   * threads, the JIT and the collector need CPUs too. On this project's 2-CPU machine, bgperf a and
   * b with sartd unpinned ran no faster with 2 shards than with 1 and used ~10 % more CPU
   * (bgp/docs/rib.md, "RIB shards"); more CPUs were not available to measure.
   */
  static int defaultShards(int cpus) {
    return cpus < 4 ? 1 : Math.min(cpus / 2, MAX_SHARDS);
  }

  /** A RIB of {@code shards} shards (clamped to 1..{@link #MAX_SHARDS}). */
  public Rib(int shards) {
    int n = Math.clamp(shards, 1, MAX_SHARDS);
    this.shards = new RibShard[n];
    for (int i = 0; i < n; i++) {
      this.shards[i] = new RibShard(this, i, n);
    }
  }

  public int shards() {
    return shards.length;
  }

  /** The shard that owns {@code p}: a hash of its own, independent of the tables' slot hash. */
  static int shardOf(Prefix p, int shards) {
    long h =
        (p.high() ^ Long.rotateLeft(p.low(), 29) ^ ((long) p.length() << 56)) * 0xBF58476D1CE4E5B9L;
    return (int) (((h >>> 32) * shards) >>> 32);
  }

  // --- how tasks reach the shards
  // ------------------------------------------------------------------

  /** Puts {@code task.apply(shard)} on every shard's queue. */
  private void everyShard(IntFunction<Runnable> task) {
    synchronized (broadcast) {
      for (RibShard s : shards) {
        s.submit(task.apply(s.index));
      }
    }
  }

  /**
   * Runs {@code once} while every shard waits: each shard finishes what was queued before, stops at
   * a barrier, {@code once} runs (on the last shard's thread) and may read and change any shard,
   * and then all go on. The barrier orders memory both ways.
   */
  private void acrossShards(Runnable once) {
    Runnable guarded =
        () -> {
          try {
            once.run();
          } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "RIB task failed", e);
          }
        };
    if (shards.length == 1) {
      shards[0].submit(guarded);
      return;
    }
    CyclicBarrier barrier = new CyclicBarrier(shards.length, guarded);
    everyShard(
        i ->
            () -> {
              try {
                barrier.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // closing
              } catch (BrokenBarrierException e) {
                // another shard was interrupted (closing)
              }
            });
  }

  /** Listeners are called on the shards' threads, concurrently for prefixes of different shards. */
  public void addListener(RibListener l) {
    listeners.add(l);
  }

  public void removeListener(RibListener l) {
    listeners.remove(l);
  }

  /**
   * Subscribes with every shard stopped: {@code initial} gets the current selection of every prefix
   * first, then {@code l} every change (on the shards' threads), with nothing lost or doubled in
   * between.
   */
  public void subscribe(RibListener initial, Runnable endOfInitial, RibListener l) {
    acrossShards(
        () -> {
          for (RibShard s : shards) {
            for (Destination d : s.table.values()) {
              if (d.hasSelection()) {
                initial.selectionChanged(d.prefix(), d.selection());
              }
            }
          }
          endOfInitial.run();
          listeners.add(l);
        });
  }

  /** Tasks waiting for the RIB's threads. */
  public int backlog() {
    int n = 0;
    for (RibShard s : shards) {
      n += s.backlog();
    }
    return n;
  }

  /** Prefixes (announced or withdrawn) in UPDATEs handed to the RIB and not processed yet. */
  public long queuedPrefixes() {
    return ingest.queued();
  }

  /**
   * Whether the RIB is behind by more than the high-water mark: peers then stop reading from their
   * sockets (TCP pushes back on the senders) until {@link #whenBelowLowWater} tells them to go on.
   */
  public boolean overHighWater() {
    return ingest.overHighWater();
  }

  /**
   * Runs {@code r} (on a RIB thread, or at once on the caller's) as soon as the prefixes queued are
   * at or below the low-water mark; {@code r} must be short (hand it to an event loop).
   */
  public void whenBelowLowWater(Runnable r) {
    ingest.whenBelowLowWater(r);
  }

  /**
   * The marks of {@link #overHighWater} and {@link #whenBelowLowWater}, in prefixes (low &lt;
   * high).
   */
  public void setBackPressure(long high, long low) {
    ingest.setMarks(high, low);
  }

  /** Runs {@code f} with every shard stopped and completes with its result. */
  public <T> CompletableFuture<T> query(Function<RibView, T> f) {
    CompletableFuture<T> result = new CompletableFuture<>();
    if (closed) {
      return result;
    }
    acrossShards(
        () -> {
          try {
            result.complete(f.apply(new RibView(shards)));
          } catch (RuntimeException e) {
            result.completeExceptionally(e);
          }
        });
    return result;
  }

  public void setLocalAs(long asn) {
    everyShard(i -> () -> shards[i].setLocalAs(asn));
  }

  /** Changes multipath options and re-runs the decision process for every prefix. */
  public void setOptions(BestPath.Options o) {
    everyShard(i -> () -> shards[i].setOptions(o));
  }

  /** A session reached Established: send it the table, then End-of-RIB. */
  public void peerUp(RibPeer peer) {
    peerUp(peer, PeerPolicy.NONE, null);
  }

  /**
   * A session reached Established with its policies: {@code handler} is told when it sends more
   * prefixes than its limit allows (null: nobody is told). End-of-RIB follows once every shard has
   * queued its part of the table (RFC 4724 §2).
   */
  public void peerUp(RibPeer peer, PeerPolicy policy, MaxPrefixHandler handler) {
    AdjRibIn.Limit limit = new AdjRibIn.Limit(handler);
    AtomicInteger left = new AtomicInteger(shards.length);
    everyShard(
        i ->
            () -> {
              shards[i].peerUp(peer, policy, limit);
              if (left.decrementAndGet() == 0) {
                peer.out().initialTableQueued();
              }
            });
  }

  /**
   * Runs {@code change} with every shard stopped (see {@link #acrossShards}), handing it the means
   * to move peers into and out of update groups: a group is a pseudo-peer (its <em>proxy</em>, with
   * an Adj-RIB-Out of its own) whose changes the shards record once for all its members. The caller
   * keeps the members' own Adj-RIB-Outs and the group's consistent (see the speaker's {@code
   * UpdateGroup}).
   */
  public void regroup(java.util.function.Consumer<Regrouping> change) {
    acrossShards(() -> change.accept(new Regrouping(shards)));
  }

  /** Sends the peer the whole table again (it asked with ROUTE-REFRESH, RFC 2918 §4). */
  public void resend(RibPeer peer) {
    resend(peer, null, false);
  }

  /**
   * Sends the peer the routes of {@code family} (null: all) again, even those it has had already
   * (RFC 2918 §4); with {@code endOfRefresh}, an EoRR follows them (RFC 7313 §4: the BoRR was sent
   * before this was asked) once every shard has queued its part.
   */
  public void resend(RibPeer peer, Family family, boolean endOfRefresh) {
    AtomicInteger left = new AtomicInteger(shards.length);
    AtomicBoolean up = new AtomicBoolean(true);
    everyShard(
        i ->
            () -> {
              if (!shards[i].refresh.resend(peer, family)) {
                up.set(false);
              }
              if (left.decrementAndGet() == 0 && endOfRefresh && family != null && up.get()) {
                peer.out().endOfRefreshQueued(family);
              }
            });
  }

  /**
   * Changes a peer's policies while it is up. A changed export policy is applied to the whole table
   * at once (what no longer passes is withdrawn). A changed import policy is applied to the routes
   * as received when they are kept (soft reconfiguration inbound); otherwise the caller asks the
   * peer to send them again (ROUTE-REFRESH, RFC 2918), and they pass the new policy as they come. A
   * changed max-prefix limit may be reported again. Runs with every shard stopped (it is rare).
   */
  public void setPolicy(RibPeer peer, PeerPolicy policy) {
    acrossShards(
        () -> {
          AdjRibIn st = shards[0].adjRibsIn.get(peer);
          if (st == null) {
            return;
          }
          if (!Objects.equals(st.policy.maxPrefix(), policy.maxPrefix())) {
            st.limit.reset();
          }
          for (RibShard s : shards) {
            s.refresh.setPolicy(peer, policy);
          }
        });
  }

  /**
   * RFC 7313 §4: the peer sent a BoRR: its routes of {@code family} are stale until it sends them
   * again; those it has not sent again by its EoRR go ({@link #endOfRefresh}).
   */
  public void beginningOfRefresh(RibPeer peer, Family family) {
    everyShard(i -> () -> shards[i].refresh.beginningOfRefresh(peer, family));
  }

  /** RFC 7313 §4: the peer sent an EoRR: its routes of {@code family} still stale are removed. */
  public void endOfRefresh(RibPeer peer, Family family) {
    AtomicInteger left = new AtomicInteger(shards.length);
    AtomicInteger removed = new AtomicInteger();
    everyShard(
        i ->
            () -> {
              removed.addAndGet(shards[i].refresh.endOfRefresh(peer, family));
              if (left.decrementAndGet() == 0 && removed.get() > 0) {
                LOG.fine(
                    () ->
                        "peer="
                            + peer
                            + " event=stale-routes-removed family="
                            + family
                            + " count="
                            + removed.get());
              }
            });
  }

  /**
   * RFC 4724 §4.2, the Receiving Speaker: the session of a peer that can restart gracefully ended
   * (its TCP connection failed, no NOTIFICATION): its paths of {@code keep} (the families of its
   * graceful restart capability) stay, marked stale, with the best paths and the FIB unchanged; the
   * others go as with {@link #peerDown}. The peer's next session ({@link #peerUp} with the same
   * address) replaces them as it sends them again; {@link #flushStale} removes what is left.
   */
  public void peerRestarting(RibPeer old, Set<Family> keep) {
    Set<Family> k = Set.copyOf(keep);
    if (!k.isEmpty()) {
      stale.add(old);
    }
    everyShard(i -> () -> shards[i].restart.peerRestarting(old, k));
  }

  /**
   * The stale paths of {@code old} of {@code family} go (null: of every family, and {@code old} is
   * no longer restarting): after the new session's End-of-RIB, or when the restart or stale time
   * ran out (RFC 4724 §4.2).
   */
  public void flushStale(RibPeer old, Family family) {
    AtomicInteger left = new AtomicInteger(shards.length);
    AtomicInteger removed = new AtomicInteger();
    everyShard(
        i ->
            () -> {
              removed.addAndGet(shards[i].restart.flushStale(old, family));
              if (left.decrementAndGet() == 0) {
                if (family == null) {
                  stale.remove(old);
                }
                LOG.info(
                    () ->
                        "peer="
                            + old
                            + " event=stale-routes-removed family="
                            + (family == null ? "all" : family)
                            + " count="
                            + removed.get());
              }
            });
  }

  /** Whether {@code p} is a stale path of a restarting peer (RFC 4724 §4.2); any thread. */
  public boolean isStale(Path p) {
    return !stale.isEmpty() && stale.contains(p.source());
  }

  private final Set<RibPeer> stale = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /** A session left Established: its paths go (RFC 4271 §8.2.2 "deletes all routes"). */
  public void peerDown(RibPeer peer) {
    everyShard(i -> () -> shards[i].peerDown(peer));
  }

  /**
   * What one UPDATE said: {@code withdrawn} are gone, {@code announced} reachable with {@code
   * attrs} (which may be null when nothing is announced). Paths whose AS_PATH holds our own AS are
   * loops and count as withdrawn (RFC 4271 §9.1.2). Split by shard; each part keeps the UPDATE's
   * order.
   *
   * <p>The speaker's callers pass {@code ArrayList}s, empty ones included, never {@code List.of()}:
   * the JIT compiles the shard's loop over these lists for the one class it has seen, and the first
   * UPDATE after a full table with the other class (the first withdrawal, in bgperf d) deoptimised
   * it. One class throughout: withdraw 10 % 0.38 s against 0.50 s, four runs each
   * (testbed/perf/LOG.md, "fewer deoptimisations at the first withdrawal").
   */
  public void update(
      RibPeer from,
      List<Prefix> withdrawn,
      int[] withdrawnPathIds,
      List<Prefix> announced,
      int[] announcedPathIds,
      Attrs attrs) {
    if (closed) {
      return;
    }
    ingest.added((long) withdrawn.size() + announced.size());
    if (shards.length == 1) {
      submitPart(shards[0], from, withdrawn, withdrawnPathIds, announced, announcedPathIds, attrs);
      return;
    }
    Part[] parts = new Part[shards.length];
    for (int i = 0; i < withdrawn.size(); i++) {
      Prefix p = withdrawn.get(i);
      part(parts, p).withdrawn.add(p, withdrawnPathIds == null ? -1 : withdrawnPathIds[i]);
    }
    for (int i = 0; i < announced.size(); i++) {
      Prefix p = announced.get(i);
      part(parts, p).announced.add(p, announcedPathIds == null ? -1 : announcedPathIds[i]);
    }
    for (int s = 0; s < parts.length; s++) {
      Part part = parts[s];
      if (part != null) {
        submitPart(
            shards[s],
            from,
            part.withdrawn.prefixes,
            part.withdrawn.ids(withdrawnPathIds != null),
            part.announced.prefixes,
            part.announced.ids(announcedPathIds != null),
            attrs);
      }
    }
  }

  private void submitPart(
      RibShard shard,
      RibPeer from,
      List<Prefix> withdrawn,
      int[] withdrawnPathIds,
      List<Prefix> announced,
      int[] announcedPathIds,
      Attrs attrs) {
    long n = (long) withdrawn.size() + announced.size();
    shard.submit(
        () -> {
          try {
            shard.apply(from, withdrawn, withdrawnPathIds, announced, announcedPathIds, attrs);
          } finally {
            ingest.processed(n);
          }
        });
  }

  private Part part(Part[] parts, Prefix p) {
    int s = shardOf(p, parts.length);
    Part part = parts[s];
    if (part == null) {
      parts[s] = part = new Part();
    }
    return part;
  }

  /** One shard's share of an UPDATE. */
  private static final class Part {
    final Prefixes withdrawn = new Prefixes();
    final Prefixes announced = new Prefixes();
  }

  /** Prefixes with their path ids (ADD-PATH, RFC 7911), in order. */
  private static final class Prefixes {
    final List<Prefix> prefixes = new ArrayList<>();
    private int[] ids = new int[8];

    void add(Prefix p, int id) {
      if (prefixes.size() == ids.length) {
        ids = Arrays.copyOf(ids, ids.length * 2);
      }
      ids[prefixes.size()] = id;
      prefixes.add(p);
    }

    int[] ids(boolean any) {
      return any ? Arrays.copyOf(ids, prefixes.size()) : null;
    }
  }

  /** Our own routes (the API's AddPath): announced to every peer the export rules allow. */
  public void originate(List<Prefix> prefixes, Attrs attrs) {
    update(RibPeer.LOCAL, new ArrayList<>(0), null, new ArrayList<>(prefixes), null, attrs);
  }

  public void withdrawLocal(List<Prefix> prefixes) {
    update(RibPeer.LOCAL, new ArrayList<>(prefixes), null, new ArrayList<>(0), null, null);
  }

  /** Drops every locally originated path (ClearBgpInfo). */
  public void clearLocal() {
    peerDown(RibPeer.LOCAL);
  }

  @Override
  public void close() {
    closed = true;
    for (RibShard s : shards) {
      s.close();
    }
  }
}
