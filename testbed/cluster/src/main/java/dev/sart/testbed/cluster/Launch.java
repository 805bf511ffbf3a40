package dev.sart.testbed.cluster;

import java.nio.file.Files;
import java.nio.file.Path;

/** How the cluster starts Java programs (sartd, the sart CLI, the mock server) and finds files. */
public final class Launch {
  private Launch() {}

  /** This JVM's java. */
  public static String java() {
    return ProcessHandle.current().info().command().orElse("java");
  }

  /** This JVM's class path: sartd, the CLI, the mock server and their libraries. */
  public static String classpath() {
    return System.getProperty("java.class.path");
  }

  private static volatile String argFile;

  /**
   * {@code @FILE}: a java argument file holding {@code -cp <this JVM's class path>}, so that the
   * command lines in the processes' logs stay readable.
   */
  public static synchronized String classpathArgument() {
    if (argFile == null) {
      try {
        Path f = Files.createTempFile("sart-cluster-cp-", ".args");
        f.toFile().deleteOnExit();
        Files.writeString(f, "-cp \"" + classpath().replace("\\", "\\\\") + "\"\n");
        argFile = "@" + f;
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    return argFile;
  }

  /**
   * The source tree's root ({@code -Dsart.root}, set by the build and by bin/demo; else the working
   * directory or one of its parents holding {@code crds/manifests}).
   */
  public static Path root() {
    String r = System.getProperty("sart.root");
    if (r != null) {
      return Path.of(r).toAbsolutePath().normalize();
    }
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isDirectory(p.resolve("crds/manifests"))) {
        return p;
      }
    }
    throw new IllegalStateException("cannot find the source tree: set -Dsart.root");
  }

  /** The CRD manifests a user applies. */
  public static Path crdManifests() {
    return root().resolve("crds/manifests");
  }

  /** sart-cni's dist (launcher, jar, AOT cache): what the installer copies onto a node. */
  public static Path cniDist() {
    Path d = root().resolve("sart-cni/target/dist");
    if (!Files.isExecutable(d.resolve("sart-cni"))) {
      throw new IllegalStateException(
          d + " holds no sart-cni: build it (./mvnw -pl sart-cni -am package)");
    }
    return d;
  }
}
