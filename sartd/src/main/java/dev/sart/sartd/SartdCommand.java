package dev.sart.sartd;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The root of {@code sartd}'s command line without its sub-commands: {@link Sartd} adds them all,
 * {@link Sartd#commandLine} only the one named.
 */
@Command(
    name = "sartd",
    mixinStandardHelpOptions = true,
    versionProvider = Sartd.Version.class,
    description = "sart daemon: BGP speaker, FIB, node agent, controller")
class SartdCommand {
  @Option(
      names = "--debug",
      scope = ScopeType.INHERIT,
      description = "print the stack trace of an error")
  boolean debug;
}
