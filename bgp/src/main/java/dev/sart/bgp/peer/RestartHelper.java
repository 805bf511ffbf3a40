package dev.sart.bgp.peer;

import dev.sart.bgp.fsm.State;
import dev.sart.bgp.rib.RibPeer;
import dev.sart.bgp.wire.Capability;
import dev.sart.bgp.wire.Family;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * RFC 4724 §4.2, the receiving speaker ("helper") for one peer: the routes of its session that
 * ended without a NOTIFICATION stay, stale, until the new session has sent them again (its
 * End-of-RIB), the peer's restart time passed without a new session, or {@link #STALE_TIME} passed
 * without the End-of-RIB. Everything here runs on the peer's event loop.
 */
final class RestartHelper {
  /** The peer's logger: the log lines keep the name operators and tests filter on. */
  private static final Logger LOG = Logger.getLogger(Peer.class.getName());

  private final Peer peer;

  /** The session whose routes are kept stale while the peer restarts; null: none. */
  RibPeer session;

  // written on the loop; read by the metrics
  private volatile java.util.Set<Family> staleFamilies = java.util.Set.of();

  java.util.Set<Family> staleFamilies() {
    return staleFamilies;
  }

  private java.util.concurrent.ScheduledFuture<?> staleTimer;

  /** The restart time of the session in {@link #session}. */
  private Duration restartTime = Duration.ZERO;

  RestartHelper(Peer peer) {
    this.peer = peer;
  }

  /**
   * How long the routes of a restarted peer stay stale once its new session is up, at most, if its
   * End-of-RIB does not come (FRR's {@code stalepath-time} default; RFC 4724 §4.2 leaves it to the
   * implementation).
   */
  static final Duration STALE_TIME = Duration.ofSeconds(360);

  /**
   * RFC 4724 §4.2: the session {@code old} ended without a NOTIFICATION (its TCP connection failed)
   * and the peer had sent the graceful restart capability: its routes of the families in that
   * capability are kept, stale, with best paths and FIB unchanged, for the peer's restart time;
   * then they go unless a new session is up.
   */
  void restarting(RibPeer old, Capability.GracefulRestart gr) {
    java.util.Set<Family> keep = new java.util.HashSet<>();
    for (Capability.GracefulRestart.Entry e : gr.families()) {
      if (old.families().contains(e.family())) {
        keep.add(e.family());
      }
    }
    if (session != null && session != old) {
      flushStale(); // it restarted again before the session before had sent everything again
    }
    peer.speaker.rib().peerRestarting(old, keep);
    if (!keep.isEmpty()) {
      keep(old, keep, Duration.ofSeconds(gr.restartTime()));
    }
  }

  /**
   * The routes of {@code old} of {@code families}, stale already, stay until a new session is up or
   * {@code wait} has passed.
   */
  private void keep(RibPeer old, java.util.Set<Family> families, Duration wait) {
    cancelStaleTimer();
    session = old;
    staleFamilies = families;
    restartTime = wait;
    LOG.info(
        () ->
            "peer="
                + peer.name()
                + " event=graceful-restart-helper families="
                + families
                + " restart-time="
                + wait.toSeconds()
                + "s");
    staleTimer =
        peer.loop.schedule(
            () -> {
              if (session == old && peer.state != State.ESTABLISHED) {
                LOG.info(() -> "peer=" + peer.name() + " event=restart-time-expired");
                flushStale();
              }
            },
            wait.toMillis(),
            TimeUnit.MILLISECONDS);
  }

  /**
   * What is kept, for the peer that replaces this one ({@link Peer#stopForChange}); this helper
   * forgets it without withdrawing it. Null: nothing is kept.
   */
  Peer.StaleRoutes handOver() {
    RibPeer old = session;
    if (old == null) {
      return null;
    }
    cancelStaleTimer();
    Peer.StaleRoutes kept = new Peer.StaleRoutes(old, staleFamilies, restartTime);
    session = null;
    staleFamilies = java.util.Set.of();
    return kept;
  }

  /**
   * The routes the peer this one replaced kept ({@link Peer#adopt}): kept on here as the routes of
   * a restarting session, or withdrawn at once when this neighbour's configuration is no helper.
   */
  void adopt(Peer.StaleRoutes kept) {
    if (session != null) {
      flushStale();
    }
    if (peer.config.gracefulRestart().helper()) {
      keep(kept.session(), kept.families(), kept.restartTime());
    } else {
      peer.speaker.rib().flushStale(kept.session(), null);
    }
  }

  /**
   * A new session came up while routes of the one before are stale: RFC 4724 §4.2, a family the new
   * OPEN's capability does not list with its Forwarding State bit set loses its stale routes at
   * once; the others wait for the End-of-RIB, at most {@link #STALE_TIME}.
   */
  void restartedSessionUp(Capability.GracefulRestart gr) {
    RibPeer old = session;
    if (old == null) {
      return;
    }
    cancelStaleTimer();
    java.util.Set<Family> preserved = new java.util.HashSet<>();
    if (gr != null) {
      for (Capability.GracefulRestart.Entry e : gr.families()) {
        if (e.forwardingPreserved()) {
          preserved.add(e.family());
        }
      }
    }
    java.util.Set<Family> keep = new java.util.HashSet<>();
    for (Family f : staleFamilies) {
      if (preserved.contains(f)) {
        keep.add(f);
      } else {
        peer.speaker.rib().flushStale(old, f);
      }
    }
    staleFamilies = keep;
    boolean restartState =
        gr != null && (gr.restartFlags() & Capability.GracefulRestart.RESTART_STATE) != 0;
    LOG.info(
        () ->
            "peer="
                + peer.name()
                + " event=graceful-restart-peer-back restart-state="
                + restartState
                + " stale-until-end-of-rib="
                + keep);
    if (keep.isEmpty()) {
      flushStale();
      return;
    }
    staleTimer =
        peer.loop.schedule(
            () -> {
              if (session == old) {
                LOG.info(() -> "peer=" + peer.name() + " event=stale-time-expired");
                flushStale();
              }
            },
            STALE_TIME.toMillis(),
            TimeUnit.MILLISECONDS);
  }

  /** The restarted peer's End-of-RIB of {@code f} (RFC 4724 §4.2): its stale routes of f go. */
  void endOfRib(Family f) {
    RibPeer old = session;
    if (old == null || !staleFamilies.contains(f)) {
      return;
    }
    java.util.Set<Family> left = new java.util.HashSet<>(staleFamilies);
    left.remove(f);
    staleFamilies = left;
    LOG.info(() -> "peer=" + peer.name() + " event=end-of-rib family=" + f);
    if (left.isEmpty()) {
      flushStale();
    } else {
      peer.speaker.rib().flushStale(old, f);
    }
  }

  /** Every stale route of the restarting session goes, and the helper's state with it. */
  void flushStale() {
    RibPeer old = session;
    cancelStaleTimer();
    if (old != null) {
      session = null;
      staleFamilies = java.util.Set.of();
      peer.speaker.rib().flushStale(old, null);
    }
  }

  private void cancelStaleTimer() {
    if (staleTimer != null) {
      staleTimer.cancel(false);
      staleTimer = null;
    }
  }
}
