package dev.sart.agent.egress;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
  void thisKernelHasVxlan() {
    // every egress test here runs VXLAN; FoU's absence is what sartd egress reports (README)
    assertEquals(List.of(), TunnelProbe.ofRunningKernel().missing(TunnelMode.VXLAN));
  }
}
