package dev.sart.agent.bgp;

import dev.sart.proto.v1.Peer;
import dev.sart.proto.v1.PeerStateEvent;
import io.grpc.stub.StreamObserver;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * The session states of the speaker's peers, kept up to date by its WatchPeerState stream (no
 * polling). The stream ending or failing means the speaker went away (stopped, restarted,
 * unreachable): the states are forgotten and the owner is told, so that it re-applies everything.
 */
final class PeerWatch implements StreamObserver<PeerStateEvent> {
  private static final Logger LOG = Logger.getLogger(PeerWatch.class.getName());

  private final Map<String, Peer.State> states = new ConcurrentHashMap<>();
  private final Runnable changed;
  private volatile boolean open = true;

  PeerWatch(Runnable changed) {
    this.changed = changed;
  }

  /**
   * The last state the speaker reported for the peer at {@code address}, or null before its first
   * report.
   */
  Peer.State state(String address) {
    return states.get(address);
  }

  boolean established(String address) {
    return states.get(address) == Peer.State.ESTABLISHED;
  }

  /** Drops a deleted peer's state (a re-created one starts unreported). */
  void forget(String address) {
    states.remove(address);
  }

  /** False once the stream has ended: a new watch is needed. */
  boolean open() {
    return open;
  }

  @Override
  public void onNext(PeerStateEvent e) {
    Peer.State old = states.put(PeerReconciler.key(e.getPeer()), e.getPeer().getState());
    if (old != e.getPeer().getState()) {
      LOG.fine(
          () ->
              "event=peer-state peer="
                  + PeerReconciler.key(e.getPeer())
                  + " state="
                  + e.getPeer().getState());
      changed.run();
    }
  }

  @Override
  public void onError(Throwable t) {
    LOG.info(() -> "event=peer-watch-ended reason=\"" + t.getMessage() + "\"");
    end();
  }

  @Override
  public void onCompleted() {
    LOG.info("event=peer-watch-ended reason=completed");
    end();
  }

  private void end() {
    open = false;
    states.clear();
    changed.run();
  }
}
