package dev.sart.testbed.cluster;

import dev.sart.testbed.ManagedProcess;
import dev.sart.testbed.Topology;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * One cluster on one machine shared by the scenarios of a test class (they build on each other, as
 * sart's ordered Ginkgo contexts do): made before the first, closed after the last. When a scenario
 * failed, the cluster's files (configs, logs of every process) are kept under {@code
 * target/testbed-logs/<class>/} and the tails of the daemons' logs printed. Each scenario's run
 * time is printed ({@code scenario ...: N s}).
 */
final class SharedCluster implements TestWatcher {
  private String name;
  private Topology topology;
  private Cluster cluster;
  private volatile boolean failed;
  private long t0;

  Cluster start(String name, Cluster.Options options) {
    this.name = name;
    this.topology = Topology.create(name);
    try {
      cluster = Cluster.start(topology, options);
      return cluster;
    } catch (RuntimeException | Error e) {
      keep();
      topology.close();
      throw e;
    }
  }

  void begin() {
    t0 = System.nanoTime();
  }

  void end(String scenario) {
    System.err.printf("scenario %s: %.1f s%n", scenario, (System.nanoTime() - t0) / 1e9);
  }

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    failed = true;
  }

  private void keep() {
    Path keep = Path.of(System.getProperty("sart.testbed.logs", "target/testbed-logs"), name);
    topology.preserveFilesIn(keep.toAbsolutePath());
    StringBuilder sb = new StringBuilder("cluster files kept in " + keep.toAbsolutePath() + "\n");
    for (ManagedProcess p : topology.processes()) {
      if (p.name().startsWith("http-")) {
        continue;
      }
      sb.append("--- ").append(p).append('\n').append(p.tail(25)).append('\n');
    }
    System.err.println(sb);
  }

  void close() {
    if (topology == null) {
      return;
    }
    if (failed) {
      keep();
    }
    try {
      if (cluster != null) {
        cluster.close();
      }
    } finally {
      topology.close();
    }
  }
}
