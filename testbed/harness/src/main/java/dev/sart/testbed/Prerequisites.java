package dev.sart.testbed;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Checks that a test can run for real. A missing program or privilege fails the test with a message
 * saying what to install; nothing is skipped silently.
 */
public final class Prerequisites {
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
        packages.add(
            Programs.declaration(c)
                .map(d -> d.installedBy().isEmpty() ? d.owner() : d.installedBy())
                .orElse("? (not declared in Programs)"));
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
    return Programs.locate(command).isPresent();
  }

  private static boolean isUidZero() {
    try {
      return Shell.run("id", "-u").strip().equals("0");
    } catch (RuntimeException e) {
      return false;
    }
  }
}
