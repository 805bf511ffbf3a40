package dev.sart.agent.cni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.sart.testbed.Shell;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarInputStream;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plugin as installed (its files copied elsewhere, times kept): it uses the AOT caches trained
 * at build time (VERSION its own), and still answers, with nothing but the CNI output on stdout,
 * when a cache is missing, stale (another jar) or corrupt.
 */
class CniLauncherTest {
  /** STATUS's answer with no agent (CNI error 50). */
  private static final String NOT_AVAILABLE = "{\"cniVersion\":\"1.0.0\",\"code\":50,";

  private static final String VERSION_OUT =
      "{\"cniVersion\":\"1.0.0\",\"supportedVersions\":[\"0.3.0\",\"0.3.1\",\"0.4.0\",\"1.0.0\",\"1.1.0\"]}\n";

  @TempDir Path dir;

  private Path install() throws Exception {
    Path dist = CniRuntime.PLUGIN.getParent();
    for (String f :
        List.of(
            "sart-cni",
            "sart-veth",
            "sart-router",
            "sart-cni.jar",
            "sart-cni.aot",
            "sart-cni-version.aot",
            "sart-cni.java-home")) {
      Files.copy(dist.resolve(f), dir.resolve(f), StandardCopyOption.COPY_ATTRIBUTES);
    }
    return dir.resolve("sart-cni");
  }

  /** STATUS with no agent: sart's error, alone on stdout. */
  private void assertNotAvailable(Path plugin) {
    String out = call(plugin, "STATUS").stdout();
    assertEquals(true, out.startsWith(NOT_AVAILABLE), out);
    assertEquals(1, out.lines().count(), out);
  }

  /**
   * {@code command} as a runtime calls the plugin (with an endpoint nobody listens on), the
   * environment only the CNI variables and {@code jvmEnv}.
   */
  private Shell.Result call(Path plugin, String command, String... jvmEnv) {
    List<String> argv =
        new java.util.ArrayList<>(
            List.of(
                "env",
                "-i",
                "CNI_COMMAND=" + command,
                "CNI_CONTAINERID=c",
                "CNI_IFNAME=eth0",
                "CNI_NETNS=/var/run/netns/none",
                "CNI_PATH=/opt/cni/bin"));
    argv.addAll(List.of(jvmEnv));
    argv.add(plugin.toString());
    return Shell.exec(
        argv, "{\"cniVersion\":\"1.0.0\",\"endpoint\":\"" + dir.resolve("absent.sock") + "\"}");
  }

  private static String version(Path plugin) {
    return Shell.exec(
            List.of("env", "-i", "CNI_COMMAND=VERSION", plugin.toString()),
            "{\"cniVersion\":\"1.0.0\"}")
        .stdout();
  }

  @Test
  void theInstalledCacheIsValidForTheInstalledJar() throws Exception {
    Path plugin = install();
    assertEquals(VERSION_OUT, version(plugin));
    // AOTMode=on refuses to start when the cache cannot be used
    String javaHome = Files.readString(dir.resolve("sart-cni.java-home")).strip();
    Shell.Result r =
        Shell.exec(
            List.of(
                "env",
                "-i",
                "CNI_COMMAND=VERSION",
                javaHome + "/bin/java",
                "-XX:AOTCache=" + dir.resolve("sart-cni.aot"),
                "-XX:AOTMode=on",
                "-Xint",
                "-XX:+UseSerialGC",
                "-XX:-UsePerfData",
                "-Xss512k",
                "-Xms8m",
                "-Xmx64m",
                "-XX:ReservedCodeCacheSize=8m",
                "--add-exports",
                "java.base/sun.security.jca=ALL-UNNAMED",
                "--add-exports",
                "java.base/sun.nio.ch=ALL-UNNAMED",
                "-cp",
                dir.resolve("sart-cni.jar").toString(),
                "dev.sart.cni.SartCni"),
            "{\"cniVersion\":\"1.0.0\"}");
    assertEquals(VERSION_OUT, r.stdout(), r.stderr());
    // the chained plugins: the same jar and cache under their names
    String chained =
        "{\"cniVersion\":\"1.0.0\",\"supportedVersions\":[\"0.4.0\",\"1.0.0\",\"1.1.0\"]}\n";
    assertEquals(chained, version(dir.resolve("sart-veth")));
    assertEquals(chained, version(dir.resolve("sart-router")));
    List<String> argv = new java.util.ArrayList<>(r.argv());
    argv.add(argv.indexOf("-cp"), "-Dsart.cni.plugin=sart-veth");
    Shell.Result v = Shell.exec(argv, "{\"cniVersion\":\"1.0.0\"}");
    assertEquals(chained, v.stdout(), "the cache holds with the plugin's name: " + v.stderr());
  }

  /**
   * VERSION starts from its own cache, every other command from the plugin's: with {@code
   * -XX:AOTMode=on} (through {@code JDK_JAVA_OPTIONS}) a JVM whose cache cannot be used exits
   * instead of answering, so a broken cache shows which one a command was given.
   */
  @Test
  void versionStartsFromItsOwnCacheAndTheOtherCommandsFromThePlugins() throws Exception {
    Path plugin = install();
    Path aot = dir.resolve("sart-cni.aot");
    Path versionAot = dir.resolve("sart-cni-version.aot");
    Path saved = Files.copy(aot, dir.resolve("saved.aot"), StandardCopyOption.COPY_ATTRIBUTES);
    String strict = "JDK_JAVA_OPTIONS=-XX:AOTMode=on";

    Files.write(aot, new byte[] {1, 2, 3, 4});
    assertEquals(VERSION_OUT, call(plugin, "VERSION", strict).stdout());
    var broken = call(plugin, "STATUS", strict);
    assertEquals(false, broken.stdout().startsWith(NOT_AVAILABLE), broken.stdout());

    Files.move(saved, aot, StandardCopyOption.REPLACE_EXISTING);
    Files.write(versionAot, new byte[] {1, 2, 3, 4});
    var fine = call(plugin, "STATUS", strict);
    assertEquals(true, fine.stdout().startsWith(NOT_AVAILABLE), fine.stdout() + fine.stderr());
    assertNotEquals(VERSION_OUT, call(plugin, "VERSION", strict).stdout());
  }

  @Test
  void aMissingStaleOrCorruptCacheOnlyCostsTime() throws Exception {
    Path plugin = install();
    Path aot = dir.resolve("sart-cni.aot");
    Path jar = dir.resolve("sart-cni.jar");

    // stale: the jar is rebuilt (one more entry), the cache is the old one
    Path rebuilt = dir.resolve("rebuilt.jar");
    try (JarInputStream in = new JarInputStream(Files.newInputStream(jar));
        JarOutputStream out =
            new JarOutputStream(Files.newOutputStream(rebuilt), in.getManifest())) {
      for (JarEntry e; (e = in.getNextJarEntry()) != null; ) {
        out.putNextEntry(new JarEntry(e.getName()));
        in.transferTo(out);
      }
      out.putNextEntry(new JarEntry("stale-marker"));
      out.write(1);
    }
    Files.move(rebuilt, jar, StandardCopyOption.REPLACE_EXISTING);
    assertEquals(VERSION_OUT, version(plugin));
    assertNotAvailable(plugin);

    Path versionAot = dir.resolve("sart-cni-version.aot");
    Files.write(aot, new byte[] {1, 2, 3, 4});
    Files.write(versionAot, new byte[] {1, 2, 3, 4});
    assertEquals(VERSION_OUT, version(plugin));
    assertNotAvailable(plugin);

    Files.delete(aot);
    Files.delete(versionAot);
    assertEquals(VERSION_OUT, version(plugin));
    assertNotAvailable(plugin);

    Files.delete(dir.resolve("sart-cni.java-home"));
    Shell.Result noJava =
        Shell.exec(List.of("env", "-i", "CNI_COMMAND=VERSION", plugin.toString()), "");
    assertNotEquals(0, noJava.exitCode());
    assertEquals(true, noJava.stdout().contains("\"code\":5"), noJava.stdout());
  }
}
