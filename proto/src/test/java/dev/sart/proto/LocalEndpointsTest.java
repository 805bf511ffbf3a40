package dev.sart.proto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.proto.v1.BgpApiGrpc;
import dev.sart.proto.v1.BgpInfo;
import dev.sart.proto.v1.GetBgpInfoRequest;
import dev.sart.proto.v1.GetBgpInfoResponse;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The parts of one JVM reach a shared endpoint in process; nothing else changes. No socket is
 * opened: the endpoints are names that nothing listens on.
 */
class LocalEndpointsTest {
  private static final String SHARED = "127.0.0.1:1";
  private final ExecutorService calls = Executors.newVirtualThreadPerTaskExecutor();

  /** A speaker's API that knows its AS. */
  private static final class Api extends BgpApiGrpc.BgpApiImplBase {
    @Override
    public void getBgpInfo(GetBgpInfoRequest r, StreamObserver<GetBgpInfoResponse> out) {
      out.onNext(
          GetBgpInfoResponse.newBuilder().setInfo(BgpInfo.newBuilder().setAsn(65001)).build());
      out.onCompleted();
    }
  }

  @AfterEach
  void unshare() {
    LocalEndpoints.unshare(SHARED);
    calls.shutdownNow();
  }

  private static int asn(ManagedChannel ch) {
    return BgpApiGrpc.newBlockingStub(ch)
        .withWaitForReady()
        .withDeadlineAfter(20, TimeUnit.SECONDS)
        .getBgpInfo(GetBgpInfoRequest.getDefaultInstance())
        .getInfo()
        .getAsn();
  }

  @Test
  void aSharedEndpointIsServedAndReachedInProcess() throws Exception {
    LocalEndpoints.share(SHARED);
    Server server = LocalEndpoints.serveInProcess(SHARED, List.of(new Api()), calls).orElseThrow();
    ManagedChannel ch =
        LocalEndpoints.channel(
            SHARED,
            () -> {
              throw new AssertionError("a TCP channel to a shared endpoint");
            });
    try {
      assertEquals(65001, asn(ch));
    } finally {
      ch.shutdownNow();
      server.shutdownNow();
    }
  }

  @Test
  void aClientMadeBeforeItsServerReachesItOnceTheServerIsUp() throws Exception {
    LocalEndpoints.share(SHARED);
    ManagedChannel ch = LocalEndpoints.channel(SHARED, () -> null);
    CompletableFuture<Integer> answer = CompletableFuture.supplyAsync(() -> asn(ch), calls);
    Server server = LocalEndpoints.serveInProcess(SHARED, List.of(new Api()), calls).orElseThrow();
    try {
      assertEquals(65001, answer.get(30, TimeUnit.SECONDS));
    } finally {
      ch.shutdownNow();
      server.shutdownNow();
    }
  }

  @Test
  void anEndpointNotSharedIsLeftToItsTcpServerAndClients() throws Exception {
    assertTrue(LocalEndpoints.serveInProcess(SHARED, List.of(new Api()), calls).isEmpty());
    ManagedChannel tcp = InProcessChannelBuilder.forName("stands-for-tcp").build();
    try {
      assertSame(tcp, LocalEndpoints.channel(SHARED, () -> tcp));
    } finally {
      tcp.shutdownNow();
    }
  }
}
