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
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
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
    webhooks = WebhookHttps.start(certs, client);
    https = WebhookHttps.trusting(certs);
  }

  @AfterAll
  static void tearDown() {
    webhooks.close();
    https.close();
    client.close();
    server.destroy();
  }

  private static String review(String operation, String kind, String object, String oldObject) {
    String group = "Service".equals(kind) ? "" : "sart.terassyi.net";
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

  /** The webhook's response to a CREATE of {@code object} (a {@code kind}) sent to {@code path}. */
  private static JsonNode create(String path, String kind, String object) throws Exception {
    return post(path, review("CREATE", kind, object, null));
  }

  /** The webhook's response to an UPDATE from {@code oldObject} to {@code object}. */
  private static JsonNode update(String path, String kind, String object, String oldObject)
      throws Exception {
    return post(path, review("UPDATE", kind, object, oldObject));
  }

  /** Why a request was denied: the AdmissionReview response's status message. */
  private static String message(JsonNode response) {
    return response.path("status").path("message").asText();
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
        create(path, "AddressPool", pool("non-default-lb-pool", "10.0.100.0/24", "service", false))
            .path("allowed")
            .asBoolean());
    var overlap = create(path, "AddressPool", pool("p", "10.0.0.0/16", "service", false));
    assertFalse(overlap.path("allowed").asBoolean());
    assertTrue(
        message(overlap).contains("overlaps AddressPool default-lb-pool"), overlap.toString());
    var secondAuto = create(path, "AddressPool", pool("p", "10.9.0.0/24", "service", true));
    assertEquals(
        "spec.autoAssign: AddressPool default-lb-pool is already the auto-assign IPv4 service pool",
        message(secondAuto));
    assertTrue(
        create(path, "AddressPool", pool("v6", "2001:db8::/112", "service", true))
            .path("allowed")
            .asBoolean(),
        "an IPv6 auto-assign pool next to the IPv4 one");
    var badCidr = create(path, "AddressPool", pool("p", "10.9.0.1/24", "service", false));
    assertTrue(message(badCidr).startsWith("spec.cidr: must be a network address"));
    var changed =
        update(
            path,
            "AddressPool",
            pool("default-lb-pool", "10.0.2.0/24", "service", true),
            pool("default-lb-pool", "10.0.1.0/24", "service", true));
    assertEquals("spec.cidr: is immutable", message(changed));
  }

  @Test
  void bgpPeers() throws Exception {
    var dup =
        create(
            Admission.VALIDATE_BGP_PEER,
            "BGPPeer",
            peer("bgppeer-sample-sart-cp", "sart-worker", "9.9.9.9", null));
    assertFalse(dup.path("allowed").asBoolean());
    assertTrue(message(dup).contains("already peers node sart-worker with AS65000 at 9.9.9.9"));
    assertTrue(
        create(
                Admission.VALIDATE_BGP_PEER,
                "BGPPeer",
                peer("other", "sart-worker2", "9.9.9.9", null))
            .path("allowed")
            .asBoolean());
    var moved =
        update(
            Admission.VALIDATE_BGP_PEER,
            "BGPPeer",
            peer("x", "sart-worker", "7.7.7.7", null),
            peer("x", "sart-worker", "9.9.9.9", null));
    assertEquals("spec.addr: is immutable", message(moved));

    var labelled =
        create(
            Admission.MUTATE_BGP_PEER,
            "BGPPeer",
            peer("x", "sart-worker", "7.7.7.7", "{\"bgp\":\"b\"}"));
    assertEquals(
        "[{\"op\":\"add\",\"path\":\"/metadata/labels/bgppeer.sart.terassyi.net~1node\",\"value\":\"sart-worker\"}]",
        patch(labelled));
    var wrong =
        create(
            Admission.MUTATE_BGP_PEER,
            "BGPPeer",
            peer(
                "x",
                "sart-worker",
                "7.7.7.7",
                "{\"bgppeer.sart.terassyi.net/node\":\"elsewhere\"}"));
    assertFalse(wrong.path("allowed").asBoolean());
  }

  @Test
  void addressBlocksAndServices() throws Exception {
    var noNode =
        create(
            Admission.MUTATE_ADDRESS_BLOCK,
            "AddressBlock",
            """
        {"apiVersion":"sart.terassyi.net/v1alpha2","kind":"AddressBlock","metadata":{"name":"b"},
         "spec":{"cidr":"10.1.0.0/29","type":"pod","poolRef":"default-pod-pool"}}""");
    assertEquals("spec.nodeRef: a pod AddressBlock needs nodeRef", message(noNode));
    var block =
        create(
            Admission.MUTATE_ADDRESS_BLOCK,
            "AddressBlock",
            """
        {"apiVersion":"sart.terassyi.net/v1alpha2","kind":"AddressBlock","metadata":{"name":"b"},
         "spec":{"cidr":"10.1.0.0/29","type":"pod","poolRef":"default-pod-pool","nodeRef":"sart-worker"}}""");
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
    var release = update(Admission.MUTATE_SERVICE, "Service", nowClusterIp, oldLb);
    assertEquals(
        "[{\"op\":\"add\",\"path\":\"/metadata/annotations/service.sart.terassyi.net~1release\",\"value\":\"10.0.1.1\"}]",
        patch(release));
  }

  @Test
  void pathAttributesAreCheckedWhereTheyAreWritten() throws Exception {
    var badService =
        create(
            Admission.MUTATE_SERVICE,
            "Service",
            """
        {"apiVersion":"v1","kind":"Service","metadata":{"name":"s","namespace":"test",
         "annotations":{"sart.terassyi.net/communities":"65000:1,65000:x","sart.terassyi.net/med":"-1"}},
         "spec":{"type":"LoadBalancer","ports":[{"port":80}]}}""");
    assertFalse(badService.path("allowed").asBoolean());
    assertEquals(
        "sart.terassyi.net/communities: '65000:x': a community must be A:B (A, B 0..65535) or"
            + " large:A:B:C (A, B, C 0..4294967295); sart.terassyi.net/med: '-1' must be a number"
            + " 0..4294967295",
        message(badService));
    var goodService =
        create(
            Admission.MUTATE_SERVICE,
            "Service",
            """
        {"apiVersion":"v1","kind":"Service","metadata":{"name":"s","namespace":"test",
         "annotations":{"sart.terassyi.net/communities":"65000:1, large:1:2:3","sart.terassyi.net/localPref":"200"}},
         "spec":{"type":"LoadBalancer","ports":[{"port":80}]}}""");
    assertTrue(goodService.path("allowed").asBoolean());
    var badAdvert =
        create(
            Admission.VALIDATE_BGP_ADVERTISEMENT,
            "BGPAdvertisement",
            """
        {"apiVersion":"sart.terassyi.net/v1alpha2","kind":"BGPAdvertisement","metadata":{"name":"a","namespace":"test"},
         "spec":{"cidr":"198.51.100.1/32","type":"service","protocol":"ipv4","attrs":["local_pref=1e3"]}}""");
    assertFalse(badAdvert.path("allowed").asBoolean());
    assertTrue(
        message(badAdvert).startsWith("spec.attrs[0]: each attribute"), badAdvert.toString());
    var badPool =
        create(
            Admission.VALIDATE_ADDRESS_POOL,
            "AddressPool",
            """
        {"apiVersion":"sart.terassyi.net/v1alpha2","kind":"AddressPool","metadata":{"name":"tagged"},
         "spec":{"cidr":"203.0.113.0/24","type":"service","communities":["65000:100","large:65000:1"]}}""");
    assertFalse(badPool.path("allowed").asBoolean());
    assertTrue(message(badPool).startsWith("spec.communities[1]: "), badPool.toString());
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
