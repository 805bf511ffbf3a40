package dev.sart.sartd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sart.agent.egress.TunnelProbe;
import dev.sart.crds.TunnelMode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code sartd egress}'s error edge: one line, exit 2, nothing made, for a missing Egress name, an
 * unknown tunnel mode, a port out of range, and a tunnel mode the kernel cannot run (probed).
 */
class EgressCommandTest {
  @TempDir Path dir;

  private static String[] run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Sartd.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
    return new String[] {Integer.toString(code), err.toString()};
  }

  private static void assertUsage(String expected, String... args) {
    var r = run(args);
    assertEquals("2", r[0], r[1]);
    assertEquals(expected, r[1].lines().findFirst().orElse(""));
    assertFalse(r[1].contains("\tat "), r[1]);
  }

  @Test
  void flagMistakesAreOneLine() {
    assertUsage("error: --egress: the Egress's name is required", "egress", "--namespace", "n");
    assertUsage(
        "error: --tunnel: 'gre' is not a mode (vxlan, fou)",
        "egress",
        "--egress",
        "nat",
        "--namespace",
        "n",
        "--pod-name",
        "p",
        "--tunnel",
        "gre");
    assertUsage(
        "error: --port: 70000 is not a UDP port (1..65535)",
        "egress",
        "--egress",
        "nat",
        "--namespace",
        "n",
        "--pod-name",
        "p",
        "--port",
        "70000");
  }

  private EgressCommand command(String... args) {
    var c = new EgressCommand();
    new CommandLine(c).parseArgs(args);
    return c;
  }

  @Test
  void aTunnelModeTheKernelLacksIsRefusedNamingTheModules() throws Exception {
    var sys = Files.createDirectories(dir.resolve("sys"));
    Files.createDirectories(sys.resolve("vxlan"));
    var probe = new TunnelProbe(sys, dir.resolve("lib"));
    var fou =
        assertThrows(
            UsageException.class,
            () ->
                command("--egress", "nat", "--namespace", "n", "--pod-name", "p", "--tunnel", "fou")
                    .settings(probe));
    assertEquals(
        "--tunnel fou: this kernel has no fou, ipip, ip6_tunnel modules (neither in /sys/module"
            + " nor in /lib/modules); use tunnel: vxlan in the Egress, or a kernel with fou and ipip",
        fou.getMessage());
    var s = command("--egress", "nat", "--namespace", "n", "--pod-name", "p").settings(probe);
    assertEquals(TunnelMode.VXLAN, s.mode());
    assertEquals(4789, s.port());
    var none = new TunnelProbe(dir.resolve("empty"), dir.resolve("lib"));
    assertEquals(
        "--tunnel vxlan: this kernel has no vxlan module (neither in /sys/module nor in"
            + " /lib/modules); this kernel cannot run an egress gateway",
        assertThrows(
                UsageException.class,
                () ->
                    command("--egress", "nat", "--namespace", "n", "--pod-name", "p")
                        .settings(none))
            .getMessage());
  }
}
