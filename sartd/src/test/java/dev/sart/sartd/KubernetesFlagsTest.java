package dev.sart.sartd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every sub-command that talks to Kubernetes takes the same Kubernetes flags, and the fabric8
 * client's SLF4J logging reaches sartd's own log at its level.
 */
class KubernetesFlagsTest {
  @Test
  void everyKubernetesFacingCommandTakesKubeconfig() {
    var sartd = new CommandLine(new Sartd());
    for (var name : List.of("agent", "node", "controller")) {
      var options = sartd.getSubcommands().get(name).getCommandSpec().optionsMap();
      assertTrue(options.containsKey("--kubeconfig"), name + " --kubeconfig");
    }
  }

  @Test
  void controllerNamesAnUnreadableKubeconfig() {
    var captured = new ByteArrayOutputStream();
    var old = System.err;
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    int code;
    try {
      code =
          new CommandLine(new Sartd())
              .execute("controller", "--kubeconfig", "/nonexistent/kubeconfig", "--https=");
    } finally {
      System.setErr(old);
    }
    assertEquals(2, code);
    assertTrue(
        captured
            .toString(StandardCharsets.UTF_8)
            .contains("cannot read kubeconfig /nonexistent/kubeconfig"),
        captured.toString(StandardCharsets.UTF_8));
  }

  @Test
  void aFabric8WarningReachesTheLogAndItsDebugDoesNotAtInfo() {
    var captured = new ByteArrayOutputStream();
    var old = System.err;
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      LogFormat.install("info", "plain");
      var log =
          org.slf4j.LoggerFactory.getLogger(
              "io.fabric8.kubernetes.client.informers.impl.cache.Reflector");
      log.warn("Watch closing with exception for {}", "bgpadvertisements");
      log.debug("hidden at info");
    } finally {
      System.setErr(old);
      LogFormat.install("info", "plain");
    }
    var out = captured.toString(StandardCharsets.UTF_8);
    assertTrue(
        out.contains(
            "level=warn logger=Reflector Watch closing with exception for bgpadvertisements"),
        out);
    assertTrue(!out.contains("hidden at info"), out);
    assertTrue(!out.contains("No SLF4J providers"), out);
  }
}
