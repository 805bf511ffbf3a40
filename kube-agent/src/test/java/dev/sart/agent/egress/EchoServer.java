package dev.sart.agent.egress;

import dev.sart.fib.netlink.Netns;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A TCP server in a test namespace that answers every line with the address the connection came
 * from (what an allow-listing firewall or database would see), and a client for it. Sockets are
 * made on a thread inside the namespace ({@link Netns#run}) and stay there.
 */
final class EchoServer implements AutoCloseable {
  private final ServerSocket socket;

  EchoServer(String netns, String address, int port) {
    try (var ns = Netns.named(netns)) {
      socket =
          ns.run(
              () -> {
                var s = new ServerSocket();
                s.setReuseAddress(true);
                s.bind(new InetSocketAddress(InetAddress.getByName(address), port), 64);
                return s;
              });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Thread.ofVirtual().name("echo-" + port).start(this::serve);
  }

  private void serve() {
    while (!socket.isClosed()) {
      try {
        var c = socket.accept();
        Thread.ofVirtual()
            .start(
                () -> {
                  try (c;
                      var in =
                          new BufferedReader(
                              new InputStreamReader(c.getInputStream(), StandardCharsets.UTF_8))) {
                    OutputStream out = c.getOutputStream();
                    String peer = c.getInetAddress().getHostAddress();
                    while (in.readLine() != null) {
                      out.write((peer + "\n").getBytes(StandardCharsets.UTF_8));
                      out.flush();
                    }
                  } catch (IOException e) {
                    // the client went
                  }
                });
      } catch (IOException e) {
        return;
      }
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }

  /** A connection from inside {@code netns}. */
  static Conversation connect(String netns, String address, int port, Duration timeout)
      throws IOException {
    try (var ns = Netns.named(netns)) {
      Socket s =
          ns.run(
              () -> {
                var c = new Socket();
                c.connect(
                    new InetSocketAddress(InetAddress.getByName(address), port),
                    (int) timeout.toMillis());
                c.setSoTimeout((int) timeout.toMillis());
                return c;
              });
      return new Conversation(s);
    }
  }

  /** One line out, the source address the server saw back. */
  static String sourceSeen(String netns, String address, int port) throws IOException {
    try (var c = connect(netns, address, port, Duration.ofSeconds(3))) {
      return c.ask();
    }
  }

  static final class Conversation implements AutoCloseable {
    private final Socket socket;
    private final BufferedReader in;

    Conversation(Socket socket) throws IOException {
      this.socket = socket;
      this.in =
          new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
    }

    String ask() throws IOException {
      socket.getOutputStream().write("who am i\n".getBytes(StandardCharsets.UTF_8));
      socket.getOutputStream().flush();
      return in.readLine();
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
