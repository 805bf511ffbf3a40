package dev.sart.agent.cni;

import dev.sart.testbed.Shell;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import javax.tools.ToolProvider;

/**
 * The JVM floor for {@link CniBenchmark}: the plugin's own launcher, flags and JDK, with a jar
 * whose {@code dev.sart.cni.SartCni} only halts, and an AOT cache trained on it through the
 * launcher itself (so with the launcher's flags exactly). What any call of a Java plugin started
 * this way costs at least; VERSION and ADD are compared against it in the same run.
 */
final class JvmFloor {
  private static final String EMPTY_MAIN =
      "package dev.sart.cni; public final class SartCni { public static void main(String[] a) {"
          + " Runtime.getRuntime().halt(0); } }";

  private JvmFloor() {}

  /** Builds the floor plugin in {@code dir} next to the plugin's {@code dist}; returns its path. */
  static Path create(Path dist, Path dir) throws IOException, InterruptedException {
    Path src = dir.resolve("src/dev/sart/cni/SartCni.java");
    Path classes = dir.resolve("classes");
    Files.createDirectories(src.getParent());
    Files.createDirectories(classes);
    Files.writeString(src, EMPTY_MAIN);
    int rc =
        ToolProvider.getSystemJavaCompiler()
            .run(null, null, null, "-d", classes.toString(), src.toString());
    if (rc != 0) {
      throw new IllegalStateException("javac of the empty main failed: " + rc);
    }
    Path jar = dir.resolve("sart-cni.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      out.putNextEntry(new JarEntry("dev/sart/cni/SartCni.class"));
      out.write(Files.readAllBytes(classes.resolve("dev/sart/cni/SartCni.class")));
      out.closeEntry();
    }
    // the launcher, and the runtime it finds: a JDK named in sart-cni.java-home (target/dist) or
    // sart-cni.jre next to it (the image's payload); no cache of an earlier run (the launcher would
    // pass it to the training, and it may be another runtime's)
    for (String f :
        List.of("sart-cni", "sart-cni.java-home", "sart-cni.aot", "sart-cni-version.aot")) {
      Files.deleteIfExists(dir.resolve(f));
      if (!f.endsWith(".aot") && Files.exists(dist.resolve(f))) {
        Files.copy(
            dist.resolve(f),
            dir.resolve(f),
            StandardCopyOption.REPLACE_EXISTING,
            StandardCopyOption.COPY_ATTRIBUTES);
      }
    }
    Path jre = dir.resolve("sart-cni.jre");
    Files.deleteIfExists(jre);
    if (Files.isDirectory(dist.resolve("sart-cni.jre"))) {
      Files.createSymbolicLink(jre, dist.resolve("sart-cni.jre").toAbsolutePath());
    }
    Path launcher = dir.resolve("sart-cni");
    // the launcher passes no cache while there is none; JDK_JAVA_OPTIONS adds the output
    Shell.Result r =
        Shell.exec(
            List.of(
                "env",
                "JDK_JAVA_OPTIONS=-XX:AOTCacheOutput=" + dir.resolve("sart-cni.aot"),
                launcher.toString()),
            "");
    if (!Files.isRegularFile(dir.resolve("sart-cni.aot"))) {
      throw new IllegalStateException("the floor's AOT cache was not written: " + r.stderr());
    }
    return launcher;
  }
}
