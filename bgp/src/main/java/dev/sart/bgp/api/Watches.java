package dev.sart.bgp.api;

import dev.sart.bgp.rib.BestPath;
import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.rib.RibListener;
import dev.sart.bgp.server.BgpServer;
import dev.sart.bgp.wire.Family;
import dev.sart.proto.v1.PathEvent;
import dev.sart.proto.v1.PeerStateEvent;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;

/**
 * The streaming watches. Events are produced on the RIB's shard threads or peer loops and must
 * never block them (nor cost them more than queueing): each subscriber has its own {@link
 * WatchQueue} (one event per prefix or peer, coalesced), drained by a virtual thread that makes the
 * messages and writes them to the stream only while gRPC's flow control says it is ready.
 */
final class Watches {
  private Watches() {}

  static void peerStates(BgpServer server, StreamObserver<PeerStateEvent> out) {
    // per peer: a newer state replaces one not yet sent, which keeps its "previous" (a client that
    // does not read sees where the peer went from, and where it is, not every step between)
    WatchQueue<String, PeerStateEvent> q =
        new WatchQueue<>(
            (waiting, newer) -> newer.toBuilder().setPrevious(waiting.getPrevious()).build());
    // the event carries the state of the transition, not whatever the peer has moved on to by now
    BgpServer.PeerStateListener l =
        (peer, from, to) ->
            q.put(
                peer.config().address().getHostAddress(),
                PeerStateEvent.newBuilder()
                    .setPeer(ProtoMapping.peer(peer).toBuilder().setState(ProtoMapping.state(to)))
                    .setPrevious(ProtoMapping.state(from))
                    .build());
    ServerCallStreamObserver<PeerStateEvent> call = (ServerCallStreamObserver<PeerStateEvent>) out;
    call.setOnReadyHandler(q::onReady);
    // the current state of every peer, then the changes: a subscriber never misses one and never
    // sees an older state after a newer one (it may see a state twice). A change may reach l
    // before the peer is read here: its event, waiting (nothing is written before pump), stays
    server.addListener(
        l,
        p -> {
          dev.sart.proto.v1.Peer now = ProtoMapping.peer(p);
          q.putIfAbsent(
              p.config().address().getHostAddress(),
              PeerStateEvent.newBuilder().setPeer(now).setPrevious(now.getState()).build());
        });
    pump(q, call, e -> e, () -> server.removeListener(l));
  }

  /** The key of the end-of-initial marker in a paths queue (no prefix is equal to it). */
  private static final Object END_OF_INITIAL = new Object();

  /**
   * What a paths queue holds: a prefix's selection as the RIB made it (immutable: a record of
   * records and immutable lists), or the end-of-initial marker. The RIB shard's thread only queues
   * it; the message (prefixes and addresses as text, every path's attributes) is made by the
   * writer, and not at all for a selection that a newer one replaced while it waited.
   */
  private sealed interface Queued {}

  private record Change(Prefix prefix, BestPath.Selection selection, boolean initial)
      implements Queued {}

  private record EndOfInitial(Family family) implements Queued {}

  static void paths(BgpServer server, Family family, StreamObserver<PathEvent> out) {
    // per prefix: its newest selection replaces one not yet sent
    WatchQueue<Object, Queued> q = new WatchQueue<>((waiting, newer) -> newer);
    ServerCallStreamObserver<PathEvent> call = (ServerCallStreamObserver<PathEvent>) out;
    call.setOnReadyHandler(q::onReady);
    RibListener changes =
        (prefix, selection) -> {
          if (prefix.family().equals(family)) {
            q.put(prefix, new Change(prefix, selection, false));
          }
        };
    server
        .rib()
        .subscribe(
            (prefix, selection) -> {
              if (prefix.family().equals(family)) {
                q.put(prefix, new Change(prefix, selection, true));
              }
            },
            // while the speaker restarts (RFC 4724 §4.1) the table is not whole: its end is
            // marked once the restart is complete, behind the changes that completed it, so the
            // FIB replaces its routes (installed before the restart) only then
            () -> server.whenRestartComplete(() -> q.put(END_OF_INITIAL, new EndOfInitial(family))),
            changes);
    pump(q, call, Watches::event, () -> server.rib().removeListener(changes));
  }

  private static PathEvent event(Queued queued) {
    return switch (queued) {
      case EndOfInitial(Family family) ->
          PathEvent.newBuilder()
              .setFamily(ProtoMapping.family(family))
              .setEndOfInitial(true)
              .build();
      case Change(Prefix prefix, BestPath.Selection s, boolean initial) -> {
        PathEvent.Builder b =
            PathEvent.newBuilder()
                .setPrefix(prefix.toString())
                .setFamily(ProtoMapping.family(prefix.family()))
                .setInitial(initial)
                .setReason(s.reason().name().toLowerCase(java.util.Locale.ROOT));
        for (int i = 0; i < s.selected().size(); i++) {
          b.addSelected(ProtoMapping.path(prefix, s.selected().get(i), i == 0));
        }
        yield b.build();
      }
    };
  }

  private static <K, T, M> void pump(
      WatchQueue<K, T> q,
      ServerCallStreamObserver<M> call,
      java.util.function.Function<? super T, ? extends M> message,
      Runnable unsubscribe) {
    Thread writer =
        Thread.ofVirtual()
            .name("watch")
            .start(
                () -> {
                  try {
                    q.pump(call, message);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  } catch (RuntimeException e) {
                    // the client went away
                  } finally {
                    unsubscribe.run();
                  }
                });
    call.setOnCancelHandler(
        () -> {
          unsubscribe.run();
          writer.interrupt();
        });
  }
}
