package dev.sart.e2e;

import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Node;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * GET on the agent's endpoint, {@code http://127.0.0.1:8000}, inside a node (it listens on the
 * node's loopback), and the reading of its Prometheus exposition.
 */
final class NodeHttp {
  private NodeHttp() {}

  /** The status and body; code -1 (and the exception as the body) when nothing answered. */
  record Response(int code, String body) {}

  static Response get(Node node, String path) throws Exception {
    ExecutorService ex = Executors.newSingleThreadExecutor(NamespaceThreads.factory(node, "http"));
    try {
      return ex.submit(
              () -> {
                HttpURLConnection c =
                    (HttpURLConnection)
                        URI.create("http://127.0.0.1:8000" + path).toURL().openConnection();
                try {
                  int code = c.getResponseCode();
                  InputStream in = code < 400 ? c.getInputStream() : c.getErrorStream();
                  return new Response(
                      code,
                      in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8));
                } catch (IOException e) {
                  return new Response(-1, e.toString());
                } finally {
                  c.disconnect();
                }
              })
          .get();
    } finally {
      ex.shutdownNow();
    }
  }

  /** The value of one series in a Prometheus exposition (NaN when absent). */
  static double metric(String exposition, String series) {
    return exposition
        .lines()
        .filter(l -> l.startsWith(series + " "))
        .mapToDouble(l -> Double.parseDouble(l.substring(series.length() + 1).strip()))
        .findFirst()
        .orElse(Double.NaN);
  }
}
