package dev.sart.agent.egress;

import dev.sart.crds.TunnelMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Which kernel modules a tunnel mode needs, and which of them this kernel lacks: a module is there
 * when {@code /sys/module/<name>} exists (loaded or built in) or when the running kernel's {@code
 * modules.dep} / {@code modules.builtin} list it (it loads on first use).
 */
public final class TunnelProbe {
  private final Path sys;
  private final Path modules;

  public TunnelProbe(Path sys, Path modules) {
    this.sys = sys;
    this.modules = modules;
  }

  /** This machine's {@code /sys/module} and {@code /lib/modules/<release>}. */
  public static TunnelProbe ofRunningKernel() {
    String release;
    try {
      release = Files.readString(Path.of("/proc/sys/kernel/osrelease")).strip();
    } catch (IOException e) {
      release = "unknown";
    }
    return new TunnelProbe(Path.of("/sys/module"), Path.of("/lib/modules", release));
  }

  public static List<String> needs(TunnelMode mode) {
    return switch (mode) {
      case VXLAN -> List.of("vxlan");
      case FOU -> List.of("fou", "ipip", "ip6_tunnel");
    };
  }

  /**
   * Whether FoU's data path is built ({@link FouGatewayTunnel}, {@link FouClientTunnels}): an
   * automatic choice takes FoU where its modules exist.
   */
  public static final boolean FOU_DATA_PATH = true;

  /** The mode an Egress without {@code tunnel} runs, and why (for the log). */
  public record Choice(TunnelMode mode, String reason) {}

  /** {@link #choose(boolean)} with this build's {@link #FOU_DATA_PATH}. */
  public Choice choose() {
    return choose(FOU_DATA_PATH);
  }

  /**
   * The mode for "auto" (issue 26: the one the kernel supports): FoU (coil's default) when its
   * modules are there and its data path is built, else VXLAN.
   *
   * @throws IllegalStateException naming the modules when the kernel supports neither
   */
  public Choice choose(boolean fouDataPath) {
    var fou = missing(TunnelMode.FOU);
    if (fou.isEmpty() && fouDataPath) {
      return new Choice(TunnelMode.FOU, "fou, ipip and ip6_tunnel modules present");
    }
    var vxlan = missing(TunnelMode.VXLAN);
    if (!vxlan.isEmpty()) {
      throw new IllegalStateException(
          "this kernel supports no tunnel mode: vxlan needs "
              + String.join(", ", vxlan)
              + ", fou needs "
              + (fou.isEmpty() ? "its data path (not built yet)" : String.join(", ", fou))
              + " (modules neither in /sys/module nor in /lib/modules)");
    }
    return new Choice(
        TunnelMode.VXLAN,
        fou.isEmpty()
            ? "fou modules present but the FoU data path is not built"
            : "no " + String.join(", ", fou) + " module" + (fou.size() > 1 ? "s" : ""));
  }

  /** The modules {@code mode} needs that this kernel has not got. */
  public List<String> missing(TunnelMode mode) {
    var out = new ArrayList<String>();
    for (var m : needs(mode)) {
      if (!has(m)) {
        out.add(m);
      }
    }
    return out;
  }

  boolean has(String module) {
    if (Files.isDirectory(sys.resolve(module))) {
      return true;
    }
    for (var list : List.of("modules.builtin", "modules.dep")) {
      try (var lines = Files.lines(modules.resolve(list))) {
        if (lines.anyMatch(l -> l.startsWith("kernel/") && l.contains("/" + module + ".ko"))) {
          return true;
        }
      } catch (IOException e) {
        // no such list
      }
    }
    return false;
  }
}
