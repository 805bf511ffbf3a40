package dev.sart.e2e;

import static org.awaitility.Awaitility.await;

import dev.sart.testbed.ManagedProcess;
import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Node;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * {@code sartd fib -f FILE} as its own process in a node, with /metrics and /readyz on
 * 127.0.0.1:9101.
 */
final class FibNode {
  private static final String JAVA = ProcessHandle.current().info().command().orElse("java");
  private static final String CLASSPATH = System.getProperty("java.class.path");
  static final String METRICS = "127.0.0.1:9101";

  final Node node;
  final ManagedProcess process;

  private FibNode(Node node, ManagedProcess process) {
    this.node = node;
    this.process = process;
  }

  /**
   * Writes {@code config} to the node's directory and starts the daemon; returns once /readyz says
   * so.
   */
  static FibNode start(Node node, String config, String processName) {
    Path file = node.dir().resolve("fib.yaml");
    try {
      Files.writeString(file, config);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> argv =
        new ArrayList<>(
            List.of(
                JAVA,
                "--enable-native-access=ALL-UNNAMED",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                CLASSPATH,
                "dev.sart.sartd.Sartd",
                "fib",
                "-f",
                file.toString(),
                "--metrics",
                METRICS,
                "-l",
                "debug"));
    FibNode f = new FibNode(node, node.spawn(processName, argv));
    await("sartd fib ready")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .failFast("sartd fib exited:\n" + f.process.tail(30), () -> !f.process.isAlive())
        .until(() -> f.tryHttp("/readyz") != null);
    return f;
  }

  /** The Prometheus exposition. */
  String metrics() {
    String m = tryHttp("/metrics");
    if (m == null) {
      throw new AssertionError("no /metrics from sartd fib");
    }
    return m;
  }

  /**
   * GET http://METRICS/path from inside the node (the daemon listens on the node's loopback); null
   * unless 200.
   */
  String tryHttp(String path) {
    ExecutorService ex = Executors.newSingleThreadExecutor(NamespaceThreads.factory(node, "http"));
    try {
      return ex.submit(
              () -> {
                try (InputStream in = URI.create("http://" + METRICS + path).toURL().openStream()) {
                  return new String(in.readAllBytes(), StandardCharsets.UTF_8);
                } catch (IOException e) {
                  return null;
                }
              })
          .get();
    } catch (InterruptedException | ExecutionException e) {
      throw new IllegalStateException(e);
    } finally {
      ex.shutdownNow();
    }
  }

  /** SIGKILL: a crash, nothing cleaned up. */
  void kill() {
    ProcessHandle.of(process.pid()).ifPresent(ProcessHandle::destroyForcibly);
    await().atMost(Duration.ofSeconds(10)).until(() -> !process.isAlive());
  }
}
