package dev.sart.testbed;

import java.io.File;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks that a test can run for real. A missing program or privilege fails the test with a message
 * saying what to install; nothing is skipped silently.
 */
public final class Prerequisites {
  /** Which Debian package provides each program the test bed runs. */
  private static final Map<String, String> PACKAGES =
      Map.ofEntries(
          Map.entry("ip", "iproute2"),
          Map.entry("bird", "bird2"),
          Map.entry("birdc", "bird2"),
          Map.entry("/usr/lib/frr/bgpd", "frr"),
          Map.entry("/usr/lib/frr/zebra", "frr"),
          Map.entry("vtysh", "frr"),
          Map.entry("gobgpd", "gobgpd"),
          Map.entry("gobgp", "gobgpd"),
          Map.entry("bgpd", "openbgpd"),
          Map.entry("bgpctl", "openbgpd"),
          Map.entry("exabgp", "exabgp"),
          Map.entry("python3", "python3"),
          Map.entry("/usr/bin/python3", "python3"),
          Map.entry("nft", "nftables"),
          Map.entry("tshark", "tshark"));

  private Prerequisites() {}

  /** Network namespaces need root. */
  public static void requireRoot() {
    if (!"root".equals(System.getProperty("user.name")) && !isUidZero()) {
      throw new AssertionError(
          "the test bed needs root to create network namespaces: run the tests as root"
              + " (./bin/test does, and installs the routing daemons)");
    }
  }

  /**
   * Fails, naming the Debian packages to install, when a program is not on PATH (or not at its
   * path).
   */
  public static void requireCommands(String... commands) {
    List<String> missing = new ArrayList<>();
    Set<String> packages = new LinkedHashSet<>();
    for (String c : commands) {
      if (!available(c)) {
        missing.add(c);
        packages.add(PACKAGES.getOrDefault(c, "?"));
      }
    }
    if (!missing.isEmpty()) {
      throw new AssertionError(
          "missing "
              + missing
              + ": install the Debian packages "
              + packages
              + " (as root, ./bin/test installs them)");
    }
  }

  public static boolean available(String command) {
    if (command.contains("/")) {
      return new File(command).canExecute();
    }
    for (String dir :
        System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin").split(":")) {
      if (new File(dir, command).canExecute()) {
        return true;
      }
    }
    // root's PATH normally has the sbin directories; ordinary users' may not
    return new File("/usr/sbin", command).canExecute() || new File("/sbin", command).canExecute();
  }

  private static boolean isUidZero() {
    try {
      return Shell.run("id", "-u").strip().equals("0");
    } catch (RuntimeException e) {
      return false;
    }
  }
}
