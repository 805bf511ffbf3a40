package dev.sart.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sart.testbed.Shell;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every overlay renders with the machine's {@code kubectl kustomize}, holds what its mode needs,
 * names only objects it holds, and every container command line in it is one its program accepts
 * ({@link Manifests#checkCommandLines}).
 */
class KustomizeTest {
  private static final Path DEPLOY = Path.of("").toAbsolutePath();

  static String renderYaml(String overlay) {
    return Shell.run("kubectl", "kustomize", DEPLOY.resolve(overlay).toString());
  }

  static List<JsonNode> render(String overlay) throws IOException {
    return Manifests.parse(renderYaml(overlay));
  }

  @ParameterizedTest
  @ValueSource(strings = {"lb", "cni", "dual"})
  void everyContainerCommandLineIsAcceptedByItsProgram(String overlay) throws IOException {
    assertEquals(
        3,
        Manifests.checkCommandLines(render(overlay), overlay),
        overlay + ": sartd controller, sartd node and sartd certgen");
  }

  @Test
  void aFlagSartdDoesNotKnowFails() {
    assertThrows(
        AssertionError.class,
        () -> Manifests.parseSartd(List.of("node", "--mode", "lb"), "sartd node"));
    assertThrows(
        AssertionError.class,
        () -> Manifests.parseSartd(List.of("controller", "--resync", "abc"), "sartd controller"));
    assertThrows(
        AssertionError.class,
        () -> Manifests.parseSartd(List.of("node", "--format", "yaml"), "sartd node"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"lb", "cni", "dual"})
  void everyServiceAccountAndConfigMapAPodNamesIsInItsNamespace(String overlay) throws IOException {
    Manifests.checkReferences(render(overlay), overlay);
  }

  @ParameterizedTest
  @ValueSource(strings = {"lb", "cni", "dual"})
  void eachModeDeploysWhatItNeeds(String overlay) throws IOException {
    Manifests.checkMode(render(overlay), overlay);
  }
}
