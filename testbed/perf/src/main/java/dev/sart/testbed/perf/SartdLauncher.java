package dev.sart.testbed.perf;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * How the harness starts sartd: this JVM's java and class path, the options of {@code
 * sartd/jvm.options}.
 */
final class SartdLauncher {
  private SartdLauncher() {}

  static String java() {
    return ProcessHandle.current().info().command().orElse("java");
  }

  static String classPath() {
    return System.getProperty("java.class.path");
  }

  /** The lines of {@code sartd/jvm.options} without comments and blank lines. */
  static List<String> jvmOptions() {
    Path file = repositoryRoot().resolve("sartd/jvm.options");
    try {
      return Files.readAllLines(file).stream()
          .map(String::strip)
          .filter(l -> !l.isEmpty() && !l.startsWith("#"))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read sartd's JVM options " + file, e);
    }
  }

  /**
   * The source tree: the system property {@code sart.root}, or the first parent of the working
   * directory holding sartd/.
   */
  static Path repositoryRoot() {
    String prop = System.getProperty("sart.root");
    if (prop != null && !prop.isBlank()) {
      return Path.of(prop);
    }
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.exists(p.resolve("sartd/jvm.options"))) {
        return p;
      }
    }
    throw new IllegalStateException(
        "cannot find the source tree (sartd/jvm.options): set -Dsart.root");
  }
}
