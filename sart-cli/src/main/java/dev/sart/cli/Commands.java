package dev.sart.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The CLI's command tree, and the picocli model of as much of it as one run needs.
 *
 * <p>The tree is declared here instead of in the {@code subcommands} attribute of each
 * {@code @Command}: picocli builds its model of a command and of everything that attribute names,
 * recursively, by reflection over every option and parameter, and it does so at every start of the
 * CLI in an interpreted, just-started JVM (what it costs: sart-cli/README.md, "Start-up"). So a run
 * gets the commands its arguments name, root to leaf, and each one's direct subcommands where the
 * chain stops (for its usage and picocli's "did you mean" suggestions); {@code help} and {@code
 * generate-completion}, and any argument list the pruned model does not parse exactly as named, get
 * the whole tree, so what a user sees (output, usage, errors) is what the whole tree gives.
 */
final class Commands {
  private Commands() {}

  /** Each command's subcommands, in the order usage lists them. */
  static final Map<Class<?>, List<Class<?>>> TREE =
      Map.of(
          Sart.class,
          List.of(
              BgpCommands.class,
              FibCommands.class,
              ExplainCommands.class,
              CommandLine.HelpCommand.class,
              AutoComplete.GenerateCompletion.class),
          BgpCommands.class,
          List.of(BgpCommands.Global.class, BgpCommands.Neighbor.class),
          BgpCommands.Global.class,
          List.of(
              BgpCommands.Global.Get.class,
              BgpCommands.Global.Set.class,
              BgpCommands.Global.Health.class,
              BgpCommands.Global.Rib.class),
          BgpCommands.Global.Rib.class,
          List.of(
              BgpCommands.Global.Rib.Get.class,
              BgpCommands.Global.Rib.Add.class,
              BgpCommands.Global.Rib.Del.class),
          BgpCommands.Neighbor.class,
          List.of(
              BgpCommands.Neighbor.Get.class,
              BgpCommands.Neighbor.List_.class,
              BgpCommands.Neighbor.Add.class,
              BgpCommands.Neighbor.Del.class,
              BgpCommands.Neighbor.Rib.class,
              BgpCommands.Neighbor.Refresh.class),
          FibCommands.class,
          List.of(FibCommands.ChannelCmd.class),
          FibCommands.ChannelCmd.class,
          List.of(
              FibCommands.ChannelCmd.Get.class,
              FibCommands.ChannelCmd.List_.class,
              FibCommands.ChannelCmd.RouteCmd.class),
          ExplainCommands.class,
          List.of(
              ExplainCommands.ServiceCmd.class,
              ExplainCommands.AddressCmd.class,
              ExplainCommands.PodCmd.class));

  /** Commands that work on the whole tree. */
  private static final List<Class<?>> WHOLE_TREE =
      List.of(CommandLine.HelpCommand.class, AutoComplete.GenerateCompletion.class);

  /** The whole tree. */
  static CommandLine all() {
    return build(Sart.class, null, 0, new ArrayList<>());
  }

  /**
   * The model for {@code args}: the commands they name and the direct subcommands of the last, or
   * the whole tree when that is what parsing them needs (see the class comment); {@code settings}
   * (picocli's parser settings, streams, handlers) are applied to it before it parses anything.
   */
  static CommandLine of(String[] args, Consumer<CommandLine> settings) {
    List<Class<?>> chain = new ArrayList<>();
    CommandLine pruned = build(Sart.class, args, 0, chain);
    settings.accept(pruned);
    if (chain.stream().anyMatch(WHOLE_TREE::contains)) {
      return configured(all(), settings);
    }
    try {
      CommandLine.ParseResult r = pruned.parseArgs(args);
      // the chain named must be the chain parsed: an option's value that happened to be a command's
      // name would have chosen a command the arguments do not run
      List<Class<?>> parsed = new ArrayList<>();
      for (r = r.subcommand(); r != null; r = r.subcommand()) {
        parsed.add(r.commandSpec().userObject().getClass());
      }
      if (parsed.equals(chain)) {
        return pruned; // execute parses again: picocli resets every option first
      }
    } catch (CommandLine.ParameterException e) {
      // the whole tree reports it (with its suggestions), or parses what the pruned one could not
    }
    return configured(all(), settings);
  }

  private static CommandLine configured(CommandLine cl, Consumer<CommandLine> settings) {
    settings.accept(cl);
    return cl;
  }

  /**
   * {@code type}'s command with its subcommands: all of them ({@code args == null}), or the one
   * named first in {@code args} from {@code from} on (added to {@code chain}), else each without
   * its own.
   */
  private static CommandLine build(Class<?> type, String[] args, int from, List<Class<?>> chain) {
    CommandLine cl = new CommandLine(create(type));
    List<Class<?>> subs = TREE.getOrDefault(type, List.of());
    if (args != null) {
      for (int i = from; i < args.length; i++) {
        for (Class<?> s : subs) {
          if (names(s).contains(args[i])) {
            chain.add(s);
            cl.addSubcommand(build(s, args, i + 1, chain));
            return cl;
          }
        }
      }
    }
    for (Class<?> s : subs) {
      cl.addSubcommand(args == null ? build(s, null, 0, chain) : new CommandLine(create(s)));
    }
    return cl;
  }

  private static List<String> names(Class<?> type) {
    Command c = type.getAnnotation(Command.class);
    List<String> n = new ArrayList<>(List.of(c.aliases()));
    n.add(c.name());
    return n;
  }

  private static Object create(Class<?> type) {
    try {
      return CommandLine.defaultFactory().create(type);
    } catch (Exception e) {
      throw new IllegalStateException("cannot create the command " + type.getName(), e);
    }
  }
}
