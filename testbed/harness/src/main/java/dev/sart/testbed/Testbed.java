package dev.sart.testbed;

import java.nio.file.Path;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension giving each test a fresh {@link Topology}:
 *
 * <pre>{@code
 * @RegisterExtension final Testbed testbed = new Testbed();
 * ... Topology t = testbed.topology(); ...
 * }</pre>
 *
 * <p>After the test everything is removed. When the test failed, the configs and logs of its
 * routers are kept under {@code target/testbed-logs/<class>/<test>/} and the tail of each log is
 * printed, so a failure can be read without re-running it.
 */
public final class Testbed implements BeforeEachCallback, AfterEachCallback {
  private final Path logRoot;
  private Topology topology;
  private String testName = "test";

  public Testbed() {
    this(Path.of(System.getProperty("sart.testbed.logs", "target/testbed-logs")));
  }

  public Testbed(Path logRoot) {
    this.logRoot = logRoot.toAbsolutePath();
  }

  /** This test's topology, created on first use. */
  public synchronized Topology topology() {
    if (topology == null) {
      topology = Topology.create(testName);
    }
    return topology;
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    Prerequisites.requireRoot();
    testName =
        context.getRequiredTestClass().getSimpleName()
            + "/"
            + context.getDisplayName().replaceAll("[^A-Za-z0-9_.,=-]+", "_");
  }

  @Override
  public synchronized void afterEach(ExtensionContext context) {
    if (topology == null) {
      return;
    }
    Topology t = topology;
    topology = null;
    if (context.getExecutionException().isPresent()) {
      Path keep = logRoot.resolve(testName);
      t.preserveFilesIn(keep);
      StringBuilder sb =
          new StringBuilder("test bed files of the failed test kept in " + keep + "\n");
      for (ManagedProcess p : t.processes()) {
        sb.append("--- ")
            .append(p)
            .append(' ')
            .append(p.log().getFileName())
            .append('\n')
            .append(p.tail(30))
            .append('\n');
      }
      System.err.println(sb);
    }
    t.close();
  }
}
