package dev.sart.testbed.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The cluster's mock API server keeps answering when a watching client vanishes while events flow
 * to it (as in EgressScenariosTest's fail-over: {@code sartd egress} stopped, its relay closed, its
 * pod deleted). With fabric8's own CRUD dispatcher the server's event loop waits in the dead
 * watch's {@code onFailure} for a send that waits for that event loop: nobody gets an answer or a
 * watch event for 30 s.
 */
class MockWatchDispatcherTest {
  private static final String NS = "w";
  private KubernetesMockServer server;
  private Relay relay;
  private final List<AutoCloseable> closing = new CopyOnWriteArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (var c : closing.reversed()) {
      c.close();
    }
    if (relay != null) {
      relay.close();
    }
    if (server != null) {
      server.destroy();
    }
  }

  private KubernetesClient client(int port) {
    var c =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder()
                    .withMasterUrl("http://127.0.0.1:" + port)
                    .withRequestTimeout(60_000)
                    .build())
            .build();
    closing.add(c);
    return c;
  }

  private static Pod pod(String name) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(NS)
        .withName(name)
        .endMetadata()
        .build();
  }

  private Watch watch(KubernetesClient client, AtomicInteger events) {
    var w =
        client
            .pods()
            .inNamespace(NS)
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, Pod pod) {
                    events.incrementAndGet();
                  }

                  @Override
                  public void onClose(WatcherException cause) {
                    // the relay is gone
                  }
                });
    closing.add(w);
    return w;
  }

  @Test
  void watchersThatVanishWhileEventsFlowStallNobody() throws Exception {
    server =
        new KubernetesMockServer(
            new Context(), new MockWebServer(), new HashMap<>(), new MockWatchDispatcher(), false);
    server.init(InetAddress.getLoopbackAddress(), 0);
    var direct = client(server.getPort());
    direct.resource(pod("first")).create(); // the client's first request (start-up) is not timed
    // a writer that never stops: every request's time is taken
    var slowest = new AtomicLong();
    var created = new AtomicInteger();
    var writer =
        Thread.ofVirtual()
            .start(
                () -> {
                  for (int i = 0; !Thread.currentThread().isInterrupted(); i++) {
                    long t0 = System.nanoTime();
                    direct
                        .resource(pod("p" + i % 50))
                        .createOr(io.fabric8.kubernetes.client.dsl.NonDeletingOperation::update);
                    slowest.accumulateAndGet(System.nanoTime() - t0, Math::max);
                    created.incrementAndGet();
                  }
                });
    // ten clients in turn watch pods through a relay and vanish in the middle of the events (with
    // fabric8's own dispatcher, 5 of 15 such cuts stalled the server for 30 or 60 s)
    for (int round = 0; round < 10; round++) {
      relay = new Relay(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getPort()));
      var vanishing = client(relay.port());
      var seen = new AtomicInteger();
      for (int w = 0; w < 3; w++) {
        watch(vanishing, seen);
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> seen.get() >= 30);
      relay.cutAll();
      int before = created.get();
      // the server goes on: the writer gets 20 more answers within 10 s
      await("answers after cut " + round)
          .atMost(Duration.ofSeconds(10))
          .until(() -> created.get() >= before + 20);
    }
    writer.interrupt();
    writer.join(Duration.ofSeconds(40));
    assertTrue(
        slowest.get() < Duration.ofSeconds(10).toNanos(),
        "slowest write " + slowest.get() / 1_000_000 + " ms");
  }

  /** A TCP relay on loopback whose connections can all be cut at once, as a killed client's. */
  private static final class Relay implements AutoCloseable {
    private final ServerSocket server;
    private final InetSocketAddress target;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    Relay(InetSocketAddress target) throws IOException {
      this.target = target;
      this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      Thread.ofVirtual().start(this::accept);
    }

    int port() {
      return server.getLocalPort();
    }

    private void accept() {
      while (!server.isClosed()) {
        try {
          var near = server.accept();
          var far = new Socket();
          far.connect(target, 5_000);
          sockets.add(near);
          sockets.add(far);
          Thread.ofVirtual().start(() -> HostRelay.pipe(near, far));
          Thread.ofVirtual().start(() -> HostRelay.pipe(far, near));
        } catch (IOException e) {
          return;
        }
      }
    }

    /** Stops accepting and closes every connection, both ends. */
    void cutAll() throws IOException {
      server.close();
      for (var s : sockets) {
        s.close();
      }
    }

    @Override
    public void close() throws IOException {
      cutAll();
    }
  }
}
