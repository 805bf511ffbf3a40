package dev.sart.sartd;

import static dev.sart.crds.testing.KubeObjects.labelled;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sart.agent.egress.TunnelProbe;
import dev.sart.crds.Sart;
import dev.sart.crds.TunnelMode;
import dev.sart.crds.testing.KubeObjects;
import dev.sart.testbed.mockapi.EnableMockApi;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code sartd egress}'s error edge: one line, exit 2, nothing made, for a missing Egress name, an
 * unknown tunnel mode, a port out of range, and a tunnel mode the kernel cannot run (probed).
 */
@EnableMockApi
class EgressCommandTest {
  @TempDir Path dir;

  static KubernetesClient client;

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
        "error: --tunnel: 'gre' is not a mode (auto, vxlan, fou)",
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
    var none = new TunnelProbe(dir.resolve("empty"), dir.resolve("lib"));
    assertEquals(
        "--tunnel vxlan: this kernel has no vxlan module (neither in /sys/module nor in"
            + " /lib/modules); this kernel cannot run an egress gateway",
        assertThrows(
                UsageException.class,
                () ->
                    command(
                            "--egress",
                            "nat",
                            "--namespace",
                            "n",
                            "--pod-name",
                            "p",
                            "--tunnel",
                            "vxlan")
                        .settings(none))
            .getMessage());
  }

  @Test
  void withoutATunnelTheKernelIsProbedAndFouChosenWhereItsModulesAre() throws Exception {
    var sys = Files.createDirectories(dir.resolve("sys"));
    Files.createDirectories(sys.resolve("vxlan"));
    var probe = new TunnelProbe(sys, dir.resolve("lib"));
    var s = command("--egress", "nat", "--namespace", "n", "--pod-name", "p").settings(probe);
    assertEquals(TunnelMode.VXLAN, s.mode());
    assertEquals(4789, s.port());
    assertEquals("auto: no fou, ipip, ip6_tunnel modules", s.reason());
    // a kernel with FoU's modules: FoU (coil's default) on its port
    for (var m : List.of("fou", "ipip", "ip6_tunnel")) {
      Files.createDirectories(sys.resolve(m));
    }
    s = command("--egress", "nat", "--namespace", "n", "--pod-name", "p").settings(probe);
    assertEquals(TunnelMode.FOU, s.mode());
    assertEquals(5555, s.port());
    assertEquals("auto: fou, ipip and ip6_tunnel modules present", s.reason());
    s =
        command("--egress", "nat", "--namespace", "n", "--pod-name", "p", "--tunnel", "fou")
            .settings(probe);
    assertEquals(TunnelMode.FOU, s.mode());
    assertEquals("requested", s.reason());
    // this machine's kernel: VXLAN (it has no fou module)
    assertEquals(
        TunnelMode.VXLAN,
        command("--egress", "nat", "--namespace", "n", "--pod-name", "p")
            .settings(TunnelProbe.ofRunningKernel())
            .mode());
    // a kernel with neither: refused, naming what each mode lacks
    var none = new TunnelProbe(dir.resolve("empty"), dir.resolve("lib"));
    assertEquals(
        "--tunnel auto: this kernel supports no tunnel mode: vxlan needs vxlan, fou needs fou,"
            + " ipip, ip6_tunnel (modules neither in /sys/module nor in /lib/modules)",
        assertThrows(
                UsageException.class,
                () ->
                    command("--egress", "nat", "--namespace", "n", "--pod-name", "p")
                        .settings(none))
            .getMessage());
  }

  @Test
  void theChosenModeIsLabelledOnThePodForTheClients() throws Exception {
    client
        .pods()
        .inNamespace("n")
        .resource(
            labelled(KubeObjects.pod("n", "nat-1", null), Map.of(Sart.EGRESS_NAME_LABEL, "nat")))
        .create();
    var sys = Files.createDirectories(dir.resolve("sys"));
    Files.createDirectories(sys.resolve("vxlan"));
    var s =
        command("--egress", "nat", "--namespace", "n", "--pod-name", "nat-1")
            .settings(new TunnelProbe(sys, dir.resolve("lib")));
    EgressCommand.label(client, s);
    var labels = client.pods().inNamespace("n").withName("nat-1").get().getMetadata().getLabels();
    assertEquals("vxlan", labels.get(Sart.EGRESS_TUNNEL_LABEL));
    assertEquals("nat", labels.get(Sart.EGRESS_NAME_LABEL));
    // no such pod (or no right to patch it): a warning, the gateway still starts
    var gone =
        command("--egress", "nat", "--namespace", "n", "--pod-name", "gone")
            .settings(new TunnelProbe(sys, dir.resolve("lib")));
    EgressCommand.label(client, gone);
  }
}
