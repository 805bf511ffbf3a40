package dev.sart.agent.cni;

import java.util.List;

/**
 * The CNI spec versions the agent speaks, and what each allows (CNI spec §"Version
 * considerations").
 */
final class CniVersion {
  static final List<String> SUPPORTED = List.of("0.3.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0");

  private CniVersion() {}

  static int compare(String a, String b) {
    String[] x = a.split("\\.");
    String[] y = b.split("\\.");
    for (int i = 0; i < 3; i++) {
      int c =
          Integer.compare(
              i < x.length ? Integer.parseInt(x[i]) : 0, i < y.length ? Integer.parseInt(y[i]) : 0);
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  /**
   * Checks that {@code command} exists in {@code version}: CHECK from 0.4.0, STATUS and GC from
   * 1.1.0.
   */
  static void requireSupports(String version, String command) throws CniException {
    if (!SUPPORTED.contains(version)) {
      throw new CniException(
          CniException.INCOMPATIBLE_VERSION,
          "incompatible CNI version " + version,
          "sart-cni supports " + SUPPORTED);
    }
    String since =
        switch (command) {
          case "CHECK" -> "0.4.0";
          case "STATUS", "GC" -> "1.1.0";
          default -> "0.3.0";
        };
    if (compare(version, since) < 0) {
      throw new CniException(
          CniException.INCOMPATIBLE_VERSION,
          "configuration version " + version + " does not allow " + command,
          command + " exists from CNI " + since);
    }
  }
}
