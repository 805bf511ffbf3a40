package dev.sart.testbed;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs short commands (ip, CLIs of the routers) and returns what they printed. Test code only. */
public final class Shell {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private Shell() {}

  /** The outcome of one command. */
  public record Result(List<String> argv, int exitCode, String stdout, String stderr) {
    public boolean ok() {
      return exitCode == 0;
    }

    /** Returns stdout, or throws {@link CommandFailedException} when the command failed. */
    public String orThrow() {
      if (!ok()) {
        throw new CommandFailedException(this);
      }
      return stdout;
    }
  }

  /** A command that exited non-zero; the message holds the command line, exit code and stderr. */
  public static final class CommandFailedException extends RuntimeException {
    private final transient Result result;

    CommandFailedException(Result result) {
      super(
          "`"
              + String.join(" ", result.argv())
              + "` exited "
              + result.exitCode()
              + ": "
              + (result.stderr().isBlank() ? result.stdout().strip() : result.stderr().strip()));
      this.result = result;
    }

    public Result result() {
      return result;
    }
  }

  /** Runs argv, throwing when it exits non-zero. */
  public static String run(String... argv) {
    return exec(List.of(argv)).orThrow();
  }

  /** Runs argv, throwing when it exits non-zero. */
  public static String run(List<String> argv) {
    return exec(argv).orThrow();
  }

  /** Runs argv and returns its outcome whatever the exit code. */
  public static Result exec(List<String> argv) {
    return exec(argv, null);
  }

  /** Runs argv with {@code stdin} (may be null) and returns its outcome whatever the exit code. */
  public static Result exec(List<String> argv, String stdin) {
    Programs.check(argv);
    ProcessBuilder pb = new ProcessBuilder(argv);
    if (stdin == null) {
      pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    }
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start `" + String.join(" ", argv) + "`", e);
    }
    CompletableFuture<String> out = drain(p.getInputStream());
    CompletableFuture<String> err = drain(p.getErrorStream());
    try {
      if (stdin != null) {
        try (var in = p.getOutputStream()) {
          in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
      }
      if (!p.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly().waitFor();
        throw new IllegalStateException(
            "`" + String.join(" ", argv) + "` did not finish within " + TIMEOUT);
      }
      return new Result(List.copyOf(argv), p.exitValue(), out.join(), err.join());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
      throw new IllegalStateException(
          "interrupted while running `" + String.join(" ", argv) + "`", e);
    }
  }

  private static CompletableFuture<String> drain(InputStream in) {
    return CompletableFuture.supplyAsync(
        () -> {
          try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        },
        Thread::startVirtualThread);
  }
}
