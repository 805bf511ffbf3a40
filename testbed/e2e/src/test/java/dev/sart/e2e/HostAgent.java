package dev.sart.e2e;

import dev.sart.testbed.Programs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * {@code sartd agent --mode=lb} as a process of its own in the host's namespace, configured by
 * kubeconfig and flags only, its output in a log file.
 */
final class HostAgent implements AutoCloseable {
  private final Process process;
  private final Path log;

  private HostAgent(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /** Started for {@code node}, driving the speaker at {@code speaker} (host:port). */
  static HostAgent start(Path kubeconfig, String node, String speaker, Path log)
      throws IOException {
    Process p =
        Programs.processBuilder(
                JavaMains.sartd(
                    "agent",
                    "--mode=lb",
                    "--kubeconfig",
                    kubeconfig.toString(),
                    "--node-name",
                    node,
                    "--speaker-endpoint",
                    speaker,
                    "--metrics-address",
                    "127.0.0.1:0"))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    return new HostAgent(p, log);
  }

  /** What it has written so far. */
  String log() throws IOException {
    return Files.readString(log);
  }

  /** Stops it (SIGTERM, then SIGKILL after 10 s). */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
