package dev.sart.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPPeerCondition;
import dev.sart.crds.Sart;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code sart explain service|address} against the mock API server: each link of the chain before
 * the speakers broken on purpose, and {@code explain} names it and says what to do.
 */
class ExplainServiceTest {
  private ExplainCluster cluster;

  @BeforeEach
  void start() throws Exception {
    cluster = new ExplainCluster();
  }

  @AfterEach
  void stop() throws Exception {
    cluster.close();
  }

  private JsonNode firstBroken(String... args) throws Exception {
    String[] all = new String[args.length + 2];
    all[0] = "-o";
    all[1] = "json";
    System.arraycopy(args, 0, all, 2, args.length);
    ExplainCluster.Run r = cluster.explain(all);
    assertEquals(ExplainCommands.BROKEN, r.code(), r.out() + r.err());
    JsonNode doc = r.json();
    assertEquals("broken", doc.path("result").asText());
    return doc.path("firstBroken");
  }

  @Test
  void aServiceWithoutAnAutoAssignPoolSaysSoAndHowToFixIt() throws Exception {
    cluster.pool("other", "203.0.113.0/28", false);
    cluster.service("web", "Cluster", Map.of());
    JsonNode b = firstBroken("service", "default/web");
    assertEquals("pool", b.path("kind").asText());
    assertTrue(b.path("summary").asText().startsWith("no auto-assign pool"), b::toString);
    assertTrue(b.path("fix").asText().contains(Sart.ADDRESS_POOL_ANNOTATION), b::toString);
  }

  @Test
  void anExhaustedPoolIsNamedWithItsCounts() throws Exception {
    cluster.pool("small", "203.0.113.0/30", true); // two usable addresses
    cluster.service("a", "Cluster", Map.of(), "203.0.113.1");
    cluster.service("b", "Cluster", Map.of(), "203.0.113.2");
    cluster.service("web", "Cluster", Map.of());
    JsonNode b = firstBroken("service", "default/web");
    assertEquals("small", b.path("name").asText());
    assertTrue(
        b.path("summary").asText().startsWith("pool exhausted: 2 of 2 addresses"), b::toString);
  }

  @Test
  void aRequestedAddressTakenByAnotherServiceNamesThatService() throws Exception {
    cluster.pool("lb", "203.0.113.0/28", true);
    cluster.service("first", "Cluster", Map.of(), "203.0.113.5");
    cluster.service("web", "Cluster", Map.of(Sart.LOAD_BALANCER_IPS_ANNOTATION, "203.0.113.5"));
    JsonNode b = firstBroken("service", "default/web");
    assertTrue(
        b.path("summary").asText().contains("203.0.113.5 is taken by Service default/first"),
        b::toString);
    assertTrue(b.path("fix").asText().contains("allow-shared-ip"), b::toString);
  }

  @Test
  void aPoolNamedInTheAnnotationThatDoesNotExistIsNamed() throws Exception {
    cluster.pool("lb", "203.0.113.0/28", true);
    cluster.service("web", "Cluster", Map.of(Sart.ADDRESS_POOL_ANNOTATION, "missing"));
    JsonNode b = firstBroken("service", "default/web");
    assertEquals("no AddressPool named missing", b.path("summary").asText());
  }

  @Test
  void aClusterIpServiceIsNotALoadBalancer() throws Exception {
    cluster
        .client
        .resource(
            new io.fabric8.kubernetes.api.model.ServiceBuilder()
                .withNewMetadata()
                .withNamespace("default")
                .withName("plain")
                .endMetadata()
                .withNewSpec()
                .withType("ClusterIP")
                .addNewPort()
                .withPort(80)
                .endPort()
                .endSpec()
                .build())
        .create();
    JsonNode b = firstBroken("service", "default/plain");
    assertTrue(b.path("summary").asText().startsWith("type ClusterIP"), b::toString);
  }

  @Test
  void localTrafficPolicyWithNoReadyEndpointIsTheBrokenLink() throws Exception {
    cluster.pool("lb", "203.0.113.0/28", true);
    cluster.service("web", "Local", Map.of(), "203.0.113.1");
    cluster.endpoints("web", "node-a", false);
    String peer = cluster.peer("node-a", "192.0.2.2", BGPPeerCondition.Status.Established);
    cluster.advertisement("web", "203.0.113.1", Map.of(peer, AdvertiseStatus.Withdraw));
    JsonNode b = firstBroken("service", "default/web");
    assertEquals("endpoints", b.path("kind").asText());
    assertTrue(
        b.path("summary").asText().startsWith("externalTrafficPolicy Local and no ready endpoint"),
        b::toString);
  }

  @Test
  void localTrafficPolicyTargetsOnlyTheNodesWithAReadyEndpoint() throws Exception {
    cluster.pool("lb", "203.0.113.0/28", true);
    cluster.service("web", "Local", Map.of(), "203.0.113.1");
    cluster.endpoints("web", "node-b", true);
    cluster.peer("node-a", "192.0.2.2", BGPPeerCondition.Status.Established);
    cluster.advertisement("web", "203.0.113.1", Map.of());
    JsonNode b = firstBroken("service", "default/web");
    assertEquals("advertisement", b.path("kind").asText());
    assertTrue(
        b.path("summary")
            .asText()
            .contains("no BGPPeer on the nodes with a ready endpoint (node-b)"),
        b::toString);
  }

  @Test
  void aNodeExcludedFromExternalLoadBalancersIsNamedWithTheCommandThatBringsItBack()
      throws Exception {
    cluster.pool("lb", "203.0.113.0/28", true);
    cluster.service("web", "Local", Map.of(), "203.0.113.1");
    cluster.endpoints("web", "node-a", true);
    cluster.peer("node-a", "192.0.2.2", BGPPeerCondition.Status.Established);
    cluster.advertisement("web", "203.0.113.1", Map.of());
    cluster
        .client
        .resource(
            new io.fabric8.kubernetes.api.model.NodeBuilder()
                .withNewMetadata()
                .withName("node-a")
                .addToLabels(Sart.EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS_LABEL, "true")
                .endMetadata()
                .build())
        .create();
    JsonNode b = firstBroken("service", "default/web");
    assertEquals("advertisement", b.path("kind").asText());
    assertTrue(
        b.path("summary")
            .asText()
            .contains(
                "the nodes that would announce it (node-a) are labelled"
                    + " node.kubernetes.io/exclude-from-external-load-balancers"),
        b::toString);
    assertEquals(
        "kubectl label node node-a node.kubernetes.io/exclude-from-external-load-balancers-",
        b.path("fix").asText());
  }

  private void cordon(String node) {
    cluster
        .client
        .resource(
            new io.fabric8.kubernetes.api.model.NodeBuilder()
                .withNewMetadata()
                .withName(node)
                .endMetadata()
                .withNewSpec()
                .withUnschedulable(true)
                .endSpec()
                .build())
        .create();
  }

  /**
   * A cordoned node the controller took the address from (it runs with {@code
   * --withdraw-from-cordoned-nodes}: its peer has no entry) is named with {@code kubectl uncordon}.
   */
  @Test
  void aCordonedNodeTheControllerWithdrewFromIsNamedWithUncordon() throws Exception {
    cluster.pool("lb", "203.0.113.0/28", true);
    cluster.service("web", "Cluster", Map.of(), "203.0.113.1");
    cluster.endpoints("web", "node-a", true);
    cluster.peer("node-a", "192.0.2.2", BGPPeerCondition.Status.Established);
    cluster.advertisement("web", "203.0.113.1", Map.of());
    cordon("node-a");
    JsonNode b = firstBroken("service", "default/web");
    assertEquals("advertisement", b.path("kind").asText());
    assertEquals(
        "the nodes that would announce it (node-a) are cordoned, and the controller withdraws from"
            + " cordoned nodes (--withdraw-from-cordoned-nodes)",
        b.path("summary").asText());
    assertEquals("kubectl uncordon node-a", b.path("fix").asText());
  }

  /**
   * A Service a moment old: the controller has not written its advertisement's status yet, so no
   * node has an entry; a cordoned node among them is not blamed for it.
   */
  @Test
  void aCordonedNodeIsNotBlamedBeforeTheControllerWroteTheStatus() throws Exception {
    cluster.pool("lb", "203.0.113.0/28", true);
    cluster.service("web", "Cluster", Map.of(), "203.0.113.1");
    cluster.endpoints("web", "node-a", true);
    cluster.endpoints("web", "node-b", true);
    cluster.peer("node-a", "192.0.2.2", BGPPeerCondition.Status.Established);
    cluster.peer("node-b", "192.0.2.6", BGPPeerCondition.Status.Established);
    cluster.advertisement("web", "203.0.113.1", Map.of());
    cordon("node-a");
    ExplainCluster.Run r = cluster.explain("service", "default/web");
    assertEquals(ExplainCommands.BROKEN, r.code(), r.out() + r.err());
    assertTrue(!r.out().contains("cordoned"), r::out);
  }

  /** A cordoned node whose peer still has the address: the controller does not withdraw. */
  @Test
  void aCordonedNodeStillAnnouncingIsNotBlamed() throws Exception {
    cluster.pool("lb", "203.0.113.0/28", true);
    cluster.service("web", "Cluster", Map.of(), "203.0.113.1");
    cluster.endpoints("web", "node-a", true);
    cluster.nodeBgp("node-a", "127.0.0.1:1");
    String peer = cluster.peer("node-a", "192.0.2.2", BGPPeerCondition.Status.Established);
    cluster.advertisement("web", "203.0.113.1", Map.of(peer, AdvertiseStatus.Advertised));
    cordon("node-a");
    JsonNode b = firstBroken("service", "default/web");
    assertEquals("peer", b.path("kind").asText(), b::toString);
    ExplainCluster.Run r = cluster.explain("service", "default/web");
    assertTrue(!r.out().contains("cordoned"), r::out);
  }

  @Test
  void anUnreachableSpeakerSaysWhereItLookedAndHowToPointElsewhere() throws Exception {
    cluster.pool("lb", "203.0.113.0/28", true);
    cluster.service("web", "Cluster", Map.of(), "203.0.113.1");
    cluster.endpoints("web", "node-a", true);
    cluster.nodeBgp("node-a", "127.0.0.1:1");
    String peer = cluster.peer("node-a", "192.0.2.2", BGPPeerCondition.Status.Established);
    cluster.advertisement("web", "203.0.113.1", Map.of(peer, AdvertiseStatus.Advertised));
    JsonNode b = firstBroken("service", "default/web");
    assertEquals("peer", b.path("kind").asText());
    assertTrue(
        b.path("summary").asText().contains("cannot reach the speaker's API at 127.0.0.1:1"),
        b::toString);
    assertTrue(b.path("fix").asText().contains("--speaker node-a=HOST:PORT"), b::toString);
    String out = cluster.explain("service", "default/web").out();
    assertTrue(
        out.contains(
            "announced on 0 of 1 peer(s) on 0 node(s): no node's speaker could be asked (below)"),
        out);
  }

  @Test
  void anAddressInAPoolThatNobodyHoldsIsSaidToBeFree() throws Exception {
    cluster.pool("lb", "203.0.113.0/28", true);
    JsonNode b = firstBroken("address", "203.0.113.9");
    assertTrue(
        b.path("summary").asText().startsWith("in service pool lb (203.0.113.0/28), but no"),
        b::toString);
    JsonNode none = firstBroken("address", "198.51.100.1");
    assertTrue(
        none.path("summary").asText().contains("no AddressPool contains it"), none::toString);
  }

  @Test
  void theAddressFormExplainsTheServiceThatHoldsIt() throws Exception {
    cluster.pool("lb", "203.0.113.0/28", true);
    cluster.service("web", "Cluster", Map.of());
    cluster.service("api", "Cluster", Map.of(), "203.0.113.3");
    ExplainCluster.Run r = cluster.explain("address", "203.0.113.3");
    assertTrue(r.out().startsWith("[ok] service default/api:"), r.out() + r.err());
    assertTrue(r.out().contains("no ready endpoint"), r.out());
  }

  @Test
  void anUnknownServiceIsBrokenAtTheFirstLink() throws Exception {
    JsonNode b = firstBroken("service", "default/nothing");
    assertEquals("service", b.path("kind").asText());
    assertEquals("no such Service", b.path("summary").asText());
  }

  @Test
  void anUnreachableApiServerExitsWithTwoAndOneLine() throws Exception {
    java.nio.file.Path kc = java.nio.file.Files.createTempFile("unreachable", ".kubeconfig");
    java.nio.file.Files.writeString(
        kc,
        java.nio.file.Files.readString(cluster.kubeconfig)
            .replace(cluster.client.getMasterUrl().toString(), "http://127.0.0.1:1/"));
    var out = new java.io.StringWriter();
    var err = new java.io.StringWriter();
    int code =
        dev.sart.cli.Sart.run(
            new String[] {"explain", "--kubeconfig", kc.toString(), "service", "default/web"},
            new java.io.PrintWriter(out),
            new java.io.PrintWriter(err));
    java.nio.file.Files.delete(kc);
    assertEquals(2, code, err.toString());
    assertEquals(
        "error: cannot reach the Kubernetes API at http://127.0.0.1:1/; check the kubeconfig or"
            + " --kubeconfig\n",
        err.toString());
  }
}
