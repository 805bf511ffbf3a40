package dev.sart.testbed.mockapi;

import java.io.BufferedReader;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@link MockApi}'s server as a process of its own, so that what talks to it shares no heap,
 * garbage collector or JIT threads with it: the cluster on one machine's default API server, and
 * the controller benchmark's. Starts empty, or with sart's CRDs given the argument {@code crds};
 * once listening prints {@code URL <https://127.0.0.1:port/>} and {@code CA <base64 PEM>} (the
 * certificate to trust, {@link MockApi#caCertData}), which {@link Announced#read} reads; runs until
 * its standard input closes.
 */
public final class MockApiProcess {
  private MockApiProcess() {}

  public static void main(String[] args) throws IOException {
    Logger.getLogger("").setLevel(Level.WARNING);
    Arrays.stream(Logger.getLogger("").getHandlers()).forEach(h -> h.setLevel(Level.WARNING));
    var server = List.of(args).contains("crds") ? MockApi.withSartCrds() : MockApi.start();
    System.out.println("URL https://127.0.0.1:" + server.getPort() + "/");
    System.out.println("CA " + MockApi.caCertData(server));
    System.out.flush();
    while (System.in.read() >= 0) {
      // until the parent closes our stdin (or its JVM is gone)
    }
    server.destroy();
    System.exit(0);
  }

  /** What the process announced: where it listens and the certificate its clients trust. */
  public record Announced(String url, String caCertData) {
    /**
     * Reads the announcement from the process's standard output; any other line goes to {@code
     * other}. Throws if the output ends first (the process failed to start).
     */
    public static Announced read(BufferedReader out, Consumer<String> other) throws IOException {
      String url = null;
      String ca = null;
      while (url == null || ca == null) {
        String line = out.readLine();
        if (line == null) {
          throw new IOException("the mock API server process ended before saying its URL and CA");
        } else if (line.startsWith("URL ")) {
          url = line.substring(4).strip();
        } else if (line.startsWith("CA ")) {
          ca = line.substring(3).strip();
        } else {
          other.accept(line);
        }
      }
      return new Announced(url, ca);
    }
  }
}
