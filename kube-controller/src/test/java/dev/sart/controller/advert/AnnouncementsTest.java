package dev.sart.controller.advert;

import static dev.sart.controller.MockCluster.ingress;
import static dev.sart.controller.MockCluster.peer;
import static dev.sart.controller.MockCluster.pool;
import static dev.sart.crds.testing.KubeObjects.endpoint;
import static dev.sart.crds.testing.KubeObjects.lbService;
import static dev.sart.crds.testing.KubeObjects.slice;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.crds.BGPPeer;
import dev.sart.crds.BGPPeerCondition;
import dev.sart.crds.BGPPeerStatus;
import dev.sart.net.Ip;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Service tells where its address is announced: the {@code sart.terassyi.net/Announced}
 * condition and the Events {@code NotAnnounced}, {@code Announced}, {@code Withdrawn}, with the
 * agents played as they behave (the mock server runs no controllers).
 */
class AnnouncementsTest {
  private static final Duration WAIT = ReconcilersOnMock.WAIT;
  private static final String NA = ReconcilersOnMock.NA;

  private ReconcilersOnMock cluster;
  private KubernetesClient client;

  @BeforeEach
  void setUp() throws Exception {
    cluster =
        new ReconcilersOnMock(
            true,
            c -> {
              pool(c, "default-lb-pool", "10.0.1.0/24", true);
              peer(c, "node1", "9.9.9.9");
              peer(c, "node2", "9.9.9.9");
            });
    client = cluster.client;
  }

  @AfterEach
  void tearDown() {
    cluster.close();
  }

  private Condition condition() {
    var s = client.services().inNamespace("test").withName("web").get();
    return Announcements.condition(s);
  }

  private void awaitCondition(String status, String reason, String message) {
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              Condition c = condition();
              assertEquals(
                  List.of(status, reason, message),
                  List.of(c.getStatus(), c.getReason(), c.getMessage()));
            });
  }

  private void awaitEvent(String type, String reason, String message) {
    await()
        .atMost(WAIT)
        .until(
            () ->
                client.v1().events().inNamespace("test").list().getItems().stream()
                    .anyMatch(
                        e ->
                            "web".equals(e.getInvolvedObject().getName())
                                && type.equals(e.getType())
                                && reason.equals(e.getReason())
                                && message.equals(e.getMessage())));
  }

  private void established(String node) {
    var p = client.resources(BGPPeer.class).withName(node + "-65000-9.9.9.9").get();
    p.setStatus(
        new BGPPeerStatus(
            0L, List.of(new BGPPeerCondition(BGPPeerCondition.Status.Established, "up"))));
    client.resource(p).updateStatus();
  }

  @Test
  void theConditionAndEventsFollowTheAddressFromNoPeerToAnnouncedToWithdrawn() {
    client.resource(lbService("test", "web", Map.of()).build()).create();
    await().ignoreExceptions().atMost(WAIT).until(() -> !ingress(client, "test", "web").isEmpty());
    String advert =
        AdvertisementReconciler.name("web", Ip.parse(ingress(client, "test", "web").getFirst()));
    awaitCondition(
        "False",
        "NoTargets",
        "no target peer: no ready endpoint, or no BGPPeer on the nodes that have one (and are"
            + " not excluded from external load balancers)");

    client
        .resource(
            slice("test", "web", "web-1", List.of(endpoint("10.244.0.5", "node1", true, false))))
        .create();
    String none = "cannot be announced: none of the 2 target peer(s) is Established";
    awaitCondition("False", "NoEstablishedPeer", none);
    awaitEvent("Warning", "NotAnnounced", none);

    established("node1");
    established("node2");
    awaitCondition("False", "Pending", "waiting for the agents to announce it to 2 peer(s)");

    cluster.awaitPeers(advert, Map.of("node1-65000-9.9.9.9", NA, "node2-65000-9.9.9.9", NA));
    cluster.playAgents(advert);
    String on = "announced on 2 of 2 peer(s) on 2 node(s)";
    awaitCondition("True", "Announced", on);
    awaitEvent("Normal", "Announced", on);

    // the pod goes: every peer withdraws
    client
        .resource(
            slice("test", "web", "web-1", List.of(endpoint("10.244.0.5", "node1", false, true))))
        .update();
    cluster.awaitPeers(
        advert, Map.of("node1-65000-9.9.9.9", "Withdraw", "node2-65000-9.9.9.9", "Withdraw"));
    cluster.playAgents(advert);
    String gone =
        "no target peer: no ready endpoint, or no BGPPeer on the nodes that have one (and are"
            + " not excluded from external load balancers)";
    awaitCondition("False", "NoTargets", gone);
    awaitEvent("Normal", "Withdrawn", "withdrawn everywhere: " + gone);
    assertEquals(
        1,
        client
            .services()
            .inNamespace("test")
            .withName("web")
            .get()
            .getStatus()
            .getConditions()
            .stream()
            .filter(c -> Announcements.TYPE.equals(c.getType()))
            .count(),
        "one condition of its type, replaced in place");
  }

  /**
   * A condition that another writer replaced before the cache showed it (the informer then never
   * shows it, so the cache cannot be waited for) is written again once it has had time to settle,
   * and its Event is not posted twice.
   */
  @Test
  void aSentConditionThatNeverReachesTheCacheIsWrittenAgainWithoutASecondEvent() {
    // a Service the reconcilers leave alone (another class), as a real API server stores it
    client
        .resource(
            lbService("test", "other", Map.of())
                .editSpec()
                .withLoadBalancerClass("example.com/other")
                .endSpec()
                .build())
        .create();
    var others = client.services().inNamespace("test").withName("other");
    others.subresource("status").patch(PatchContext.of(PatchType.JSON), ADD_EMPTY_STATUS);
    var cached = others.get(); // the copy the cache keeps: our writes never reach it
    var settle = Duration.ofMillis(300);
    var announcements = new Announcements(client, cluster.events, settle);
    var state = new Announcements.State(0, 0, 0, false, List.of("2001:db8:1::1"));
    try {
      var again = announcements.observe(cached, state);
      assertEquals(settle, again);
      await().atMost(WAIT).until(() -> Announcements.condition(others.get()) != null);

      // another writer replaces status before our informer saw our condition
      others.subresource("status").patch(PatchContext.of(PatchType.JSON), ADD_EMPTY_STATUS);
      await().atMost(WAIT).until(() -> Announcements.condition(others.get()) == null);
      var wait = announcements.observe(cached, state); // too early: left alone
      assertTrue(wait.compareTo(Duration.ZERO) > 0 && wait.compareTo(settle) <= 0, "" + wait);

      await().pollDelay(settle).atMost(WAIT).until(() -> true);
      announcements.observe(cached, state);
      await()
          .atMost(WAIT)
          .untilAsserted(
              () ->
                  assertEquals(
                      "NoPeerForFamily", Announcements.condition(others.get()).getReason()));
      assertEquals(
          1,
          client.v1().events().inNamespace("test").list().getItems().stream()
              .filter(
                  e ->
                      "other".equals(e.getInvolvedObject().getName())
                          && "NotAnnounced".equals(e.getReason()))
              .count());
    } finally {
      announcements.close();
    }
  }

  private static final String ADD_EMPTY_STATUS =
      "[{\"op\":\"add\",\"path\":\"/status\",\"value\":{\"loadBalancer\":{}}}]";
}
