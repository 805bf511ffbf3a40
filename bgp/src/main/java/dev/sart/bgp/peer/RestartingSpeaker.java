package dev.sart.bgp.peer;

import dev.sart.bgp.rib.Rib;
import dev.sart.bgp.wire.Capability;
import dev.sart.bgp.wire.Family;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * RFC 4724 §4.1, the restarting speaker: the speaker's side of its own restart, one per speaker.
 *
 * <p>The OPENs it sends list every family of the peer with the Forwarding State bit when {@link
 * Settings#forwardingState} says the forwarding state is kept across a restart (§3: "whether the
 * forwarding state ... has indeed been preserved"): the kernel routes are not the speaker's, they
 * stay when it dies, and {@code sartd fib} keeps them until the speaker has its table again. Until
 * the restart is <em>complete</em> the OPENs also carry the Restart State bit (§3), and no session
 * sends anything (routes or End-of-RIB) from its Adj-RIB-Out: §4.1 defers route selection until the
 * peers' End-of-RIB; we let the RIB select as UPDATEs come and hold back what leaves it, so the
 * peers and the FIB ({@code WatchPath}'s end of the initial table, {@link #whenComplete}) see only
 * the selection made with everything back, which is what the deferral is for.
 *
 * <p>The restart is complete when (1) the locally originated paths are back: whoever originates
 * them says so ({@link #localPathsComplete}; in {@code sartd node} the agent after its first full
 * pass, which re-adds every Service's and block's path from the API server; {@code sartd bgp} after
 * reading its file), and (2) every configured peer is Established and has sent its End-of-RIB for
 * every family of the session, except the peers without the capability or with the Restart State
 * bit set themselves (§4.1: they are not waited for); or when the Selection_Deferral_Timer (§4.1,
 * {@link Settings#selectionDeferral}) expires, whatever is missing. The completion runs behind
 * everything queued on the RIB before it ({@link Rib#query}), so the routes of the last End-of-RIB
 * and of the last AddPath are in the Loc-RIB when it is announced.
 *
 * <p>Why a call from the agent and not a timer alone: only the agent knows when it has re-added
 * every path (it reads them from the API server); a timer long enough for a slow API server would
 * hold every restart that long, a short one would send End-of-RIB before the Services' paths are
 * back, and the ToRs would drop them (§4.2: the helper removes what is stale after the End-of-RIB).
 * The timer stays as the bound for an agent that never calls.
 */
public final class RestartingSpeaker {
  private static final Logger LOG = Logger.getLogger(RestartingSpeaker.class.getName());

  /**
   * @param forwardingState set the Forwarding State bit of every family (§3): the kernel routes
   *     installed from BGP are kept while the speaker restarts
   * @param selectionDeferral the Selection_Deferral_Timer (§4.1): the longest a restart waits for
   *     the peers' End-of-RIB and the local paths
   * @param awaitLocalPaths whether the restart waits for {@link #localPathsComplete} (an agent will
   *     call it); without, the local paths count as complete from the start
   */
  public record Settings(
      boolean forwardingState, Duration selectionDeferral, boolean awaitLocalPaths) {
    /** F bits set, 60 s of deferral, the local paths not awaited. */
    public static final Settings DEFAULT = new Settings(true, Duration.ofSeconds(60), false);

    public Settings {
      Objects.requireNonNull(selectionDeferral, "selectionDeferral");
      if (selectionDeferral.isNegative() || selectionDeferral.toSeconds() > 3600) {
        throw new IllegalArgumentException(
            "selection deferral time must be 0..3600 s: " + selectionDeferral.toSeconds());
      }
    }

    public Settings withAwaitLocalPaths(boolean await) {
      return new Settings(forwardingState, selectionDeferral, await);
    }
  }

  private final Settings settings;
  private final Rib rib;
  private final Supplier<Collection<Peer>> peers;
  private final long startedNanos = System.nanoTime();

  // guarded by this; callbacks run outside the lock
  private boolean localComplete;
  private boolean completing;
  private volatile boolean complete;
  private final List<Runnable> onComplete = new ArrayList<>();
  private ScheduledFuture<?> timer;

  /**
   * @param peers the speaker's configured peers now (any thread)
   */
  public RestartingSpeaker(Settings settings, Rib rib, Supplier<Collection<Peer>> peers) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.rib = rib;
    this.peers = peers;
    this.localComplete = !settings.awaitLocalPaths();
  }

  /** Starts the Selection_Deferral_Timer (when the speaker starts). */
  public void start(ScheduledExecutorService scheduler) {
    synchronized (this) {
      if (complete || completing) {
        return;
      }
      timer =
          scheduler.schedule(
              () -> {
                List<String> waiting = waitingFor();
                LOG.info(
                    () ->
                        "event=selection-deferral-expired after="
                            + settings.selectionDeferral().toSeconds()
                            + "s waiting-for="
                            + waiting);
                complete("selection deferral timer expired");
              },
              settings.selectionDeferral().toMillis(),
              TimeUnit.MILLISECONDS);
    }
    LOG.info(
        () ->
            "event=restart-started selection-deferral="
                + settings.selectionDeferral().toSeconds()
                + "s await-local-paths="
                + settings.awaitLocalPaths()
                + " forwarding-state="
                + settings.forwardingState());
  }

  public Settings settings() {
    return settings;
  }

  /** Whether the restart is over (any thread). */
  public boolean complete() {
    return complete;
  }

  /**
   * The graceful restart capability of our OPEN to {@code config}'s peer (§3): the restart time
   * configured for it, the Restart State bit until the restart is complete, RFC 8538's N bit if
   * configured, and every family with the Forwarding State bit as {@link Settings#forwardingState}
   * says.
   */
  Capability.GracefulRestart capability(PeerConfig config) {
    List<Capability.GracefulRestart.Entry> families = new ArrayList<>();
    for (Family f : config.families()) {
      families.add(
          new Capability.GracefulRestart.Entry(
              f, settings.forwardingState() ? Capability.GracefulRestart.FORWARDING_STATE : 0));
    }
    families.sort(
        java.util.Comparator.comparingInt(
            (Capability.GracefulRestart.Entry e) -> e.family().afi() * 256 + e.family().safi()));
    return new Capability.GracefulRestart(
        (config.gracefulRestart().notification() ? Capability.GracefulRestart.NOTIFICATION : 0)
            | (complete ? 0 : Capability.GracefulRestart.RESTART_STATE),
        (int) config.gracefulRestart().restartTime().toSeconds(),
        families);
  }

  /** Whoever originates paths has re-added them all (the agent's first full pass). */
  public void localPathsComplete() {
    synchronized (this) {
      if (localComplete) {
        return;
      }
      localComplete = true;
    }
    LOG.info(
        () ->
            "event=local-paths-complete after-ms="
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos));
    check();
  }

  /**
   * Runs {@code r} once the restart is complete, behind every RIB change queued before the
   * completion; at once (on the caller's thread) when it is complete already.
   */
  public void whenComplete(Runnable r) {
    synchronized (this) {
      if (!complete) {
        onComplete.add(r);
        return;
      }
    }
    r.run();
  }

  /** Something the completion depends on changed (a peer's state, its End-of-RIB, the peers). */
  void check() {
    synchronized (this) {
      if (complete || completing || !localComplete) {
        return;
      }
    }
    if (waitingFor().isEmpty()) {
      complete("every peer sent its End-of-RIB");
    }
  }

  /** The peers the restart still waits for, and "local paths" while they are not back. */
  public List<String> waitingFor() {
    List<String> out = new ArrayList<>();
    synchronized (this) {
      if (!localComplete) {
        out.add("local paths");
      }
    }
    for (Peer p : peers.get()) {
      if (!p.restartSynced()) {
        out.add(p.name());
      }
    }
    return out;
  }

  private void complete(String why) {
    synchronized (this) {
      if (complete || completing) {
        return;
      }
      completing = true;
      if (timer != null) {
        timer.cancel(false);
      }
    }
    // behind what the RIB has queued: the last End-of-RIB's routes, the last AddPath
    rib.query(v -> null)
        .thenRun(
            () -> {
              List<Runnable> run;
              synchronized (this) {
                complete = true;
                run = List.copyOf(onComplete);
                onComplete.clear();
              }
              LOG.info(
                  () ->
                      "event=restart-complete reason=\""
                          + why
                          + "\" after-ms="
                          + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos));
              run.forEach(Runnable::run);
              for (Peer p : peers.get()) {
                p.drainLater(); // what was held back goes out, End-of-RIB last
              }
            });
  }

  /**
   * The families whose End-of-RIB a session of this restart waits for (§4.1): none when the peer
   * sent no capability or set its own Restart State bit.
   */
  static Set<Family> awaitedEndOfRib(Set<Family> families, Capability.GracefulRestart received) {
    if (received == null || received.restarting()) {
      return Set.of();
    }
    return Set.copyOf(families);
  }

  /** A peer's session became Established (it may have been the last one waited for). */
  public void peerEstablished() {
    check();
  }

  /** A peer was deleted (it may have been the last one waited for). */
  public void peerRemoved() {
    check();
  }
}
