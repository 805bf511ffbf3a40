package dev.sart.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sart.testbed.Shell;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image Jib wrote to {@code target/sart-image.tar} (an OCI layout), without Docker: its layers
 * are unpacked in order into a root file system, and the programs run from it under {@code chroot}
 * as the image's user, in a PID and mount namespace of their own with {@code /proc} mounted (the
 * JVM's launcher finds its libraries through {@code /proc/self/exe}), as a container runtime would
 * run them.
 */
class ImageTest {
  @TempDir static Path work;
  private static Path root;
  private static JsonNode config;

  @BeforeAll
  static void unpack() throws IOException {
    ImageRoot image = ImageRoot.unpack(work);
    root = image.root();
    config = image.config();
  }

  /** Runs argv from the image's root file system as its user; returns the outcome. */
  private static Shell.Result run(List<String> env, String stdin, String... argv) {
    List<String> cmd = new ArrayList<>(List.of("env"));
    cmd.addAll(env);
    cmd.addAll(
        List.of(
            "unshare",
            "--mount",
            "--pid",
            "--fork",
            "--mount-proc=" + root.resolve("proc"),
            "chroot",
            "--userspec=" + config.get("User").asText(),
            root.toString()));
    cmd.addAll(List.of(argv));
    return Shell.exec(cmd, stdin);
  }

  @Test
  void theConfigRunsSartdAsAnUnprivilegedUser() {
    assertEquals("65532:65532", config.get("User").asText());
    assertEquals("[\"/usr/local/bin/sartd\"]", config.get("Entrypoint").toString());
    assertTrue(config.get("Env").toString().contains("PATH=/usr/local/bin:"), config.toString());
  }

  @Test
  void sartdVersionPrintsTheProjectVersion() {
    var r = run(List.of(), null, "/usr/local/bin/sartd", "version");
    assertEquals(0, r.exitCode(), r.stderr());
    assertEquals(System.getProperty("sart.version"), r.stdout().strip());
  }

  /**
   * A launcher ({@code sartd} or {@code sart}) with {@code -XX:AOTMode=on -Xlog:aot} in its
   * variable for more JVM options: a JVM that cannot use its cache (another runtime, class path or
   * jar) exits; the log says which cache it opened.
   */
  private static Shell.Result onItsAotCache(String program, String... args) {
    List<String> argv = new ArrayList<>(List.of("/usr/local/bin/" + program));
    argv.addAll(List.of(args));
    String var = program.toUpperCase(java.util.Locale.ROOT) + "_JAVA_OPTS";
    var r = run(List.of(var + "=-XX:AOTMode=on -Xlog:aot"), null, argv.toArray(String[]::new));
    assertEquals(0, r.exitCode(), r.stdout() + r.stderr());
    assertTrue(r.stdout().contains("Using AOT-linked classes: true"), r.stdout());
    return r;
  }

  private static Shell.Result sartdOnItsAotCache(String... args) {
    return onItsAotCache("sartd", args);
  }

  /** The image's sartd starts from the AOT cache made for it (deploy/src/build/aot.sh). */
  @Test
  void sartdStartsFromTheImagesAotCache() {
    var r = sartdOnItsAotCache("version");
    assertTrue(r.stdout().contains("/opt/sart/sartd.aot"), r.stdout());
    assertTrue(r.stdout().strip().endsWith(System.getProperty("sart.version")), r.stdout());
  }

  /**
   * {@code sartd node} starts from the cache trained on {@code sartd node} ({@code
   * /opt/sart/sartd-node.aot}), every other command from {@code sartd.aot}: the launcher picks by
   * the subcommand.
   */
  @Test
  void sartdNodeStartsFromTheNodesAotCache() {
    var node = sartdOnItsAotCache("node", "--help");
    assertTrue(node.stdout().contains("/opt/sart/sartd-node.aot"), node.stdout());
    assertTrue(node.stdout().contains("Usage: sartd node"), node.stdout());
    var other = sartdOnItsAotCache("bgp", "--help");
    assertFalse(other.stdout().contains("sartd-node.aot"), other.stdout());
  }

  @Test
  void sartHelpListsItsCommands() {
    var r = run(List.of(), null, "/usr/local/bin/sart", "--help");
    assertEquals(0, r.exitCode(), r.stderr());
    assertTrue(r.stdout().startsWith("Usage: sart "), r.stdout());
    assertTrue(r.stdout().contains("bgp"), r.stdout());
  }

  /**
   * {@code sart} (the CLI users run with {@code kubectl exec}) starts from the AOT cache trained on
   * its commands ({@code /opt/sart/sart.aot}, deploy/src/build/aot.sh).
   */
  @Test
  void sartStartsFromItsAotCache() {
    var help = onItsAotCache("sart", "--help");
    assertTrue(help.stdout().contains("/opt/sart/sart.aot"), help.stdout());
    assertTrue(help.stdout().contains("Usage: sart "), help.stdout());
    var version = onItsAotCache("sart", "--version");
    assertTrue(version.stdout().strip().endsWith("sart dev"), version.stdout());
  }

  /**
   * {@code /opt/java} carries no CDS archive ({@code base.sh}): the AOT caches hold the JDK classes
   * sartd and sart share, and a JVM given one never opens it; it would be 13.7 MiB of every image.
   */
  @Test
  void theRuntimeCarriesNoCdsArchive() throws IOException {
    try (var files = Files.walk(root.resolve("opt/java"))) {
      assertEquals(List.of(), files.filter(f -> f.toString().endsWith(".jsa")).toList());
    }
  }

  @Test
  void sartCniAnswersVersionOnItsOwnRuntime() {
    var r =
        run(List.of("CNI_COMMAND=VERSION"), "{\"cniVersion\":\"1.0.0\"}", "/opt/sart/cni/sart-cni");
    assertEquals(0, r.exitCode(), r.stdout() + r.stderr());
    assertEquals(
        "{\"cniVersion\":\"1.0.0\",\"supportedVersions\":[\"0.3.0\",\"0.3.1\",\"0.4.0\",\"1.0.0\",\"1.1.0\"]}",
        r.stdout().strip());
    assertTrue(
        Files.isExecutable(root.resolve("opt/sart/cni/sart-cni.jre/bin/java")),
        "sart-cni's runtime is next to it, for the installer to copy");
  }

  /**
   * The two conf files the plugin parses at every forwarded call are the JDK's without their
   * comments (base.sh): the same properties, a small part of the bytes.
   */
  @Test
  void sartCniRuntimesConfHasTheJdksPropertiesWithoutItsComments() throws IOException {
    for (String f : List.of("security/java.security", "net.properties")) {
      Path jdk = Path.of(System.getProperty("java.home"), "conf", f);
      Path image = root.resolve("opt/sart/cni/sart-cni.jre/conf").resolve(f);
      assertEquals(properties(jdk), properties(image), f);
      assertTrue(
          Files.size(image) * 5 < Files.size(jdk),
          f + ": " + Files.size(image) + " bytes against the JDK's " + Files.size(jdk));
    }
  }

  private static java.util.Properties properties(Path file) throws IOException {
    var p = new java.util.Properties();
    try (var in = Files.newInputStream(file)) {
      p.load(in);
    }
    return p;
  }

  /**
   * The plugin's launcher starts the JVM from the cache trained for the image's {@code
   * sart-cni.jre} and jar (deploy/src/build/cni-aot.sh): with {@code -XX:AOTMode=on} (through
   * {@code JDK_JAVA_OPTIONS}: the launcher takes no JVM options) a JVM given no cache, or one it
   * cannot map, exits instead of answering.
   */
  @Test
  void sartCniStartsFromTheImagesAotCache() {
    var r =
        run(
            List.of("CNI_COMMAND=VERSION", "JDK_JAVA_OPTIONS=-XX:AOTMode=on"),
            "{\"cniVersion\":\"1.0.0\"}",
            "/opt/sart/cni/sart-cni");
    assertEquals(0, r.exitCode(), r.stdout() + r.stderr());
    assertTrue(
        r.stdout().startsWith("{\"cniVersion\":\"1.0.0\",\"supportedVersions\""), r.stdout());
  }
}
