package dev.sart.agent.egress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sart.crds.TunnelMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TunnelProbeTest {
  @TempDir Path dir;

  @Test
  void aModuleIsThereWhenLoadedBuiltInOrListedForLoading() throws Exception {
    var sys = Files.createDirectories(dir.resolve("sys"));
    var modules = Files.createDirectories(dir.resolve("lib"));
    Files.createDirectories(sys.resolve("vxlan"));
    var probe = new TunnelProbe(sys, modules);
    assertEquals(List.of(), probe.missing(TunnelMode.VXLAN));
    assertEquals(List.of("fou", "ipip", "ip6_tunnel"), probe.missing(TunnelMode.FOU));
    Files.writeString(
        modules.resolve("modules.dep"),
        "kernel/net/ipv4/fou.ko.zst: kernel/net/ipv4/udp_tunnel.ko.zst\n"
            + "kernel/net/ipv4/ipip.ko.zst: kernel/net/ipv4/ip_tunnel.ko.zst\n");
    assertEquals(List.of("ip6_tunnel"), probe.missing(TunnelMode.FOU));
    Files.writeString(modules.resolve("modules.builtin"), "kernel/net/ipv6/ip6_tunnel.ko\n");
    assertEquals(List.of(), probe.missing(TunnelMode.FOU));
  }

  @Test
  void autoTakesFouWhereItsModulesAndDataPathAreElseVxlan() throws Exception {
    var sys = Files.createDirectories(dir.resolve("sys"));
    var probe = new TunnelProbe(sys, dir.resolve("lib"));
    var refused = assertThrows(IllegalStateException.class, () -> probe.choose(true));
    assertEquals(
        "this kernel supports no tunnel mode: vxlan needs vxlan, fou needs fou, ipip, ip6_tunnel"
            + " (modules neither in /sys/module nor in /lib/modules)",
        refused.getMessage());
    Files.createDirectories(sys.resolve("vxlan"));
    assertEquals(TunnelMode.VXLAN, probe.choose(true).mode());
    for (var m : List.of("fou", "ipip", "ip6_tunnel")) {
      Files.createDirectories(sys.resolve(m));
    }
    assertEquals(TunnelMode.FOU, probe.choose(true).mode());
    // as built: the FoU data path is, so FoU where its modules are
    assertEquals(
        new TunnelProbe.Choice(TunnelMode.FOU, "fou, ipip and ip6_tunnel modules present"),
        probe.choose());
    assertEquals(
        new TunnelProbe.Choice(
            TunnelMode.VXLAN, "fou modules present but the FoU data path is not built"),
        probe.choose(false));
  }

  @Test
  void thisKernelHasVxlanAndAutoChoosesIt() {
    assertEquals(TunnelMode.VXLAN, TunnelProbe.ofRunningKernel().choose(true).mode());
  }

  @Test
  void thisKernelHasVxlan() {
    // every egress test here runs VXLAN; FoU's absence is what sartd egress reports (README)
    assertEquals(List.of(), TunnelProbe.ofRunningKernel().missing(TunnelMode.VXLAN));
  }
}
