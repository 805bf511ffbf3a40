package dev.sart.cni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.testbed.Programs;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The installer's copy of the plugin's Java runtime into the host's CNI directory: behind a link
 * swapped by rename(2), copied once per runtime, the one before kept, and a plugin started during
 * an upgrade always finding a whole runtime (the real launcher, a stand-in runtime whose {@code
 * java} prints a file of its own tree).
 */
class RuntimesTest {
  @TempDir Path dir;

  /** A stand-in runtime: bin/java prints lib/modules, which names the version. */
  private Path runtime(String name, String version) throws IOException {
    Path jre = dir.resolve(name).resolve(Installer.RUNTIME);
    Files.createDirectories(jre.resolve("bin"));
    Files.createDirectories(jre.resolve("lib"));
    Path java = jre.resolve("bin/java");
    Files.writeString(java, "#!/bin/sh\ncat \"${0%/bin/java}/lib/modules\"\n");
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.writeString(jre.resolve("lib/modules"), version);
    Files.setLastModifiedTime(
        jre.resolve("lib/modules"), FileTime.from(Instant.parse("2026-01-01T00:00:00Z")));
    return jre;
  }

  private static String install(Path jre, Path bin) throws IOException {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    Runtimes.install(jre, bin, new PrintStream(log, true, StandardCharsets.UTF_8));
    return log.toString(StandardCharsets.UTF_8);
  }

  private static List<String> runtimes(Path bin) throws IOException {
    try (var s = Files.list(bin)) {
      return s.map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith(Runtimes.PREFIX))
          .sorted()
          .toList();
    }
  }

  @Test
  void theRuntimeIsCopiedOnceBehindALinkAndOnlyTheOneBeforeIsKept() throws IOException {
    Path bin = Files.createDirectories(dir.resolve("host/opt/cni/bin"));
    Path v1 = runtime("v1", "1");
    assertTrue(install(v1, bin).contains("copied"));
    Path link = bin.resolve(Installer.RUNTIME);
    assertTrue(Files.isSymbolicLink(link));
    assertEquals("1", Files.readString(link.resolve("lib/modules")));
    assertEquals(
        Files.getLastModifiedTime(v1.resolve("lib/modules")),
        Files.getLastModifiedTime(link.resolve("lib/modules")));
    assertTrue(Files.isExecutable(link.resolve("bin/java")));

    assertFalse(install(v1, bin).contains("copied"), "the same runtime is not copied again");
    String first = runtimes(bin).getFirst();

    install(runtime("v2", "2"), bin);
    assertEquals("2", Files.readString(link.resolve("lib/modules")));
    assertEquals(2, runtimes(bin).size(), "the runtime before stays: " + runtimes(bin));
    install(runtime("v3", "3"), bin);
    assertEquals("3", Files.readString(link.resolve("lib/modules")));
    assertEquals(2, runtimes(bin).size());
    assertFalse(runtimes(bin).contains(first), "the oldest is gone: " + runtimes(bin));
  }

  @Test
  void anEarlierRuntimeDirectoryIsReplacedByTheLink() throws IOException {
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path old = Files.createDirectories(bin.resolve(Installer.RUNTIME).resolve("bin"));
    Files.writeString(old.resolve("java"), "old");
    install(runtime("v1", "1"), bin);
    assertTrue(Files.isSymbolicLink(bin.resolve(Installer.RUNTIME)));
    assertEquals("1", Files.readString(bin.resolve(Installer.RUNTIME).resolve("lib/modules")));
    install(runtime("v2", "2"), bin);
    assertEquals(2, runtimes(bin).size(), "the old directory went with the next install");
  }

  @Test
  void aPluginStartedDuringUpgradesAlwaysFindsAWholeRuntime() throws Exception {
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Files.copy(
        Path.of("src/main/sh/sart-cni"),
        bin.resolve("sart-cni"),
        StandardCopyOption.REPLACE_EXISTING);
    Files.setPosixFilePermissions(
        bin.resolve("sart-cni"), PosixFilePermissions.fromString("rwxr-xr-x"));
    Path a = runtime("a", "A");
    Path b = runtime("b", "B");
    install(a, bin);
    CompletableFuture<Void> upgrades =
        CompletableFuture.runAsync(
            () -> {
              try {
                for (int i = 0; i < 200; i++) {
                  install(i % 2 == 0 ? b : a, bin);
                }
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    int calls = 0;
    while (!upgrades.isDone() || calls < 10) {
      ProcessBuilder pb = Programs.processBuilder("sh", bin.resolve("sart-cni").toString());
      pb.environment().clear();
      pb.environment().putAll(Map.of("PATH", "/usr/bin:/bin", "CNI_COMMAND", "VERSION"));
      pb.redirectErrorStream(true);
      Process p = pb.start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(p.waitFor(60, TimeUnit.SECONDS));
      assertEquals(0, p.exitValue(), "call " + calls + ": " + out);
      assertTrue(out.equals("A") || out.equals("B"), "call " + calls + ": " + out);
      calls++;
    }
    upgrades.get();
    assertTrue(
        Files.isSymbolicLink(bin.resolve(Installer.RUNTIME))
            && !Files.exists(
                bin.resolve("." + Installer.RUNTIME + ".link.tmp"), LinkOption.NOFOLLOW_LINKS),
        "no temporary link left");
  }
}
