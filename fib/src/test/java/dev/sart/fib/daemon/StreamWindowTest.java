package dev.sart.fib.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sart.proto.v1.BgpApiGrpc;
import dev.sart.proto.v1.PathEvent;
import dev.sart.proto.v1.WatchPathRequest;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The FIB reads the speaker's paths with {@code StreamWindow}: in order, all of them, the stream's
 * error as the blocking stub gives it, and never more than its window ahead of the reader (the
 * server's flow control over grpc-java's in-process transport, where sartd node's FIB meets its
 * speaker).
 */
class StreamWindowTest {
  private static final int WINDOW = 8;

  /**
   * A speaker that sends {@code count} paths while the stream is ready, then ends with {@code end}.
   */
  private static final class Api extends BgpApiGrpc.BgpApiImplBase {
    final int count;
    final Status end;

    /** How many were sent each time the server found the stream not ready. */
    final List<Integer> notReadyAt = new CopyOnWriteArrayList<>();

    Api(int count, Status end) {
      this.count = count;
      this.end = end;
    }

    @Override
    public void watchPath(WatchPathRequest r, StreamObserver<PathEvent> out) {
      ServerCallStreamObserver<PathEvent> call = (ServerCallStreamObserver<PathEvent>) out;
      int[] sent = {0};
      // onReady runs whenever the client asks for more; it sends while the stream takes them
      call.setOnReadyHandler(
          () -> {
            synchronized (sent) {
              while (sent[0] < count && call.isReady()) {
                out.onNext(PathEvent.newBuilder().setPrefix("198.51.100." + sent[0]).build());
                sent[0]++;
              }
              if (sent[0] < count) {
                notReadyAt.add(sent[0]);
              } else if (sent[0] == count) {
                sent[0]++;
                if (end.isOk()) {
                  out.onCompleted();
                } else {
                  out.onError(end.asRuntimeException());
                }
              }
            }
          });
    }
  }

  private Server server;
  private ManagedChannel channel;

  private StreamWindow<PathEvent> watch(Api api) throws Exception {
    String name = "stream-window-" + System.nanoTime();
    server = InProcessServerBuilder.forName(name).addService(api).build().start();
    channel = InProcessChannelBuilder.forName(name).build();
    StreamWindow<PathEvent> events = new StreamWindow<>(WINDOW);
    BgpApiGrpc.newStub(channel).watchPath(WatchPathRequest.getDefaultInstance(), events);
    return events;
  }

  @AfterEach
  void close() {
    channel.shutdownNow();
    server.shutdownNow();
  }

  @Test
  void everyEventArrivesInOrderAndTheStreamEnds() throws Exception {
    StreamWindow<PathEvent> events = watch(new Api(10_000, Status.OK));
    List<String> got = new ArrayList<>();
    while (events.hasNext()) {
      got.add(events.next().getPrefix());
    }
    assertEquals(10_000, got.size());
    for (int i = 0; i < got.size(); i++) {
      assertEquals("198.51.100." + i, got.get(i));
    }
    assertFalse(events.hasNext());
  }

  @Test
  void theServerIsHeldAtTheWindowUntilTheReaderTakesHalfOfIt() throws Exception {
    Api api = new Api(100, Status.OK);
    StreamWindow<PathEvent> events = watch(api);
    // the first message is there once the server sent what the window allows
    events.hasNext();
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(10))
        .until(() -> !api.notReadyAt.isEmpty());
    assertEquals(WINDOW, api.notReadyAt.getFirst(), "sent before the reader took any");
    for (int i = 0; i < WINDOW / 2; i++) {
      events.next();
    }
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(10))
        .until(() -> api.notReadyAt.size() >= 2);
    assertEquals(WINDOW + WINDOW / 2, api.notReadyAt.get(1), "sent once half was taken");
  }

  @Test
  void theStreamsErrorIsThrownAfterTheEventsBeforeIt() throws Exception {
    StreamWindow<PathEvent> events = watch(new Api(3, Status.UNAVAILABLE));
    for (int i = 0; i < 3; i++) {
      assertEquals("198.51.100." + i, events.next().getPrefix());
    }
    StatusRuntimeException e = assertThrows(StatusRuntimeException.class, events::hasNext);
    assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode());
  }
}
