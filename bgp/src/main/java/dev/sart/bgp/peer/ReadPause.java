package dev.sart.bgp.peer;

import io.netty.channel.Channel;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Read back-pressure: the RIB is behind by more than its high-water mark, so this connection stops
 * reading (auto-read off; the kernel's receive buffer fills and TCP's window stops the peer) until
 * the RIB's queue is below the low-water mark. Without it the queue grew without bound, and with it
 * the heap.
 *
 * <p>Our hold timer (RFC 4271 §4.4, §6.5) is about the peer: it expires when no KEEPALIVE, UPDATE
 * or NOTIFICATION has been <em>received</em> for the hold time. While we do not read, the peer's
 * messages wait in our socket buffer and their absence says nothing about the peer, so the time
 * paused does not count: on expiry, the timer runs again for as long as reading was paused within
 * its period ({@code Connection}'s HOLD timer). The peer's side is the mirror image: RFC 9687's
 * send hold timer closes a session when the peer cannot send for its SendHoldTime (at least 8
 * minutes or twice the hold time, §4), and RFC 4271 §4.4 wants our KEEPALIVEs to keep flowing,
 * which they do (only reading stops). So that the peer never waits long, one pause lasts at most
 * {@link Peer#MAX_READ_PAUSE}: then reading resumes until the next UPDATE finds the RIB still
 * behind, and the peer's data trickles rather than stopping.
 */
final class ReadPause {
  private static final Logger LOG = Logger.getLogger(Peer.class.getName());

  private final Peer peer;

  /** The channel whose reading is paused, or null. */
  private Channel paused;

  private long sinceNanos;

  /** Time reading was paused since the hold timer was last started. */
  private long pausedNanos;

  private ScheduledFuture<?> cap;

  ReadPause(Peer peer) {
    this.peer = peer;
  }

  /** Stops reading {@code ch} (the connection's channel, or null) unless paused already. */
  void pause(Channel ch) {
    if (paused != null || ch == null) {
      return;
    }
    paused = ch;
    sinceNanos = System.nanoTime();
    ch.config().setAutoRead(false);
    cap =
        peer.loop.schedule(() -> resume(ch), Peer.MAX_READ_PAUSE.toMillis(), TimeUnit.MILLISECONDS);
    peer.speaker.rib().whenBelowLowWater(() -> peer.loop.execute(() -> resume(ch)));
    LOG.fine(
        () ->
            "peer="
                + peer.name()
                + " event=read-paused rib-queued="
                + peer.speaker.rib().queuedPrefixes());
  }

  private void resume(Channel ch) {
    if (paused != ch) {
      return; // resumed already, or the connection has another channel (end() ran)
    }
    end();
    ch.config().setAutoRead(true);
  }

  /** Ends a pause (if any), keeping the time paused for the hold timer. */
  void end() {
    if (paused != null) {
      pausedNanos += System.nanoTime() - sinceNanos;
      paused = null;
    }
    if (cap != null) {
      cap.cancel(false);
      cap = null;
    }
  }

  /** A new hold period: only the pauses within it count from now on. */
  void holdPeriodStarted() {
    pausedNanos = 0;
    sinceNanos = System.nanoTime();
  }

  /** How long reading was paused in the current hold period, a pause still running included. */
  long pausedNanos() {
    return pausedNanos + (paused != null ? System.nanoTime() - sinceNanos : 0);
  }
}
