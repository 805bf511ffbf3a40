package dev.sart.crds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * The additions {@code bfd} and {@code gracefulRestart} of BGPPeer, BGPPeerTemplate (and so of
 * ClusterBGP's inline {@code peerConfig} and NodeBGP's peers) in the checked-in CRDs: optional
 * (sart's manifests stay valid), and bounded by the schema as the speaker bounds them, so a real
 * API server refuses a bad value naming the field ({@code spec.bfd.multiplier: Invalid value: 300:
 * ... should be less than or equal to 255}); no CEL rule reads them.
 */
class PeerSessionFieldsTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private static JsonNode spec(String file) throws IOException {
    return YAML.readTree(CrdYaml.CHECKED_IN.resolve(file).toFile())
        .path("spec")
        .path("versions")
        .get(0)
        .path("schema")
        .path("openAPIV3Schema")
        .path("properties")
        .path("spec");
  }

  private static void assertBounded(JsonNode spec, String where) {
    JsonNode bfd = spec.path("properties").path("bfd").path("properties");
    assertEquals(1, bfd.path("minTx").path("minimum").asInt(), where);
    assertEquals(60000, bfd.path("minTx").path("maximum").asInt(), where);
    assertEquals(1, bfd.path("minRx").path("minimum").asInt(), where);
    assertEquals(60000, bfd.path("minRx").path("maximum").asInt(), where);
    assertEquals(1, bfd.path("multiplier").path("minimum").asInt(), where);
    assertEquals(255, bfd.path("multiplier").path("maximum").asInt(), where);
    JsonNode gr = spec.path("properties").path("gracefulRestart").path("properties");
    assertEquals("boolean", gr.path("helper").path("type").asText(), where);
    assertEquals("boolean", gr.path("notification").path("type").asText(), where);
    assertEquals(0, gr.path("restartTime").path("minimum").asInt(), where);
    assertEquals(4095, gr.path("restartTime").path("maximum").asInt(), where);
    for (JsonNode r : spec.path("required")) {
      assertFalse(
          r.asText().equals("bfd") || r.asText().equals("gracefulRestart"), where + " required");
    }
  }

  @Test
  void bgpPeerAndTemplateCarryBoundedOptionalBfdAndGracefulRestart() throws IOException {
    assertBounded(spec("bgppeers.sart.terassyi.net-v1.yml"), "BGPPeer");
    assertBounded(spec("bgppeertemplates.sart.terassyi.net-v1.yml"), "BGPPeerTemplate");
    assertBounded(
        spec("clusterbgps.sart.terassyi.net-v1.yml")
            .path("properties")
            .path("peers")
            .path("items")
            .path("properties")
            .path("peerConfig"),
        "ClusterBGP peerConfig");
  }

  @Test
  void theFieldsReadFromJsonWithTheirCrdNames() throws IOException {
    var spec =
        new ObjectMapper()
            .readValue(
                "{\"asn\":65000,\"addr\":\"192.0.2.1\",\"nodeBGPRef\":\"n\",\"speaker\":{\"path\":\"x\"},"
                    + "\"bfd\":{\"minTx\":100,\"multiplier\":3},\"gracefulRestart\":{\"helper\":false}}",
                BGPPeerSpec.class);
    assertEquals(new BfdSpec(100L, null, 3L), spec.bfd());
    assertEquals(new GracefulRestartSpec(false, null), spec.gracefulRestart());
  }
}
