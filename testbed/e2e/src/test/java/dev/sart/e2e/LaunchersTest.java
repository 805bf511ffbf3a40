package dev.sart.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.testbed.Node;
import dev.sart.testbed.Shell;
import dev.sart.testbed.Testbed;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The launchers a user runs from the build tree, {@code bin/sart} and {@code bin/sartd}, print what
 * the program prints and nothing of the JVM's own (no "WARNING: A restricted method ..." lines).
 */
class LaunchersTest {
  private static final Path BIN = project().resolve("bin");

  @RegisterExtension final Testbed testbed = new Testbed();

  @Test
  void sartTalksToTheSpeakerWithNoJvmWarnings() throws Exception {
    Node n = testbed.topology().node("sart");
    SartdNode.start(n, "--as", "65001", "--router-id", "192.0.2.2");
    // the netty transport the CLI loads is what made the JVM warn
    Shell.Result r =
        n.tryExec(BIN.resolve("sart").toString(), "-o", "json", "bgp", "global", "get");
    assertEquals(0, r.exitCode(), r.stderr());
    assertEquals("", r.stderr(), "bin/sart wrote to stderr");
    assertEquals(65001, new ObjectMapper().readTree(r.stdout()).get("asn").asLong());
  }

  @Test
  void sartSaysWhatIsWrongAndNothingElseWhenNoSpeakerListens() {
    Node n = testbed.topology().node("lonely");
    Shell.Result r = n.tryExec(BIN.resolve("sart").toString(), "bgp", "global", "get");
    assertTrue(r.exitCode() != 0, "no speaker: the CLI must fail");
    assertTrue(r.stderr().startsWith("error: cannot reach the sart API"), r.stderr());
    assertTrue(!r.stderr().contains("WARNING"), r.stderr());
  }

  @Test
  void sartdVersionWithNoJvmWarnings() {
    Shell.Result r = Shell.exec(java.util.List.of(BIN.resolve("sartd").toString(), "version"));
    assertEquals(0, r.exitCode(), r.stderr());
    assertEquals("", r.stderr());
    assertTrue(!r.stdout().isBlank(), "sartd version printed nothing");
  }

  private static Path project() {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve("bin/lib/packages.sh"))) {
        return d;
      }
    }
    throw new IllegalStateException("not inside the project");
  }
}
