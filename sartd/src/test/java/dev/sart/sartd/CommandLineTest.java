package dev.sart.sartd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code sartd}'s command line holds only the sub-command it is asked for (its start builds no
 * model of the others), and still answers {@code --help} and a mistake with all of them.
 */
class CommandLineTest {
  private static final List<String> ALL =
      List.of("bgp", "fib", "agent", "node", "controller", "certgen", "egress", "version");

  @Test
  void aNamedCommandIsTheOnlyOneBuilt() {
    var cl = Sartd.commandLine(new String[] {"--debug", "node", "--node-name", "n"});
    assertEquals(List.of("node"), List.copyOf(cl.getSubcommands().keySet()));
    var options = cl.getSubcommands().get("node").getCommandSpec().optionsMap();
    assertTrue(options.containsKey("--kubeconfig"), "node's own options");
    assertTrue(options.containsKey("--debug"), "the root's --debug, inherited");
  }

  @Test
  void helpAndMistakesSeeEveryCommand() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    assertEquals(0, Sartd.run(new String[] {"--help"}, new PrintWriter(out), new PrintWriter(err)));
    for (String c : ALL) {
      assertTrue(out.toString().contains("  " + c + " "), c + " in:\n" + out);
    }
    assertEquals(
        ALL, List.copyOf(Sartd.commandLine(new String[] {"nosuch"}).getSubcommands().keySet()));
    err = new StringWriter();
    assertEquals(
        2, Sartd.run(new String[] {"nosuch"}, new PrintWriter(out), new PrintWriter(err, true)));
    assertTrue(err.toString().startsWith("error: Unmatched argument"), err.toString());
  }

  @Test
  void theRootsOptionsComeBeforeTheName() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code =
        Sartd.run(
            new String[] {"--debug", "bgp", "--as", "notanumber"},
            new PrintWriter(out, true),
            new PrintWriter(err, true));
    assertEquals(2, code, err.toString());
    assertTrue(err.toString().contains("--as"), err.toString());
  }
}
