package dev.sart.testbed.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.testbed.mockapi.MockApi;
import dev.sart.testbed.mockapi.WriteLoad;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
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
                    .withMasterUrl("https://127.0.0.1:" + port)
                    .withCaCertData(MockApi.caCertData(server))
                    .withRequestTimeout(60_000)
                    .build())
            .build();
    closing.add(c);
    return c;
  }

  private Watch watch(KubernetesClient client, AtomicInteger events) {
    var w =
        client
            .configMaps()
            .inNamespace(NS)
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, ConfigMap map) {
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
    server = MockApi.start();
    // a writer that never stops: every request's time is taken
    var load = WriteLoad.start(client(server.getPort()), NS);
    closing.add(load);
    // ten clients in turn watch ConfigMaps through a relay and vanish in the middle of the events
    // (with fabric8's own dispatcher, 5 of 15 such cuts stalled the server for 30 or 60 s)
    for (int round = 0; round < 10; round++) {
      relay = new Relay(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getPort()));
      var vanishing = client(relay.port());
      var seen = new AtomicInteger();
      for (int w = 0; w < 3; w++) {
        watch(vanishing, seen);
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> seen.get() >= 30);
      relay.cutAll();
      // the server goes on: the writer gets 20 more answers within 10 s
      load.awaitAnswers("answers after cut " + round, 20, Duration.ofSeconds(10));
    }
    load.close();
    assertTrue(
        load.slowest().compareTo(Duration.ofSeconds(10)) < 0, "slowest write " + load.slowest());
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
