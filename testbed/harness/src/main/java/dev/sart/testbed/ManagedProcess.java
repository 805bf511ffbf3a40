package dev.sart.testbed;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A long-running program started inside a node's namespace (`ip netns exec` execs it, so the PID is
 * the program's own), with stdout and stderr in a log file. Stopped by that PID only.
 */
public final class ManagedProcess {
  private static final long GRACE_MILLIS = 5_000;

  private final String name;
  private final Process process;
  private final Path log;

  private ManagedProcess(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
  }

  static ManagedProcess start(
      Node node, String name, List<String> argv, Map<String, String> env, Path log) {
    List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", node.netns()));
    cmd.addAll(argv);
    Programs.check(cmd);
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .directory(node.dir().toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    pb.environment().putAll(env);
    try {
      Files.writeString(
          log,
          "# " + String.join(" ", cmd) + "\n",
          StandardCharsets.UTF_8,
          java.nio.file.StandardOpenOption.CREATE,
          java.nio.file.StandardOpenOption.APPEND);
      return new ManagedProcess(name, pb.start(), log);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name + " in " + node.netns(), e);
    }
  }

  public String name() {
    return name;
  }

  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  public Path log() {
    return log;
  }

  /** The last lines of the log, for failure messages. */
  public String tail(int lines) {
    try {
      List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(cannot read " + log + ": " + e.getMessage() + ")";
    }
  }

  /** SIGTERM, then SIGKILL after a grace period; waits until the process is gone. Idempotent. */
  public void stop() {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(GRACE_MILLIS, TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor(GRACE_MILLIS, TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }

  @Override
  public String toString() {
    return name + "(" + pid() + ")";
  }
}
