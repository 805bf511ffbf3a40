package dev.sart.testbed.mockapi;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@link MockApi}'s server as a process of its own, so that what talks to it shares no heap,
 * garbage collector or JIT threads with it: the cluster on one machine's default API server, and
 * the controller benchmark's. Starts empty, or with sart's CRDs given the argument {@code crds};
 * prints {@code URL <http://host:port/>} once listening, and runs until its standard input closes.
 */
public final class MockApiProcess {
  private MockApiProcess() {}

  public static void main(String[] args) throws IOException {
    Logger.getLogger("").setLevel(Level.WARNING);
    Arrays.stream(Logger.getLogger("").getHandlers()).forEach(h -> h.setLevel(Level.WARNING));
    var server = List.of(args).contains("crds") ? MockApi.withSartCrds() : MockApi.start();
    System.out.println("URL http://127.0.0.1:" + server.getPort() + "/");
    System.out.flush();
    while (System.in.read() >= 0) {
      // until the parent closes our stdin (or its JVM is gone)
    }
    server.destroy();
    System.exit(0);
  }
}
