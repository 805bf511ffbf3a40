package dev.sart.testbed.cluster;

import dev.sart.testbed.ManagedProcess;
import dev.sart.testbed.Topology;
import java.nio.file.Path;
import java.util.List;
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

  /** Thread dumps of the live sartd processes into their logs (a stuck reconciler shows there). */
  private void threadDumps() {
    Path jcmd = Path.of(Launch.java()).resolveSibling("jcmd");
    for (ManagedProcess p : topology.processes()) {
      if (p.name().startsWith("sartd") && p.isAlive()) {
        var r =
            dev.sart.testbed.Shell.exec(
                List.of(jcmd.toString(), Long.toString(p.pid()), "Thread.print"));
        try {
          java.nio.file.Files.writeString(
              p.log().resolveSibling(p.name() + ".threads.txt"), r.stdout() + r.stderr());
        } catch (java.io.IOException e) {
          System.err.println("thread dump of " + p + ": " + e);
        }
      }
    }
  }

  private void keep() {
    threadDumps();
    Path keep = Path.of(System.getProperty("sart.testbed.logs", "target/testbed-logs"), name);
    // a previous run's files would make the copy land inside them
    dev.sart.testbed.Shell.run("rm", "-rf", keep.toAbsolutePath().toString());
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
