package dev.sart.testbed.cluster;

import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Node;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * HTTP/1.0 GETs made from inside a namespace (a client, a node's probe): the socket is opened on a
 * thread that entered the namespace, so the request leaves from there like any program's there.
 */
public final class Http {
  private Http() {}

  /**
   * The body of {@code GET /} on {@code address:port} from {@code from}, or empty on any failure.
   */
  public static Optional<String> get(Node from, String address, int port, Duration timeout) {
    return get(from, address, port, "/", timeout);
  }

  /** The body of {@code GET path}, or empty on any failure (also any status but 200). */
  public static Optional<String> get(
      Node from, String address, int port, String path, Duration timeout) {
    return Optional.ofNullable(attempt(from, address, port, path, timeout).body());
  }

  /**
   * What one GET got: the body of a 200, or why there was none; {@code connected}: the failure came
   * after the TCP handshake had completed (a reset, a timeout or a bad answer on an open
   * connection), not at the connect; {@code reset}: that failure was a reset by the other end.
   */
  public record Answer(String body, String error, boolean connected, boolean reset) {
    public boolean ok() {
      return body != null;
    }

    /** The connection was open and then reset by the other end (a RST, not a timeout). */
    public boolean resetAfterConnect() {
      return connected && reset;
    }
  }

  /** {@code GET path} once; the body, or the failure named (connect timeout, reset, status). */
  public static Answer attempt(Node from, String address, int port, String path, Duration timeout) {
    CompletableFuture<String> result = new CompletableFuture<>();
    NamespaceThreads.factory(from, "http-" + from.name())
        .newThread(
            () -> {
              try {
                result.complete(request(address, port, path, timeout));
              } catch (Throwable e) {
                result.completeExceptionally(e);
              }
            })
        .start();
    try {
      return new Answer(
          result.get(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS), null, false, false);
    } catch (ExecutionException e) {
      return e.getCause() instanceof AfterConnect a
          ? new Answer(null, String.valueOf(a.getCause()), true, isReset(a.getCause()))
          : new Answer(null, String.valueOf(e.getCause()), false, false);
    } catch (TimeoutException e) {
      return new Answer(null, "no answer within " + timeout, false, false);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Answer(null, "interrupted", false, false);
    }
  }

  /**
   * A reset by the peer: the JDK's socket reports ECONNRESET as a plain {@link SocketException} (no
   * subclass of its own), "Connection reset" (reading) or "Connection reset by peer" (writing).
   */
  private static boolean isReset(Throwable e) {
    return e instanceof SocketException
        && e.getMessage() != null
        && e.getMessage().startsWith("Connection reset");
  }

  private static String request(String address, int port, String path, Duration timeout)
      throws IOException {
    try (Socket s = new Socket()) {
      int ms = (int) timeout.toMillis();
      s.connect(new InetSocketAddress(address, port), ms);
      try {
        return exchange(s, address, path, ms);
      } catch (IOException e) {
        throw new AfterConnect(e);
      }
    }
  }

  /** A failure on a connection whose handshake had completed. */
  private static final class AfterConnect extends IOException {
    AfterConnect(IOException cause) {
      super(cause);
    }
  }

  private static String exchange(Socket s, String address, String path, int ms) throws IOException {
    s.setSoTimeout(ms);
    OutputStream out = s.getOutputStream();
    out.write(
        ("GET " + path + " HTTP/1.0\r\nHost: " + address + "\r\nConnection: close\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
    InputStream in = s.getInputStream();
    String response = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    if (!response.startsWith("HTTP/1.") || !response.split(" ", 3)[1].equals("200")) {
      throw new IOException("not a 200: " + response.lines().findFirst().orElse(""));
    }
    int body = response.indexOf("\r\n\r\n");
    return body < 0 ? "" : response.substring(body + 4);
  }
}
