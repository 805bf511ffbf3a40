package dev.sart.e2e;

import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Node;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.ThreadFactory;

/**
 * A TCP relay from loopback in the test's namespace to {@code 127.0.0.1:port} inside a node's
 * namespace, so that a client in the test JVM (the agent) reaches an API that listens on the node's
 * loopback (sartd's default). Each connection is dialled from a thread inside the node's namespace;
 * when the far end is down the accepted connection is closed at once.
 */
final class NamespaceRelay implements AutoCloseable {
  private final ServerSocket server;
  private final ThreadFactory inNode;
  private final int target;

  NamespaceRelay(Node node, int target) throws IOException {
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.inNode = NamespaceThreads.factory(node, "relay");
    this.target = target;
    Thread.ofVirtual().start(this::accept);
  }

  int port() {
    return server.getLocalPort();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket near = server.accept();
        inNode.newThread(() -> dial(near)).start();
      } catch (IOException e) {
        return;
      }
    }
  }

  private void dial(Socket near) {
    try (near; Socket far = new Socket(InetAddress.getLoopbackAddress(), target)) {
      Thread back = Thread.ofVirtual().start(() -> pipe(far, near));
      pipe(near, far);
      back.join();
    } catch (IOException | InterruptedException e) {
      // the far end is down or the connection ended: closing near tells the client
    }
  }

  private static void pipe(Socket from, Socket to) {
    try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
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
