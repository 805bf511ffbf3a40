package dev.sart.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * A run builds only the commands its arguments name ({@link Commands}); whatever it prints and
 * returns must be what the whole tree gives. Every command here talks to an endpoint nobody listens
 * on, or to no API at all.
 */
class CommandsTest {
  record Run(int code, String out, String err) {}

  private static Run run(String line, Function<String[], CommandLine> model) {
    String[] args = line.isEmpty() ? new String[0] : line.split(" ");
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = model.apply(args);
    Sart.settings(new PrintWriter(out, true), new PrintWriter(err, true)).accept(cl);
    int code = cl.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "--help",
        "--version",
        "bgp",
        "bgp --help",
        "bgp global",
        "bgp global get -e 127.0.0.1:1",
        "-e 127.0.0.1:1 -o json bgp global get",
        "bgp global get -o JSON -e 127.0.0.1:1",
        "bgp global get -o xml -e 127.0.0.1:1",
        "bgp globl get",
        "bgp global get extra",
        "bgp neighbor list -e 127.0.0.1:1",
        "bgp neighbor add --name get 192.0.2.1 65001 -e 127.0.0.1:1",
        "bgp neighbor add --name rib 192.0.2.1 65001 -e 127.0.0.1:1",
        "bgp global rib add 192.0.2.0/24 -t origin=igp -e 127.0.0.1:1",
        "-e global bgp global get",
        "-e fib bgp global get",
        "-e explain -o json bgp neighbor list",
        "fib channel list",
        "fib -e 127.0.0.1:1 channel list",
        "fib channel route --help",
        "explain --help",
        "explain service",
        "help",
        "help bgp global",
        "nosuch",
        "generate-completion"
      })
  void aRunPrintsAndReturnsWhatTheWholeTreeGives(String line) {
    Run whole = run(line, a -> Commands.all());
    Run pruned = run(line, a -> Commands.of(a, c -> {}));
    assertEquals(whole, pruned, "sart " + line);
  }

  @org.junit.jupiter.api.Test
  void aCommandRunIsBuiltWithoutTheCommandsItDoesNotName() {
    CommandLine cl = Commands.of("-e 127.0.0.1:1 bgp global get".split(" "), c -> {});
    assertEquals(Set.of("bgp"), cl.getSubcommands().keySet());
    CommandLine bgp = cl.getSubcommands().get("bgp");
    assertEquals(Set.of("global"), bgp.getSubcommands().keySet());
    assertEquals(Set.of("get"), bgp.getSubcommands().get("global").getSubcommands().keySet());
    // where the arguments stop, the command's subcommands are there for its usage, without theirs
    CommandLine stop = Commands.of(new String[] {"bgp"}, c -> {});
    Map<String, CommandLine> subs = stop.getSubcommands().get("bgp").getSubcommands();
    assertEquals(Set.of("global", "neighbor"), subs.keySet());
    assertTrue(subs.get("global").getSubcommands().isEmpty());
  }

  @org.junit.jupiter.api.Test
  void theTreeHoldsEveryCommandOnce() {
    List<Class<?>> seen = new ArrayList<>();
    Commands.TREE.values().forEach(seen::addAll);
    assertEquals(seen.size(), Set.copyOf(seen).size(), "a command under two parents");
    CommandLine all = Commands.all();
    assertEquals(
        Set.of("bgp", "fib", "explain", "help", "generate-completion"),
        all.getSubcommands().keySet());
    assertEquals(count(all) - 1, seen.size(), "every command of the tree is in the model");
  }

  private static int count(CommandLine cl) {
    int n = 1;
    for (CommandLine s : cl.getSubcommands().values()) {
      n += count(s);
    }
    return n;
  }
}
