package dev.sart.testbed.cluster;

import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Node;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * A TCP relay from a node's loopback to an address reached from the host's namespace: how the
 * processes in a node namespace ({@code sartd node}, {@code sartd controller}) reach the API
 * server, which listens in the host's namespace (the mock server on 127.0.0.1, or a real API server
 * wherever the kubeconfig says). It stands for the node's route to the control plane.
 *
 * <p>A socket belongs to the namespace of the thread that called {@code socket(2)}, and a new
 * thread inherits its creator's namespace: the listener is made on a thread inside the node, every
 * outgoing socket on one dialer thread made here in the host's namespace; the bytes are then copied
 * by threads of any namespace.
 */
public final class HostRelay implements AutoCloseable {
  /** Made from the class's initialiser, i.e. in the host's namespace, and never replaced. */
  private static final ExecutorService HOST_DIALER = hostDialer();

  private static ExecutorService hostDialer() {
    var e =
        new java.util.concurrent.ThreadPoolExecutor(
            1,
            1,
            0,
            java.util.concurrent.TimeUnit.SECONDS,
            new java.util.concurrent.LinkedBlockingQueue<>(),
            r -> Thread.ofPlatform().daemon().name("host-dialer").unstarted(r));
    // its one thread is made now, by the thread initialising this class
    e.prestartAllCoreThreads();
    return e;
  }

  private final ServerSocket server;
  private final InetSocketAddress target;

  private HostRelay(ServerSocket server, InetSocketAddress target) {
    this.server = server;
    this.target = target;
    Thread.ofPlatform().daemon().name("relay-accept-" + server.getLocalPort()).start(this::accept);
  }

  /** Listens on 127.0.0.1:{@code port} inside {@code node}; connects to {@code target}. */
  public static HostRelay open(Node node, int port, InetSocketAddress target) {
    CompletableFuture<ServerSocket> listening = new CompletableFuture<>();
    NamespaceThreads.factory(node, "relay-listen")
        .newThread(
            () -> {
              try {
                ServerSocket s = new ServerSocket();
                s.setReuseAddress(true);
                s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 100);
                listening.complete(s);
              } catch (IOException e) {
                listening.completeExceptionally(e);
              }
            })
        .start();
    try {
      return new HostRelay(listening.join(), target);
    } catch (java.util.concurrent.CompletionException e) {
      throw new UncheckedIOException(
          "relay in " + node.netns() + " on port " + port, (IOException) e.getCause());
    }
  }

  public int port() {
    return server.getLocalPort();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket near = server.accept();
        Thread.ofVirtual().start(() -> relay(near));
      } catch (IOException e) {
        return;
      }
    }
  }

  private void relay(Socket near) {
    Future<Socket> dialed =
        HOST_DIALER.submit(
            () -> {
              Socket s = new Socket();
              s.connect(target, 5_000);
              return s;
            });
    try (near;
        Socket far = dialed.get()) {
      Thread back = Thread.ofVirtual().start(() -> pipe(far, near));
      pipe(near, far);
      back.join();
    } catch (Exception e) {
      // the far end is down or the connection ended: closing near tells the client
    }
  }

  /** Copies {@code from} to {@code to} until either ends, then closes both. */
  static void pipe(Socket from, Socket to) {
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      in.transferTo(out);
    } catch (IOException e) {
      // one side closed
    } finally {
      try {
        from.close();
        to.close();
      } catch (IOException ignored) {
        // closing
      }
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
