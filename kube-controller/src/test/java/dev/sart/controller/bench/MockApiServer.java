package dev.sart.controller.bench;

import dev.sart.controller.MockCluster;
import java.io.IOException;
import java.util.Arrays;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * fabric8's mock API server (CRUD mode, the sart CRDs registered) as a process of its own, so that
 * the benchmark's controller does not share a heap, a garbage collector or JIT threads with it.
 * Prints {@code URL <master url>} once listening and runs until its standard input closes.
 */
public final class MockApiServer {
  public static void main(String[] args) throws IOException {
    Logger.getLogger("").setLevel(Level.WARNING);
    Arrays.stream(Logger.getLogger("").getHandlers()).forEach(h -> h.setLevel(Level.WARNING));
    var server = MockCluster.server();
    try (var client = server.createClient()) {
      System.out.println("URL " + client.getConfiguration().getMasterUrl());
    }
    System.out.flush();
    while (System.in.read() >= 0) {
      // until the benchmark exits
    }
    server.destroy();
    System.exit(0);
  }
}
