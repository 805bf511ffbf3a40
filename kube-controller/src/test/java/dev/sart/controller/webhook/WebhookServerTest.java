package dev.sart.controller.webhook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sart.controller.MockCluster;
import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressPoolSpec;
import dev.sart.crds.AddressType;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Base64;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The admission webhooks over HTTPS with AdmissionReview JSON as the API server sends it. */
class WebhookServerTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir static Path certs;
  private static KubernetesMockServer server;
  private static KubernetesClient client;
  private static WebhookServer webhooks;
  private static HttpClient https;

  @BeforeAll
  static void setUp() throws Exception {
    Certs.generate("localhost", certs, 30);
    assertTrue(
        Files.readString(certs.resolve("tls.key")).startsWith("-----BEGIN PRIVATE KEY-----"));
    server = MockCluster.server();
    client = server.createClient();
    client
        .resource(
            new AddressPool(
                "default-lb-pool",
                new AddressPoolSpec("10.0.1.0/24", AddressType.SERVICE, null, true)))
        .create();
    client
        .resource(
            new AddressPool(
                "default-pod-pool", new AddressPoolSpec("10.1.0.0/24", AddressType.POD, 29, true)))
        .create();
    client.resource(MockCluster.peerSpec("sart-worker", "9.9.9.9")).create();
    webhooks =
        new WebhookServer(
            new InetSocketAddress("127.0.0.1", 0),
            Certs.serverContext(certs),
            new Admission(client));
    webhooks.start();
    var trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry(
        "ca", Certs.certificates(Files.readString(certs.resolve("tls.crt"))).getFirst());
    var factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(trust);
    var tls = SSLContext.getInstance("TLS");
    tls.init(null, factory.getTrustManagers(), null);
    https = HttpClient.newBuilder().sslContext(tls).build();
  }

  @AfterAll
  static void tearDown() {
    webhooks.close();
    https.close();
    client.close();
    server.destroy();
  }

  private static String review(
      String operation, String kind, String group, String object, String oldObject) {
    return """
        {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
          "uid":"705ab4f5-6393-11e8-b7cc-42010a800002",
          "kind":{"group":"%s","version":"v1alpha2","kind":"%s"},
          "resource":{"group":"%s","version":"v1alpha2","resource":"x"},
          "operation":"%s","userInfo":{"username":"admin"},
          "object":%s,"oldObject":%s,"dryRun":false}}
        """
        .formatted(group, kind, group, operation, object, oldObject == null ? "null" : oldObject);
  }

  private static JsonNode post(String path, String body) throws Exception {
    var response =
        https.send(
            HttpRequest.newBuilder(URI.create("https://localhost:" + webhooks.port() + path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(200, response.statusCode(), response.body());
    var json = JSON.readTree(response.body());
    assertEquals("AdmissionReview", json.path("kind").asText());
    assertEquals(
        "705ab4f5-6393-11e8-b7cc-42010a800002", json.path("response").path("uid").asText());
    return json.path("response");
  }

  private static String pool(String name, String cidr, String type, boolean auto) {
    return """
        {"apiVersion":"sart.terassyi.net/v1alpha2","kind":"AddressPool","metadata":{"name":"%s"},
         "spec":{"cidr":"%s","type":"%s","autoAssign":%s}}"""
        .formatted(name, cidr, type, auto);
  }

  private static String peer(String name, String node, String addr, String labels) {
    return """
        {"apiVersion":"sart.terassyi.net/v1alpha2","kind":"BGPPeer","metadata":{"name":"%s"%s},
         "spec":{"asn":65000,"addr":"%s","nodeBGPRef":"%s","speaker":{"path":"127.0.0.1:5000"}}}"""
        .formatted(name, labels == null ? "" : ",\"labels\":" + labels, addr, node);
  }

  private static String patch(JsonNode response) {
    assertEquals("JSONPatch", response.path("patchType").asText());
    return new String(
        Base64.getDecoder().decode(response.path("patch").asText()), StandardCharsets.UTF_8);
  }

  @Test
  void addressPools() throws Exception {
    var path = Admission.VALIDATE_ADDRESS_POOL;
    assertTrue(
        post(
                path,
                review(
                    "CREATE",
                    "AddressPool",
                    "sart.terassyi.net",
                    pool("non-default-lb-pool", "10.0.100.0/24", "service", false),
                    null))
            .path("allowed")
            .asBoolean());
    var overlap =
        post(
            path,
            review(
                "CREATE",
                "AddressPool",
                "sart.terassyi.net",
                pool("p", "10.0.0.0/16", "service", false),
                null));
    assertFalse(overlap.path("allowed").asBoolean());
    assertTrue(
        overlap
            .path("status")
            .path("message")
            .asText()
            .contains("overlaps AddressPool default-lb-pool"),
        overlap.toString());
    var secondAuto =
        post(
            path,
            review(
                "CREATE",
                "AddressPool",
                "sart.terassyi.net",
                pool("p", "10.9.0.0/24", "service", true),
                null));
    assertEquals(
        "spec.autoAssign: AddressPool default-lb-pool is already the auto-assign IPv4 service pool",
        secondAuto.path("status").path("message").asText());
    assertTrue(
        post(
                path,
                review(
                    "CREATE",
                    "AddressPool",
                    "sart.terassyi.net",
                    pool("v6", "2001:db8::/112", "service", true),
                    null))
            .path("allowed")
            .asBoolean(),
        "an IPv6 auto-assign pool next to the IPv4 one");
    var badCidr =
        post(
            path,
            review(
                "CREATE",
                "AddressPool",
                "sart.terassyi.net",
                pool("p", "10.9.0.1/24", "service", false),
                null));
    assertTrue(
        badCidr
            .path("status")
            .path("message")
            .asText()
            .startsWith("spec.cidr: must be a network address"));
    var changed =
        post(
            path,
            review(
                "UPDATE",
                "AddressPool",
                "sart.terassyi.net",
                pool("default-lb-pool", "10.0.2.0/24", "service", true),
                pool("default-lb-pool", "10.0.1.0/24", "service", true)));
    assertEquals("spec.cidr: is immutable", changed.path("status").path("message").asText());
  }

  @Test
  void bgpPeers() throws Exception {
    var dup =
        post(
            Admission.VALIDATE_BGP_PEER,
            review(
                "CREATE",
                "BGPPeer",
                "sart.terassyi.net",
                peer("bgppeer-sample-sart-cp", "sart-worker", "9.9.9.9", null),
                null));
    assertFalse(dup.path("allowed").asBoolean());
    assertTrue(
        dup.path("status")
            .path("message")
            .asText()
            .contains("already peers node sart-worker with AS65000 at 9.9.9.9"));
    assertTrue(
        post(
                Admission.VALIDATE_BGP_PEER,
                review(
                    "CREATE",
                    "BGPPeer",
                    "sart.terassyi.net",
                    peer("other", "sart-worker2", "9.9.9.9", null),
                    null))
            .path("allowed")
            .asBoolean());
    var moved =
        post(
            Admission.VALIDATE_BGP_PEER,
            review(
                "UPDATE",
                "BGPPeer",
                "sart.terassyi.net",
                peer("x", "sart-worker", "7.7.7.7", null),
                peer("x", "sart-worker", "9.9.9.9", null)));
    assertEquals("spec.addr: is immutable", moved.path("status").path("message").asText());

    var labelled =
        post(
            Admission.MUTATE_BGP_PEER,
            review(
                "CREATE",
                "BGPPeer",
                "sart.terassyi.net",
                peer("x", "sart-worker", "7.7.7.7", "{\"bgp\":\"b\"}"),
                null));
    assertEquals(
        "[{\"op\":\"add\",\"path\":\"/metadata/labels/bgppeer.sart.terassyi.net~1node\",\"value\":\"sart-worker\"}]",
        patch(labelled));
    var wrong =
        post(
            Admission.MUTATE_BGP_PEER,
            review(
                "CREATE",
                "BGPPeer",
                "sart.terassyi.net",
                peer(
                    "x",
                    "sart-worker",
                    "7.7.7.7",
                    "{\"bgppeer.sart.terassyi.net/node\":\"elsewhere\"}"),
                null));
    assertFalse(wrong.path("allowed").asBoolean());
  }

  @Test
  void addressBlocksAndServices() throws Exception {
    var noNode =
        post(
            Admission.MUTATE_ADDRESS_BLOCK,
            review(
                "CREATE",
                "AddressBlock",
                "sart.terassyi.net",
                """
        {"apiVersion":"sart.terassyi.net/v1alpha2","kind":"AddressBlock","metadata":{"name":"b"},
         "spec":{"cidr":"10.1.0.0/29","type":"pod","poolRef":"default-pod-pool"}}""",
                null));
    assertEquals(
        "spec.nodeRef: a pod AddressBlock needs nodeRef",
        noNode.path("status").path("message").asText());
    var block =
        post(
            Admission.MUTATE_ADDRESS_BLOCK,
            review(
                "CREATE",
                "AddressBlock",
                "sart.terassyi.net",
                """
        {"apiVersion":"sart.terassyi.net/v1alpha2","kind":"AddressBlock","metadata":{"name":"b"},
         "spec":{"cidr":"10.1.0.0/29","type":"pod","poolRef":"default-pod-pool","nodeRef":"sart-worker"}}""",
                null));
    assertEquals(
        "[{\"op\":\"add\",\"path\":\"/metadata/labels\",\"value\":{\"addressblock.sart.terassyi.net/node\":\"sart-worker\"}}]",
        patch(block));

    var oldLb =
        """
        {"apiVersion":"v1","kind":"Service","metadata":{"name":"s","namespace":"test"},
         "spec":{"type":"LoadBalancer","ports":[{"port":80}]},"status":{"loadBalancer":{"ingress":[{"ip":"10.0.1.1"}]}}}""";
    var nowClusterIp =
        """
        {"apiVersion":"v1","kind":"Service","metadata":{"name":"s","namespace":"test","annotations":{"a":"b"}},
         "spec":{"type":"ClusterIP","ports":[{"port":80}]}}""";
    var release =
        post(Admission.MUTATE_SERVICE, review("UPDATE", "Service", "", nowClusterIp, oldLb));
    assertEquals(
        "[{\"op\":\"add\",\"path\":\"/metadata/annotations/service.sart.terassyi.net~1release\",\"value\":\"10.0.1.1\"}]",
        patch(release));
  }

  @Test
  void pathAttributesAreCheckedWhereTheyAreWritten() throws Exception {
    var badService =
        post(
            Admission.MUTATE_SERVICE,
            review(
                "CREATE",
                "Service",
                "",
                """
        {"apiVersion":"v1","kind":"Service","metadata":{"name":"s","namespace":"test",
         "annotations":{"sart.terassyi.net/communities":"65000:1,65000:x","sart.terassyi.net/med":"-1"}},
         "spec":{"type":"LoadBalancer","ports":[{"port":80}]}}""",
                null));
    assertFalse(badService.path("allowed").asBoolean());
    assertEquals(
        "sart.terassyi.net/communities: '65000:x': a community must be A:B (A, B 0..65535) or"
            + " large:A:B:C (A, B, C 0..4294967295); sart.terassyi.net/med: '-1' must be a number"
            + " 0..4294967295",
        badService.path("status").path("message").asText());
    var goodService =
        post(
            Admission.MUTATE_SERVICE,
            review(
                "CREATE",
                "Service",
                "",
                """
        {"apiVersion":"v1","kind":"Service","metadata":{"name":"s","namespace":"test",
         "annotations":{"sart.terassyi.net/communities":"65000:1, large:1:2:3","sart.terassyi.net/localPref":"200"}},
         "spec":{"type":"LoadBalancer","ports":[{"port":80}]}}""",
                null));
    assertTrue(goodService.path("allowed").asBoolean());
    var badAdvert =
        post(
            Admission.VALIDATE_BGP_ADVERTISEMENT,
            review(
                "CREATE",
                "BGPAdvertisement",
                "sart.terassyi.net",
                """
        {"apiVersion":"sart.terassyi.net/v1alpha2","kind":"BGPAdvertisement","metadata":{"name":"a","namespace":"test"},
         "spec":{"cidr":"198.51.100.1/32","type":"service","protocol":"ipv4","attrs":["local_pref=1e3"]}}""",
                null));
    assertFalse(badAdvert.path("allowed").asBoolean());
    assertTrue(
        badAdvert
            .path("status")
            .path("message")
            .asText()
            .startsWith("spec.attrs[0]: each attribute"),
        badAdvert.toString());
    var badPool =
        post(
            Admission.VALIDATE_ADDRESS_POOL,
            review(
                "CREATE",
                "AddressPool",
                "sart.terassyi.net",
                """
        {"apiVersion":"sart.terassyi.net/v1alpha2","kind":"AddressPool","metadata":{"name":"tagged"},
         "spec":{"cidr":"203.0.113.0/24","type":"service","communities":["65000:100","large:65000:1"]}}""",
                null));
    assertFalse(badPool.path("allowed").asBoolean());
    assertTrue(
        badPool.path("status").path("message").asText().startsWith("spec.communities[1]: "),
        badPool.toString());
  }

  @Test
  void notAnAdmissionReviewIsABadRequest() throws Exception {
    var response =
        https.send(
            HttpRequest.newBuilder(
                    URI.create(
                        "https://localhost:" + webhooks.port() + Admission.VALIDATE_BGP_PEER))
                .POST(HttpRequest.BodyPublishers.ofString("{\"hello\":1}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(400, response.statusCode());
  }
}
