package dev.sart.agent.cni;

import dev.sart.testbed.Programs;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The agent as a process of its own (dev.sart.agent.AgentMain), so that a test can kill it with
 * SIGKILL.
 */
final class AgentProcess implements AutoCloseable {
  private final Process process;

  private AgentProcess(Process process) {
    this.process = process;
  }

  static AgentProcess start(Path config, Path log) throws IOException {
    String java = ProcessHandle.current().info().command().orElseThrow();
    String cp = "target/classes:" + Files.readString(Path.of("target/classpath.txt")).strip();
    ProcessBuilder pb =
        Programs.processBuilder(
            List.of(
                java,
                "--enable-native-access=ALL-UNNAMED",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                cp,
                "dev.sart.agent.AgentMain",
                "--config",
                config.toString()));
    pb.redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
    Process p = pb.start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    String line = out.readLine();
    if (!"ready".equals(line)) {
      p.destroyForcibly();
      throw new IOException("the agent did not start (see " + log + "): " + line);
    }
    return new AgentProcess(p);
  }

  long pid() {
    return process.pid();
  }

  /** SIGKILL: no shutdown hook, the socket file stays behind like after a crash. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        kill();
      }
    }
  }
}
