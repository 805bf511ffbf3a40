package dev.sart.crds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The object-local rules reject what the CEL rules of the schema reject, with a message naming the
 * field.
 */
class ValidationTest {
  private static final SpeakerConfig SPEAKER = new SpeakerConfig("127.0.0.1:5000", null, null);

  @Test
  void poolCidrMustBeANetworkAddress() {
    assertEquals(
        List.of(),
        Validation.addressPool(
            new AddressPoolSpec("10.0.1.0/24", AddressType.SERVICE, null, true)));
    assertEquals(
        List.of(),
        Validation.addressPool(
            new AddressPoolSpec("2001:db8::/112", AddressType.SERVICE, 112, false)));
    assertTrue(
        Validation.addressPool(new AddressPoolSpec("10.0.1.5/24", AddressType.SERVICE, null, true))
            .getFirst()
            .startsWith("spec.cidr: must be a network address"));
    assertTrue(
        Validation.addressPool(new AddressPoolSpec("10.0.1.0", AddressType.SERVICE, null, true))
            .getFirst()
            .startsWith("spec.cidr:"));
    assertTrue(
        Validation.addressPool(new AddressPoolSpec("10.0.1.0/33", AddressType.SERVICE, null, true))
            .getFirst()
            .startsWith("spec.cidr:"));
    assertTrue(
        Validation.addressPool(
                new AddressPoolSpec("example.com/24", AddressType.SERVICE, null, true))
            .getFirst()
            .startsWith("spec.cidr:"));
  }

  @Test
  void blockSizeLiesBetweenThePrefixLengthAndTheAddressLength() {
    assertEquals(
        List.of(),
        Validation.addressPool(new AddressPoolSpec("10.1.0.0/24", AddressType.POD, 29, true)));
    assertEquals(
        List.of(),
        Validation.addressPool(new AddressPoolSpec("10.10.0.0/29", AddressType.POD, 32, false)));
    assertTrue(
        Validation.addressPool(new AddressPoolSpec("10.1.0.0/24", AddressType.POD, 23, true))
            .getFirst()
            .startsWith("spec.blockSize: must lie between"));
    assertTrue(
        Validation.addressPool(new AddressPoolSpec("10.1.0.0/24", AddressType.POD, 33, true))
            .getFirst()
            .startsWith("spec.blockSize: must lie between"));
    assertEquals(
        List.of(),
        Validation.addressPool(new AddressPoolSpec("fd00::/48", AddressType.POD, 120, true)));
    assertTrue(
        Validation.addressPool(new AddressPoolSpec("10.0.100.0/24", AddressType.SERVICE, 26, false))
            .getFirst()
            .startsWith("spec.blockSize: a service pool is a single block"));
  }

  @Test
  void poolIdentityIsImmutable() {
    var old = new AddressPoolSpec("10.1.0.0/24", AddressType.POD, 29, true);
    assertEquals(
        List.of(),
        Validation.addressPoolUpdate(
            old, new AddressPoolSpec("10.1.0.0/24", AddressType.POD, 29, false)));
    assertEquals(
        List.of(
            "spec.cidr: is immutable", "spec.type: is immutable", "spec.blockSize: is immutable"),
        Validation.addressPoolUpdate(
            old, new AddressPoolSpec("10.2.0.0/24", AddressType.SERVICE, 24, true)));
  }

  @Test
  void peerNeedsAnAddressAnAsnAndSaneTimers() {
    assertEquals(List.of(), Validation.bgpPeer(peer(65000L, "9.9.9.9", null, null)));
    assertEquals(List.of(), Validation.bgpPeer(peer(4_200_000_000L, "2001:db8::1", 9L, 3L)));
    assertEquals(
        List.of("spec.asn: must be 1..4294967295"),
        Validation.bgpPeer(peer(0L, "9.9.9.9", null, null)));
    assertEquals(
        List.of("spec.addr: must be an IPv4 or IPv6 address"),
        Validation.bgpPeer(peer(65000L, "router0", null, null)));
    assertEquals(
        List.of("holdTime: must be 0 or 3..65535 (RFC 4271 §4.2)"),
        Validation.bgpPeer(peer(65000L, "9.9.9.9", 2L, null)));
    assertEquals(
        List.of("keepaliveTime: must be shorter than holdTime"),
        Validation.bgpPeer(peer(65000L, "9.9.9.9", 9L, 9L)));
    assertEquals(
        List.of("spec.addr: is immutable"),
        Validation.bgpPeerUpdate(
            peer(65000L, "9.9.9.9", null, null), peer(65000L, "7.7.7.7", null, null)));
  }

  @Test
  void clusterBgpSelectorsNeedTheirValues() {
    var speaker = SPEAKER;
    assertEquals(
        List.of("spec.asnSelector.asn: from: asn needs asn"),
        Validation.clusterBgp(
            new ClusterBGPSpec(
                null,
                new AsnSelector(AsnSelector.From.ASN, null),
                new RouterIdSelector(RouterIdSelector.From.INTERNAL_ADDRESS, null),
                speaker,
                null)));
    assertEquals(
        List.of(
            "spec.routerIdSelector.routerId: must be an IPv4 address (RFC 6286: a 4-octet BGP Identifier)"),
        Validation.clusterBgp(
            new ClusterBGPSpec(
                null,
                new AsnSelector(AsnSelector.From.LABEL, null),
                new RouterIdSelector(RouterIdSelector.From.ROUTER_ID, "2001:db8::1"),
                speaker,
                null)));
    assertEquals(
        List.of(
            "spec.peers[0]: a peer needs peerTemplateRef, or a peerConfig with asn and addr or interface"),
        Validation.clusterBgp(
            new ClusterBGPSpec(
                null,
                new AsnSelector(AsnSelector.From.LABEL, null),
                new RouterIdSelector(RouterIdSelector.From.INTERNAL_ADDRESS, null),
                speaker,
                List.of(
                    new PeerConfig(
                        null,
                        new BGPPeerTemplateSpec(65000L, null, null, null, null, null),
                        null)))));
  }

  @Test
  void advertisementProtocolIsTheFamilyOfItsCidr() {
    assertEquals(
        List.of(),
        Validation.bgpAdvertisement(
            new BGPAdvertisementSpec("10.0.1.1/32", AddressType.SERVICE, Protocol.IPV4, null)));
    assertEquals(
        List.of("spec.protocol: must be the address family of cidr"),
        Validation.bgpAdvertisement(
            new BGPAdvertisementSpec("2001:db8::1/128", AddressType.SERVICE, Protocol.IPV4, null)));
  }

  @Test
  void badPathAttributesAreRejectedNamingTheField() {
    var ok =
        new BGPAdvertisementSpec(
            "198.51.100.1/32",
            AddressType.SERVICE,
            Protocol.IPV4,
            List.of("community=65000:100", "local_pref=200"));
    assertEquals(List.of(), Validation.bgpAdvertisement(ok));
    var errors = Validation.bgpAdvertisement(ok.withAttrs(List.of("med=1", "community=65536:1")));
    assertEquals(1, errors.size(), errors.toString());
    assertTrue(
        errors.getFirst().startsWith("spec.attrs[1]: each attribute must be"), errors.toString());

    var pool =
        new AddressPoolSpec("198.51.100.0/24", AddressType.SERVICE, null, true)
            .withAttrs(List.of("65000:1", "large:1:2"), 4_294_967_296L, -1L);
    assertEquals(
        List.of(
            "spec.communities[1]: " + AdvertisementAttrs.COMMUNITY_MESSAGE + " (got 'large:1:2')",
            "spec.localPref: must be 0..4294967295",
            "spec.med: must be 0..4294967295"),
        Validation.addressPool(pool));
  }

  @Test
  void schemaCheckFindsUnknownAndMistypedFields() throws Exception {
    var schema = new Schema(CrdYaml.CHECKED_IN);
    var yaml =
        new com.fasterxml.jackson.databind.ObjectMapper(
            new com.fasterxml.jackson.dataformat.yaml.YAMLFactory());
    var doc =
        yaml.readTree(
            """
        apiVersion: sart.terassyi.net/v1alpha2
        kind: AddressPool
        metadata: {name: p}
        spec: {cidr: 10.0.0.0/24, type: services, blockSize: "24", autoassign: true}
        """);
    assertEquals(
        List.of(
            "spec.type: must be one of [\"egress\", \"pod\", \"service\"]",
            "spec.blockSize: must be an integer",
            "spec.autoassign: unknown field"),
        schema.check(doc));
  }

  @Test
  void schemaCheckFindsTooManyPeers() throws Exception {
    var schema = new Schema(CrdYaml.CHECKED_IN);
    var peers = new StringBuilder();
    for (int i = 0; i < Limits.CLUSTER_PEERS + 1; i++) {
      peers.append("{peerTemplateRef: t").append(i).append("},");
    }
    var doc =
        new com.fasterxml.jackson.databind.ObjectMapper(
                new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
            .readTree(
                "apiVersion: sart.terassyi.net/v1alpha2\nkind: ClusterBGP\nmetadata: {name: c}\n"
                    + "spec: {asnSelector: {from: label}, routerIdSelector: {from: internalAddress},"
                    + " speaker: {path: 127.0.0.1:5000}, peers: ["
                    + peers
                    + "]}\n");
    assertEquals(List.of("spec.peers: more than 64 items"), schema.check(doc));
  }

  @Test
  void onlyAnEgressPoolIsBoundToNamespaces() {
    assertEquals(
        List.of(),
        Validation.addressPool(AddressPoolSpec.egress("203.0.113.0/28", List.of("team-a"))));
    assertEquals(
        List.of("spec.allowedNamespaces: allowedNamespaces is only for pools of type egress"),
        Validation.addressPool(
            new AddressPoolSpec("203.0.113.0/28", AddressType.SERVICE, null, true)
                .withAllowedNamespaces(List.of("team-a"))));
    var pool = AddressPoolSpec.egress("203.0.113.0/28", List.of("team-a"));
    assertTrue(pool.allowsNamespace("team-a"));
    assertEquals(false, pool.allowsNamespace("team-b"));
    assertEquals(
        false,
        new AddressPoolSpec("203.0.113.0/28", AddressType.SERVICE, null, true)
            .allowsNamespace("team-a"));
  }

  @Test
  void egressDestinationsAreNetworksAndItsPortsAreInRange() {
    assertEquals(
        List.of(), Validation.egress(new EgressSpec(List.of("0.0.0.0/0", "2001:db8::/32"), 2)));
    assertEquals(
        List.of("spec.destinations: required (at least one CIDR)"),
        Validation.egress(new EgressSpec(List.of(), 1)));
    assertTrue(
        Validation.egress(new EgressSpec(List.of("0.0.0.0/0", "198.51.100.7/24"), 1))
            .getFirst()
            .startsWith("spec.destinations[1]: must be a network address"));
    var bad =
        new EgressSpec(List.of("198.51.100.0/24"), 1)
            .withSourceAddress(
                new EgressSourceAddress(
                    "egress-pool",
                    "203.0.113.300",
                    List.of(new EgressPort("SCTP", 0, "web", null))));
    assertEquals(
        List.of(
            "spec.sourceAddress.address: must be an IPv4 or IPv6 address",
            "spec.sourceAddress.ports[0].port: must be 1..65535",
            "spec.sourceAddress.ports[0].protocol: must be TCP or UDP"),
        Validation.egress(bad));
  }

  @Test
  void schemaCheckRefusesAnEgressWithTooManyDestinations() throws Exception {
    var schema = new Schema(CrdYaml.CHECKED_IN);
    var destinations = new StringBuilder();
    for (int i = 0; i < Limits.EGRESS_DESTINATIONS + 1; i++) {
      destinations.append("10.").append(i).append(".0.0/16,");
    }
    var doc =
        new com.fasterxml.jackson.databind.ObjectMapper(
                new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
            .readTree(
                "apiVersion: sart.terassyi.net/v1alpha2\nkind: Egress\nmetadata: {name: e, namespace: n}\n"
                    + "spec: {replicas: 2, sessionAffinity: ClientIP, destinations: ["
                    + destinations
                    + "]}\n");
    assertEquals(List.of("spec.destinations: more than 128 items"), schema.check(doc));
  }

  private static BGPPeerSpec peer(Long asn, String addr, Long hold, Long keepalive) {
    return new BGPPeerSpec(asn, addr, hold, keepalive, null, "node1", null, SPEAKER, null);
  }
}
