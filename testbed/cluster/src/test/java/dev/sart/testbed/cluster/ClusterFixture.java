package dev.sart.testbed.cluster;

import dev.sart.testbed.ManagedProcess;
import dev.sart.testbed.Topology;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * One cluster on one machine shared by the scenarios of a test class (they build on each other, as
 * sart's Ginkgo scenarios do): made before the first, closed after the last; when a scenario failed
 * the files of the cluster (configs, logs of every process) are kept under {@code
 * target/testbed-logs/<class>/} and the tails printed.
 */
final class ClusterFixture implements TestWatcher, AutoCloseable {
  private final String name;
  private final Topology topology;
  final Cluster cluster;
  private volatile boolean failed;

  ClusterFixture(String name, Cluster.Options options) {
    this.name = name;
    this.topology = Topology.create(name);
    try {
      this.cluster = Cluster.start(topology, options);
    } catch (RuntimeException | Error e) {
      keep();
      topology.close();
      throw e;
    }
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

  @Override
  public void close() {
    if (failed) {
      keep();
    }
    try {
      cluster.close();
    } finally {
      topology.close();
    }
  }
}
