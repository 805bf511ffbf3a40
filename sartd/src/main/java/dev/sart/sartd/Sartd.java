package dev.sart.sartd;

import java.io.PrintWriter;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The daemon's entry: {@code sartd bgp|fib|agent|node|controller|certgen|egress|version}, and its
 * one error edge: a mistake in a flag or a file is one line on stderr ({@code error: file:line:
 * what}) and exit code 2; anything else that stops a sub-command is {@code error: ...} and exit
 * code 1; a stack trace only with {@code --debug}.
 */
@Command(
    subcommands = {
      BgpCommand.class,
      FibCommand.class,
      AgentCommand.class,
      NodeCommand.class,
      ControllerCommand.class,
      CertgenCommand.class,
      EgressCommand.class,
      Sartd.VersionCommand.class
    })
public final class Sartd extends SartdCommand {
  /** Exit code of a mistake in the flags or the configuration. */
  static final int USAGE = 2;

  /** Exit code of any other failure. */
  static final int FAILED = 1;

  public static void main(String[] args) {
    if (System.getProperty("java.util.logging.manager") == null) {
      // before anything logs: the shutdown hooks' lines must not be lost (SartdLogManager)
      System.setProperty("java.util.logging.manager", SartdLogManager.class.getName());
    }
    System.exit(run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
  }

  /** Runs sartd with {@code args}; returns the exit code. */
  static int run(String[] args, PrintWriter out, PrintWriter err) {
    CommandLine cl = commandLine(args);
    cl.setOut(out);
    cl.setErr(err);
    cl.setParameterExceptionHandler(
        (e, a) -> {
          err.println("error: " + e.getMessage());
          CommandLine c = e.getCommandLine();
          err.println("(see: " + c.getCommandSpec().qualifiedName() + " --help)");
          return USAGE;
        });
    cl.setExecutionExceptionHandler(
        (e, c, parsed) -> {
          boolean debug = List.of(args).contains("--debug");
          int code;
          if (e instanceof ConfigException || e instanceof UsageException) {
            err.println("error: " + e.getMessage());
            code = USAGE;
          } else if (e instanceof IllegalArgumentException) {
            // thrown while reading flags and files before anything starts
            err.println("error: " + e.getMessage());
            code = USAGE;
          } else {
            err.println(
                "error: "
                    + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage())
                    + (debug ? "" : " (--debug shows where)"));
            code = FAILED;
          }
          if (debug) {
            e.printStackTrace(err);
          }
          err.flush();
          return code;
        });
    return cl.execute(args);
  }

  /**
   * The command line of {@code args}: when they name a sub-command, the root ({@link SartdCommand})
   * with only that one, else all of them ({@code --help}, a mistake). picocli builds the model of
   * every command it is given by reflection, with its own classes, which the AOT cache cannot hold
   * (class files of Java 5, verified by the old verifier): all eight were the longest single step
   * of {@code sartd node}'s start before its agent connects (sartd/README.md, "Footprint and
   * start-up").
   */
  static CommandLine commandLine(String[] args) {
    String named = Arrays.stream(args).filter(a -> !a.startsWith("-")).findFirst().orElse("");
    for (Class<?> c : Sartd.class.getAnnotation(Command.class).subcommands()) {
      if (c.getAnnotation(Command.class).name().equals(named)) {
        CommandLine cl = new CommandLine(new SartdCommand());
        cl.addSubcommand(c);
        return cl;
      }
    }
    return new CommandLine(new Sartd());
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = Sartd.class.getPackage().getImplementationVersion();
      return new String[] {v == null ? "dev" : v};
    }
  }

  @Command(name = "version", description = "Print the version")
  static final class VersionCommand implements Runnable {
    @Override
    public void run() {
      System.out.println(new Version().getVersion()[0]);
    }
  }
}
