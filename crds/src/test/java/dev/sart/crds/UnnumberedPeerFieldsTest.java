package dev.sart.crds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The addition {@code interface} (an unnumbered neighbour, RFC 8950 fabrics) of BGPPeer and
 * BGPPeerTemplate in the checked-in CRDs and in the Java rule set: {@code addr} is no longer
 * required, exactly one of the two names a BGPPeer's neighbour (a CEL rule a real API server
 * applies, naming {@code spec.addr}), a template or inline peerConfig has at most one, and a
 * BGPPeer keeps its interface as it keeps its address. sart's manifests (addr only) stay valid.
 */
class UnnumberedPeerFieldsTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final SpeakerConfig SPEAKER = new SpeakerConfig("127.0.0.1:5000", null, null);

  private static JsonNode crd(String file) throws IOException {
    return YAML.readTree(CrdYaml.CHECKED_IN.resolve(file).toFile())
        .path("spec")
        .path("versions")
        .get(0)
        .path("schema")
        .path("openAPIV3Schema");
  }

  private static List<String> rules(JsonNode node) {
    List<String> out = new ArrayList<>();
    node.path("x-kubernetes-validations").forEach(r -> out.add(r.path("rule").asText()));
    return out;
  }

  private static List<String> required(JsonNode node) {
    List<String> out = new ArrayList<>();
    node.path("required").forEach(r -> out.add(r.asText()));
    return out;
  }

  private static void assertInterfaceField(JsonNode spec, String where) {
    JsonNode f = spec.path("properties").path("interface");
    assertEquals("string", f.path("type").asText(), where);
    assertEquals(15, f.path("maxLength").asInt(), where + ": IFNAMSIZ - 1");
    assertEquals(1, f.path("minLength").asInt(), where);
    assertFalse(required(spec).contains("interface"), where);
    assertFalse(required(spec).contains("addr"), where + ": addr no longer required");
  }

  @Test
  void theCrdsCarryInterfaceWithItsRules() throws IOException {
    JsonNode peer = crd("bgppeers.sart.terassyi.net-v1.yml");
    JsonNode spec = peer.path("properties").path("spec");
    assertInterfaceField(spec, "BGPPeer");
    assertTrue(rules(spec).contains("has(self.addr) != has(self.interface)"), "exactly one");
    assertTrue(
        rules(peer).stream().anyMatch(r -> r.contains("self.spec.interface == oldSelf")),
        "interface immutable");
    assertTrue(
        rules(peer).stream()
            .anyMatch(r -> r.startsWith("has(self.spec.addr) == has(oldSelf.spec.addr)")),
        "the addr rule holds for a peer without addr");

    JsonNode template =
        crd("bgppeertemplates.sart.terassyi.net-v1.yml").path("properties").path("spec");
    assertInterfaceField(template, "BGPPeerTemplate");
    assertTrue(rules(template).contains("!has(self.addr) || !has(self.interface)"));

    JsonNode node =
        crd("nodebgps.sart.terassyi.net-v1.yml")
            .path("properties")
            .path("spec")
            .path("properties")
            .path("peers")
            .path("items")
            .path("properties")
            .path("spec");
    assertInterfaceField(node, "NodeBGP peer");

    JsonNode cluster =
        crd("clusterbgps.sart.terassyi.net-v1.yml")
            .path("properties")
            .path("spec")
            .path("properties")
            .path("peers")
            .path("items");
    assertInterfaceField(cluster.path("properties").path("peerConfig"), "ClusterBGP peerConfig");
    assertTrue(
        rules(cluster).stream().anyMatch(r -> r.contains("has(self.peerConfig.interface)")),
        "an inline peer may name an interface");
  }

  @Test
  void exactlyOneOfAddrAndInterfaceNamesABgpPeersNeighbour() {
    var byInterface =
        new BGPPeerSpec(
            65000L, null, null, null, null, "n", null, SPEAKER, null, null, null, "eth1");
    assertEquals(List.of(), Validation.bgpPeer(byInterface));
    assertEquals("eth1", byInterface.neighbor());

    var neither = new BGPPeerSpec(65000L, null, null, null, null, "n", null, SPEAKER, null);
    assertEquals(
        List.of("spec.addr: exactly one of addr and interface"), Validation.bgpPeer(neither));
    var both =
        new BGPPeerSpec(
            65000L, "192.0.2.1", null, null, null, "n", null, SPEAKER, null, null, null, "eth1");
    assertEquals(List.of("spec.addr: exactly one of addr and interface"), Validation.bgpPeer(both));
    var badName =
        new BGPPeerSpec(
            65000L, null, null, null, null, "n", null, SPEAKER, null, null, null, "eth1/x");
    assertEquals(
        List.of(
            "spec.interface: must be an interface name (1-15 characters, no '/', ':' or space)"),
        Validation.bgpPeer(badName));

    var other =
        new BGPPeerSpec(
            65000L, null, null, null, null, "n", null, SPEAKER, null, null, null, "eth2");
    assertEquals(
        List.of("spec.interface: is immutable"), Validation.bgpPeerUpdate(byInterface, other));

    var template =
        new BGPPeerTemplateSpec(65000L, "192.0.2.1", null, null, null, null, null, null, "eth1");
    assertEquals(
        List.of("t.addr: at most one of addr and interface"),
        Validation.bgpPeerTemplate("t", template));
  }

  @Test
  void interfaceReadsFromJsonWithItsCrdName() throws IOException {
    var spec =
        new ObjectMapper()
            .readValue(
                "{\"asn\":65000,\"interface\":\"eth1\",\"nodeBGPRef\":\"n\","
                    + "\"speaker\":{\"path\":\"x\"}}",
                BGPPeerSpec.class);
    assertEquals("eth1", spec.interfaceName());
    assertEquals(null, spec.addr());
    assertTrue(new ObjectMapper().writeValueAsString(spec).contains("\"interface\":\"eth1\""));
  }
}
