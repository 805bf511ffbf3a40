package dev.sart.e2e;

import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Node;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;

/**
 * A TCP relay between loopback in the test's namespace and loopback in a node's namespace, so that
 * a client on one side reaches an API that listens on the other side's loopback: {@link #into} (the
 * agent in the test JVM to sartd's API in the node) and {@link #outOf} (a process in the node to
 * the mock API server in the test JVM). A socket lives in the namespace of the thread that made it;
 * when the far end is down the accepted connection is closed at once.
 */
final class NamespaceRelay implements AutoCloseable {
  private final ServerSocket server;
  private final Executor dialers;
  private final int target;

  private NamespaceRelay(ServerSocket server, Executor dialers, int target) {
    this.server = server;
    this.dialers = dialers;
    this.target = target;
    Thread.ofVirtual().start(this::accept);
  }

  /** Listens on the test's loopback; dials {@code 127.0.0.1:port} inside the node. */
  static NamespaceRelay into(Node node, int port) throws IOException {
    ThreadFactory inNode = NamespaceThreads.factory(node, "relay-in");
    return new NamespaceRelay(
        new ServerSocket(0, 50, InetAddress.getLoopbackAddress()),
        r -> inNode.newThread(r).start(),
        port);
  }

  /**
   * Listens on the node's loopback; dials {@code 127.0.0.1:port} in the test's namespace, from
   * threads started here (a thread inherits the namespace of the thread that creates it, so none
   * may be created lazily from a namespace thread).
   */
  static NamespaceRelay outOf(Node node, int port) {
    java.util.concurrent.ThreadPoolExecutor hostThreads =
        new java.util.concurrent.ThreadPoolExecutor(
            16,
            16,
            0,
            java.util.concurrent.TimeUnit.SECONDS,
            new java.util.concurrent.LinkedBlockingQueue<>(),
            Thread.ofPlatform().daemon().name("relay-out-", 0).factory());
    hostThreads.prestartAllCoreThreads();
    CompletableFuture<ServerSocket> listening = new CompletableFuture<>();
    NamespaceThreads.factory(node, "relay-listen")
        .newThread(
            () -> {
              try {
                listening.complete(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
              } catch (IOException e) {
                listening.completeExceptionally(e);
              }
            })
        .start();
    return new NamespaceRelay(listening.join(), hostThreads, port);
  }

  int port() {
    return server.getLocalPort();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket near = server.accept();
        dialers.execute(() -> dial(near));
      } catch (IOException e) {
        return;
      }
    }
  }

  private void dial(Socket near) {
    try (near;
        Socket far = new Socket(InetAddress.getLoopbackAddress(), target)) {
      // a platform thread: it stays in the namespace of the thread that made it, like its sockets
      Thread back = Thread.ofPlatform().daemon().start(() -> pipe(far, near));
      pipe(near, far);
      back.join();
    } catch (IOException | InterruptedException e) {
      // the far end is down or the connection ended: closing near tells the client
    }
  }

  private static void pipe(Socket from, Socket to) {
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
