package dev.sart.e2e;

import java.util.ArrayList;
import java.util.List;

/**
 * Command lines that run one of the project's mains in a JVM of its own, on the test's class path.
 */
final class JavaMains {
  static final String JAVA = ProcessHandle.current().info().command().orElse("java");
  private static final String CLASSPATH = System.getProperty("java.class.path");

  private JavaMains() {}

  /** {@code sartd args...}, with native access for netlink as the image runs it. */
  static List<String> sartd(String... args) {
    List<String> argv =
        new ArrayList<>(
            List.of(
                JAVA,
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                CLASSPATH,
                "dev.sart.sartd.Sartd"));
    argv.addAll(List.of(args));
    return argv;
  }

  /**
   * A short-lived tool's main ({@code dev.sart.cli.Sart}, {@code dev.sart.cni.SartCni}): serial GC
   * and the C1 compiler only, as its launcher starts it.
   */
  static List<String> tool(String mainClass, String... args) {
    List<String> argv =
        new ArrayList<>(
            List.of(
                JAVA, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", CLASSPATH, mainClass));
    argv.addAll(List.of(args));
    return argv;
  }
}
