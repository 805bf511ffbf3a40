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
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The streaming watches. Events are produced on the RIB's shard threads or peer loops and must
 * never block them: each subscriber has its own queue drained by a virtual thread that writes to
 * the stream.
 */
final class Watches {
  private Watches() {}

  static void peerStates(BgpServer server, StreamObserver<PeerStateEvent> out) {
    BlockingQueue<PeerStateEvent> q = new LinkedBlockingQueue<>();
    // the event carries the state of the transition, not whatever the peer has moved on to by now
    BgpServer.PeerStateListener l =
        (peer, from, to) ->
            q.add(
                PeerStateEvent.newBuilder()
                    .setPeer(ProtoMapping.peer(peer).toBuilder().setState(ProtoMapping.state(to)))
                    .setPrevious(ProtoMapping.state(from))
                    .build());
    // the current state of every peer first, then the changes: a subscriber never misses one and
    // never sees an older state after a newer one (it may see a state twice)
    server.addListener(
        l,
        p -> {
          dev.sart.proto.v1.Peer now = ProtoMapping.peer(p);
          q.add(PeerStateEvent.newBuilder().setPeer(now).setPrevious(now.getState()).build());
        });
    pump(q, out, () -> server.removeListener(l));
  }

  static void paths(BgpServer server, Family family, StreamObserver<PathEvent> out) {
    BlockingQueue<PathEvent> q = new LinkedBlockingQueue<>();
    RibListener changes =
        (prefix, selection) -> {
          if (prefix.family().equals(family)) {
            q.add(event(prefix, selection, false));
          }
        };
    server
        .rib()
        .subscribe(
            (prefix, selection) -> {
              if (prefix.family().equals(family)) {
                q.add(event(prefix, selection, true));
              }
            },
            // while the speaker restarts (RFC 4724 §4.1) the table is not whole: its end is
            // marked once the restart is complete, behind the changes that completed it, so the
            // FIB replaces its routes (installed before the restart) only then
            () ->
                server.whenRestartComplete(
                    () ->
                        q.add(
                            PathEvent.newBuilder()
                                .setFamily(ProtoMapping.family(family))
                                .setEndOfInitial(true)
                                .build())),
            changes);
    pump(q, out, () -> server.rib().removeListener(changes));
  }

  private static PathEvent event(Prefix prefix, BestPath.Selection s, boolean initial) {
    PathEvent.Builder b =
        PathEvent.newBuilder()
            .setPrefix(prefix.toString())
            .setFamily(ProtoMapping.family(prefix.family()))
            .setInitial(initial)
            .setReason(s.reason().name().toLowerCase(java.util.Locale.ROOT));
    for (int i = 0; i < s.selected().size(); i++) {
      b.addSelected(ProtoMapping.path(prefix, s.selected().get(i), i == 0));
    }
    return b.build();
  }

  private static <T> void pump(BlockingQueue<T> q, StreamObserver<T> out, Runnable unsubscribe) {
    ServerCallStreamObserver<T> call = (ServerCallStreamObserver<T>) out;
    Thread writer =
        Thread.ofVirtual()
            .name("watch")
            .start(
                () -> {
                  try {
                    while (!call.isCancelled()) {
                      T event = q.take();
                      synchronized (call) {
                        call.onNext(event);
                      }
                    }
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
