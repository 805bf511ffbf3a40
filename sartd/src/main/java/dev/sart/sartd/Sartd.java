package dev.sart.sartd;

import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The daemon's entry: {@code sartd bgp|fib|agent|node|controller|certgen|egress|version}, and its
 * one error edge: a mistake in a flag or a file is one line on stderr ({@code error: file:line:
 * what}) and exit code 2; anything else that stops a sub-command is {@code error: ...} and exit
 * code 1; a stack trace only with {@code --debug}.
 */
@Command(
    name = "sartd",
    mixinStandardHelpOptions = true,
    versionProvider = Sartd.Version.class,
    description = "sart daemon: BGP speaker, FIB, node agent, controller",
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
public final class Sartd {
  /** Exit code of a mistake in the flags or the configuration. */
  static final int USAGE = 2;

  /** Exit code of any other failure. */
  static final int FAILED = 1;

  @Option(
      names = "--debug",
      scope = ScopeType.INHERIT,
      description = "print the stack trace of an error")
  boolean debug;

  public static void main(String[] args) {
    System.exit(run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
  }

  /** Runs sartd with {@code args}; returns the exit code. */
  static int run(String[] args, PrintWriter out, PrintWriter err) {
    CommandLine cl = new CommandLine(new Sartd());
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
