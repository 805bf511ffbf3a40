package dev.sart.crds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * sart's sample manifests (sart.md §8.1: manifests/lb/sample and manifests/cni/sample) apply
 * unchanged: each object passes the generated schema with no unknown field, deserializes into our
 * classes, serializes back to the same document, and passes the object-local rules.
 */
class SampleManifestsTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final Map<String, Class<? extends HasMetadata>> KINDS =
      Map.of(
          "AddressPool", AddressPool.class,
          "AddressBlock", AddressBlock.class,
          "BlockRequest", BlockRequest.class,
          "ClusterBGP", ClusterBGP.class,
          "NodeBGP", NodeBGP.class,
          "BGPPeer", BGPPeer.class,
          "BGPPeerTemplate", BGPPeerTemplate.class,
          "BGPAdvertisement", BGPAdvertisement.class);

  private static Schema schema;

  @BeforeAll
  static void loadCrds() throws IOException {
    schema = new Schema(CrdYaml.CHECKED_IN);
  }

  static Stream<String> samples() {
    return Stream.of(
        "lb/peer_template.yaml",
        "lb/cluster_bgp_a.yaml",
        "lb/cluster_bgp_b.yaml",
        "lb/cluster_bgp_c.yaml",
        "lb/bgp_peer.yaml",
        "lb/lb_address_pool.yaml",
        "cni/pool.yaml",
        "cni/peer_template.yaml",
        "cni/cluster_bgp_spine0.yaml",
        "cni/cluster_bgp_spine1.yaml",
        "cni/bgp_peer.yaml");
  }

  static List<JsonNode> documents(String sample) throws IOException {
    try (InputStream in = SampleManifestsTest.class.getResourceAsStream("/samples/" + sample)) {
      assertNotNull(in, sample);
      var docs = new ArrayList<JsonNode>();
      try (var parser = YAML.getFactory().createParser(in)) {
        var it = YAML.readValues(parser, JsonNode.class);
        while (it.hasNext()) {
          docs.add(it.next());
        }
      }
      return docs;
    }
  }

  @ParameterizedTest
  @MethodSource("samples")
  void sampleAppliesUnchanged(String sample) throws IOException {
    var docs = documents(sample);
    assertFalse(docs.isEmpty(), sample);
    for (var doc : docs) {
      assertEquals(Sart.API_VERSION, doc.path("apiVersion").asText());
      var kind = doc.path("kind").asText();
      assertTrue(schema.knows(kind), kind);
      assertEquals(List.of(), schema.check(doc), sample + " " + kind + " against the CRD schema");

      HasMetadata object = SERIALIZATION.unmarshal(YAML.writeValueAsString(doc), KINDS.get(kind));
      assertEquals(KINDS.get(kind), object.getClass());
      JsonNode back = YAML.readTree(SERIALIZATION.asJson(object));
      assertEquals(
          doc.get("spec"), back.get("spec"), sample + " " + kind + ": spec survives a round trip");
      assertEquals(List.of(), rules(object), sample + " " + kind + " object-local rules");
    }
  }

  static List<String> rules(HasMetadata object) {
    return switch (object) {
      case AddressPool p -> Validation.addressPool(p.getSpec());
      case ClusterBGP c -> Validation.clusterBgp(c.getSpec());
      case BGPPeer p -> Validation.bgpPeer(p.getSpec());
      case BGPPeerTemplate t -> Validation.bgpPeerTemplate("spec", t.getSpec());
      case NodeBGP n -> Validation.nodeBgp(n.getSpec());
      case BGPAdvertisement a -> Validation.bgpAdvertisement(a.getSpec());
      default -> List.of();
    };
  }
}
