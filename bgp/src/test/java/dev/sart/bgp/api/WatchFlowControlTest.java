package dev.sart.bgp.api;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.rib.Prefix;
import dev.sart.bgp.server.BgpServer;
import dev.sart.bgp.wire.MultiExitDisc;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.PathAttributes;
import dev.sart.proto.v1.BgpApiGrpc;
import dev.sart.proto.v1.PathEvent;
import dev.sart.proto.v1.WatchPathRequest;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * WatchPath with a subscriber that does not read (gRPC flow control: it requests one message and
 * then nothing): the speaker writes only while the stream is ready and keeps at most one waiting
 * event per prefix, so ten rounds of changes to 20,000 prefixes and their withdrawal leave it with
 * at most one event per prefix to send, not 220,000; once the subscriber reads, it gets every
 * prefix's last state.
 */
class WatchFlowControlTest {
  private static final int PREFIXES = 20_000;
  private static final int ROUNDS = 10;

  private BgpServer speaker;
  private Server server;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    speaker = new BgpServer(0);
    speaker.setLocalAs(65001);
    speaker.setRouterId(dev.sart.bgp.wire.Ip.parseV4("192.0.2.1"));
    String name = InProcessServerBuilder.generateName();
    server =
        InProcessServerBuilder.forName(name).addService(new BgpApiService(speaker)).build().start();
    channel = InProcessChannelBuilder.forName(name).build();
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    server.shutdownNow();
    speaker.close();
  }

  /** 198.18.0.0/15 (RFC 2544), /32s: never on any wire, the speaker has no peer. */
  private static List<Prefix> prefixes() {
    List<Prefix> out = new ArrayList<>();
    for (int i = 0; i < PREFIXES; i++) {
      out.add(Prefix.parse("198.18." + (i >> 8) + "." + (i & 0xff) + "/32"));
    }
    return out;
  }

  @Test
  void aSubscriberThatDoesNotReadHoldsAtMostOneEventPerPrefix() {
    AtomicInteger received = new AtomicInteger();
    Map<String, Integer> lastSelected = new ConcurrentHashMap<>();
    AtomicReference<ClientCallStreamObserver<WatchPathRequest>> call = new AtomicReference<>();
    BgpApiGrpc.newStub(channel)
        .watchPath(
            WatchPathRequest.getDefaultInstance(),
            new ClientResponseObserver<WatchPathRequest, PathEvent>() {
              @Override
              public void beforeStart(ClientCallStreamObserver<WatchPathRequest> s) {
                s.disableAutoRequestWithInitial(1); // the end-of-initial marker, then nothing
                call.set(s);
              }

              @Override
              public void onNext(PathEvent e) {
                received.incrementAndGet();
                if (!e.getEndOfInitial()) {
                  lastSelected.put(e.getPrefix(), e.getSelectedCount());
                }
              }

              @Override
              public void onError(Throwable t) {}

              @Override
              public void onCompleted() {}
            });
    await().atMost(Duration.ofSeconds(10)).until(() -> received.get() == 1);

    List<Prefix> prefixes = prefixes();
    for (int round = 0; round < ROUNDS; round++) {
      speaker.addPaths(
          prefixes, PathAttributes.of(Origin.IGP, new MultiExitDisc(round))); // a change each
    }
    speaker.deletePaths(prefixes);
    speaker.rib().query(v -> null).join(); // every change is through the RIB

    // nothing read meanwhile: at most one event per prefix is held for the subscriber
    await()
        .during(Duration.ofSeconds(1))
        .atMost(Duration.ofSeconds(3))
        .until(() -> received.get() == 1);
    call.get().request(Integer.MAX_VALUE);
    await("every prefix's last state: withdrawn")
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                lastSelected.size() == PREFIXES
                    && lastSelected.values().stream().allMatch(n -> n == 0));
    int events = received.get() - 1;
    // one per prefix, and at most one more for a prefix whose event the writer held when the
    // stream stopped being ready; without coalescing 220,000
    assertTrue(events <= PREFIXES + 1, "events after the marker: " + events);
  }
}
