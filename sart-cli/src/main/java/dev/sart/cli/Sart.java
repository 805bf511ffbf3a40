package dev.sart.cli;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** {@code sart}: inspect and drive sartd over its gRPC API. */
@Command(
    name = "sart",
    mixinStandardHelpOptions = true,
    version = "sart dev",
    scope = ScopeType.INHERIT,
    description = "Inspect and drive the sart BGP speaker")
public final class Sart {
  @Option(
      names = {"-o", "--output"},
      scope = ScopeType.INHERIT,
      defaultValue = "plain",
      description = "output format: plain, json, yaml")
  Output.Format output;

  @Option(
      names = {"-e", "--endpoint"},
      scope = ScopeType.INHERIT,
      defaultValue = "localhost:5000",
      description = "the speaker's API (host:port)")
  String endpoint;

  /** A channel to the API; the caller closes it. */
  ManagedChannel channel() {
    int colon = endpoint.lastIndexOf(':');
    if (colon < 0) {
      throw new CommandLine.ParameterException(
          new CommandLine(this), "endpoint must be host:port: " + endpoint);
    }
    return NettyChannelBuilder.forAddress(
            endpoint.substring(0, colon).replace("[", "").replace("]", ""),
            Integer.parseInt(endpoint.substring(colon + 1)))
        .usePlaintext()
        .build();
  }

  static void close(ManagedChannel ch) {
    ch.shutdownNow();
    try {
      ch.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The libraries' loggers (netty, gRPC) write to stderr through java.util.logging; a CLI prints
   * only its own output and errors, so they are held to SEVERE (kept here so they stay configured).
   */
  private static final java.util.List<java.util.logging.Logger> QUIET =
      java.util.stream.Stream.of("io.netty", "io.grpc")
          .map(java.util.logging.Logger::getLogger)
          .toList();

  public static void main(String[] args) {
    setUp();
    System.exit(
        run(
            args,
            new java.io.PrintWriter(System.out, true),
            new java.io.PrintWriter(System.err, true)));
  }

  /** The process-wide settings of the CLI: the libraries' logging (also for {@link Training}). */
  static void setUp() {
    QUIET.forEach(l -> l.setLevel(java.util.logging.Level.SEVERE));
    // fabric8 (sart explain) logs through SLF4J: no provider on the CLI's class path, and no
    // "no providers were found" warning on stderr either
    if (System.getProperty("slf4j.provider") == null) {
      System.setProperty("slf4j.provider", "org.slf4j.helpers.NOP_FallbackServiceProvider");
      System.setProperty("slf4j.internal.verbosity", "WARN");
    }
  }

  /** Runs the CLI with these streams; returns the exit code (for tests). */
  static int run(String[] args, java.io.PrintWriter out, java.io.PrintWriter err) {
    return Commands.of(args, settings(out, err)).execute(args);
  }

  /** The parser's settings, streams and error handling of a run. */
  static java.util.function.Consumer<CommandLine> settings(
      java.io.PrintWriter out, java.io.PrintWriter err) {
    return c -> {
      c.setOut(out);
      c.setErr(err);
      c.setCaseInsensitiveEnumValuesAllowed(true);
      c.setExecutionExceptionHandler(errors(err));
    };
  }

  /** Failures as one line on stderr: the API unreachable (exit 2), anything else (exit 1). */
  private static CommandLine.IExecutionExceptionHandler errors(java.io.PrintWriter err) {
    return (e, cmd, parsed) -> {
      Sart root = cmd.getCommandSpec().root().userObject() instanceof Sart s ? s : null;
      boolean fib = cmd.getCommandSpec().qualifiedName().startsWith("sart fib");
      String where =
          root == null
              ? ""
              : fib ? new FibCommands.Ctx(cmd.getCommandSpec()).endpoint() : root.endpoint;
      if (e instanceof StatusRuntimeException s) {
        err.println(
            switch (s.getStatus().getCode()) {
              case UNAVAILABLE ->
                  "error: cannot reach the sart API at "
                      + where
                      + " (is `sartd "
                      + (fib ? "fib" : "bgp")
                      + "` running? use -e host:port)";
              case DEADLINE_EXCEEDED ->
                  "error: the sart API at " + where + " did not answer in time";
              default ->
                  "error: "
                      + s.getStatus()
                          .getCode()
                          .name()
                          .toLowerCase(java.util.Locale.ROOT)
                          .replace('_', ' ')
                      + ": "
                      + s.getStatus().getDescription();
            });
        return s.getStatus().getCode() == io.grpc.Status.Code.UNAVAILABLE ? 2 : 1;
      }
      err.println("error: " + e.getMessage());
      return 1;
    };
  }
}
