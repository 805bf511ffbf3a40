package dev.sart.testbed.perf;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * How the harness starts sartd, as {@code bin/sartd} does: this JVM's java, the options of {@code
 * sartd/jvm.options}, sartd's jar and class path ({@code sartd/target/classpath.txt}) and, when the
 * build made it, its AOT cache ({@code sartd/target/sartd.aot}, for {@code sartd node} {@code
 * sartd-node.aot}; they hold classes from jars only). Without a packaged sartd: this JVM's class
 * path and no cache.
 */
final class SartdLauncher {
  private SartdLauncher() {}

  static String java() {
    return ProcessHandle.current().info().command().orElse("java");
  }

  static String classPath() {
    Path jar = sartdJar();
    if (jar == null) {
      return System.getProperty("java.class.path");
    }
    try {
      return jar
          + java.io.File.pathSeparator
          + Files.readString(repositoryRoot().resolve("sartd/target/classpath.txt")).strip();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@link #jvmOptions(String)} of {@code sartd bgp}. */
  static List<String> jvmOptions() {
    return jvmOptions("bgp");
  }

  /**
   * The lines of {@code sartd/jvm.options} without comments and blank lines, and the AOT cache of
   * the command when there is one ({@code sartd-node.aot} for {@code node}, {@code sartd.aot} for
   * the others; a cache that does not match the jars is ignored by the JVM, in silence).
   */
  static List<String> jvmOptions(String command) {
    Path file = repositoryRoot().resolve("sartd/jvm.options");
    List<String> options = new java.util.ArrayList<>();
    try {
      Files.readAllLines(file).stream()
          .map(String::strip)
          .filter(l -> !l.isEmpty() && !l.startsWith("#"))
          .forEach(options::add);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read sartd's JVM options " + file, e);
    }
    Path aot = repositoryRoot().resolve("sartd/target/sartd.aot");
    Path nodeAot = repositoryRoot().resolve("sartd/target/sartd-node.aot");
    if (command.equals("node") && Files.isRegularFile(nodeAot)) {
      aot = nodeAot;
    }
    if (sartdJar() != null && Files.isRegularFile(aot)) {
      options.add("-XX:AOTCache=" + aot);
      options.add("-Xlog:aot*=off,cds*=off");
    }
    return options;
  }

  /** sartd's packaged jar with its class path file, or null. */
  private static Path sartdJar() {
    Path target = repositoryRoot().resolve("sartd/target");
    if (!Files.isRegularFile(target.resolve("classpath.txt"))) {
      return null;
    }
    try (var jars = Files.newDirectoryStream(target, "sartd-*.jar")) {
      for (Path j : jars) {
        return j;
      }
    } catch (IOException e) {
      return null;
    }
    return null;
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
