package dev.sart.sartd;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The daemon's entry: {@code sartd bgp|fib|version}. */
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
      Sartd.VersionCommand.class
    })
public final class Sartd {
  public static void main(String[] args) {
    System.exit(new CommandLine(new Sartd()).execute(args));
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
