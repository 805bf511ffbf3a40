package dev.sart.testbed.cluster;

import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The cluster's default API server: fabric8's mock server in CRUD mode, as a process of its own
 * (the one part of the cluster on one machine that is not the real thing). It starts empty — no
 * CRDs: {@link ApiServer} applies sart's CRD manifests through its API as a user would — prints
 * {@code URL <http://host:port/>} once listening, and runs until its standard input closes.
 */
public final class MockApiServer {
  private MockApiServer() {}

  public static void main(String[] args) throws IOException {
    Logger.getLogger("").setLevel(Level.WARNING);
    Arrays.stream(Logger.getLogger("").getHandlers()).forEach(h -> h.setLevel(Level.WARNING));
    // CRUD mode: a real HTTP API with watches, keeping what is created; plain HTTP on loopback; a
    // watch whose client vanished no longer stalls everyone for 30 s (MockWatchDispatcher)
    var server =
        new KubernetesMockServer(
            new Context(), new MockWebServer(), new HashMap<>(), new MockWatchDispatcher(), false);
    server.init(java.net.InetAddress.getLoopbackAddress(), 0);
    System.out.println("URL http://127.0.0.1:" + server.getPort() + "/");
    System.out.flush();
    while (System.in.read() >= 0) {
      // until the cluster closes our stdin (or its JVM is gone)
    }
    server.destroy();
    System.exit(0);
  }
}
