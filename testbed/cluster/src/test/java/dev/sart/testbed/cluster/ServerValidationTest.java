package dev.sart.testbed.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A bad object is refused by the API server itself, with a message naming the field: the CRDs'
 * OpenAPI bounds and CEL rules (which {@code crds}' {@code ValidationTest} mirrors in Java for the
 * webhooks) as a real API server evaluates them. Runs only against a real server (the scenarios'
 * {@code SART_E2E_KUBECONFIG}, e.g. {@code bin/real-crd-server}): fabric8's mock validates nothing.
 */
class ServerValidationTest {
  private static ApiServer api;
  private static KubernetesClient client;

  @BeforeAll
  static void connect() {
    String k = System.getenv(ApiServer.KUBECONFIG_ENV);
    if (k == null || k.isBlank()) {
      k = System.getProperty("sart.e2e.kubeconfig");
    }
    assumeTrue(k != null && !k.isBlank(), "needs a real API server (SART_E2E_KUBECONFIG)");
    api = ApiServer.external(Path.of(k));
    api.applyCrds(Launch.crdManifests());
    client = api.client();
  }

  @AfterAll
  static void close() {
    if (api != null) {
      api.close();
    }
  }

  static Stream<Arguments> refused() {
    String speaker = ",\"nodeBGPRef\":\"node1\",\"speaker\":{\"path\":\"127.0.0.1:5000\"}";
    return Stream.of(
        Arguments.of(
            "AddressPool",
            "{\"cidr\":\"10.0.1.5/24\",\"type\":\"service\"}",
            "spec.cidr",
            "network address"),
        Arguments.of(
            "AddressPool",
            "{\"cidr\":\"10.0.1.0/33\",\"type\":\"service\"}",
            "spec.cidr",
            "must be a CIDR"),
        Arguments.of(
            "AddressPool",
            "{\"cidr\":\"10.1.0.0/24\",\"type\":\"pod\",\"blockSize\":23}",
            "spec.blockSize",
            "must lie between"),
        Arguments.of(
            "AddressPool",
            "{\"cidr\":\"10.0.1.0/24\",\"type\":\"service\",\"blockSize\":30}",
            "spec.blockSize",
            "single block"),
        Arguments.of(
            "AddressPool",
            "{\"cidr\":\"10.0.1.0/24\",\"type\":\"service\",\"allowedNamespaces\":[\"a\"]}",
            "spec.allowedNamespaces",
            "only for pools of type egress"),
        Arguments.of(
            "AddressPool",
            "{\"cidr\":\"10.0.1.0/24\",\"type\":\"services\"}",
            "spec.type",
            "Unsupported value"),
        Arguments.of(
            "BGPPeer",
            "{\"addr\":\"192.0.2.1\",\"interface\":\"eth0\",\"asn\":65000" + speaker + "}",
            "spec.addr",
            "exactly one of addr and interface"),
        Arguments.of(
            "BGPPeer",
            "{\"addr\":\"192.0.2.1\",\"asn\":65000,\"holdTime\":30,\"keepaliveTime\":90"
                + speaker
                + "}",
            "spec.keepaliveTime",
            "shorter than holdTime"),
        Arguments.of(
            "BGPPeer",
            "{\"addr\":\"192.0.2.1\",\"asn\":4294967296" + speaker + "}",
            "spec.asn",
            "4294967295"),
        Arguments.of(
            "BGPPeer",
            "{\"addr\":\"192.0.2.300\",\"asn\":65000" + speaker + "}",
            "spec.addr",
            "IPv4 or IPv6 address"),
        Arguments.of(
            "BGPAdvertisement",
            "{\"cidr\":\"192.0.2.1/32\",\"protocol\":\"ipv6\",\"type\":\"service\"}",
            "spec.protocol",
            "address family of cidr"),
        Arguments.of(
            "BGPAdvertisement",
            "{\"cidr\":\"192.0.2.1/32\",\"protocol\":\"ipv4\",\"type\":\"service\","
                + "\"attrs\":[\"med=10\",\"nonsense\"]}",
            "spec.attrs",
            "each attribute must be"),
        Arguments.of(
            "Egress",
            "{\"destinations\":[\"0.0.0.0/0\",\"198.51.100.7/24\"]}",
            "spec.destinations",
            "network address"),
        Arguments.of(
            "Egress",
            "{\"destinations\":[\"0.0.0.0/0\"],\"sourceAddress\":{\"pool\":\"p\","
                + "\"ports\":[{\"port\":70000,\"service\":\"web\"}]}}",
            "spec.sourceAddress.ports[0].port",
            "65535"));
  }

  @ParameterizedTest(name = "{0} {2}")
  @MethodSource("refused")
  void aBadObjectIsRefusedNamingTheField(String kind, String spec, String field, String what) {
    var e =
        assertThrows(
            KubernetesClientException.class,
            () -> client.resource(object(kind, "bad", spec)).create(),
            "the server took a bad " + kind);
    assertEquals(422, e.getCode(), e.getMessage());
    String message = e.getStatus().getMessage();
    assertTrue(message.contains(field + ": "), message);
    assertTrue(message.contains(what), message);
  }

  @Test
  void aPoolsBlockSizeCannotChange() {
    var created =
        client
            .resource(
                object(
                    "AddressPool",
                    "validation-immutable",
                    "{\"cidr\":\"198.51.100.0/24\",\"type\":\"pod\",\"blockSize\":28,"
                        + "\"autoAssign\":false}"))
            .create();
    try {
      @SuppressWarnings("unchecked")
      var spec = (Map<String, Object>) created.getAdditionalProperties().get("spec");
      spec.put("blockSize", 29);
      var e =
          assertThrows(KubernetesClientException.class, () -> client.resource(created).update());
      assertEquals(422, e.getCode(), e.getMessage());
      assertTrue(e.getStatus().getMessage().contains("spec.blockSize: "), e.getMessage());
      assertTrue(e.getStatus().getMessage().contains("immutable"), e.getMessage());
    } finally {
      client.resource(created).delete();
    }
  }

  private static GenericKubernetesResource object(String kind, String name, String spec) {
    boolean namespaced = kind.equals("BGPAdvertisement") || kind.equals("Egress");
    return client
        .getKubernetesSerialization()
        .unmarshal(
            "{\"apiVersion\":\"sart.terassyi.net/v1alpha2\",\"kind\":\""
                + kind
                + "\",\"metadata\":{"
                + (namespaced ? "\"namespace\":\"default\"," : "")
                + "\"name\":\""
                + name
                + "\"},\"spec\":"
                + spec
                + "}",
            GenericKubernetesResource.class);
  }
}
