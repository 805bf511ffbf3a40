package dev.sart.controller.advert;

import static dev.sart.controller.MockCluster.endpoint;
import static dev.sart.controller.MockCluster.ingress;
import static dev.sart.controller.MockCluster.lbService;
import static dev.sart.controller.MockCluster.peer;
import static dev.sart.controller.MockCluster.pool;
import static dev.sart.controller.MockCluster.slice;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.controller.MockCluster;
import dev.sart.controller.lb.ServiceReconciler;
import dev.sart.controller.runtime.Events;
import dev.sart.controller.runtime.Informers;
import dev.sart.controller.runtime.Metrics;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.BGPPeerCondition;
import dev.sart.crds.BGPPeerStatus;
import dev.sart.crds.Sart;
import dev.sart.net.Ip;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
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
  private static final Duration WAIT = Duration.ofSeconds(20);
  private KubernetesMockServer server;
  private KubernetesClient client;
  private Informers informers;
  private Events events;
  private ServiceReconciler services;
  private AdvertisementReconciler adverts;

  @BeforeEach
  void setUp() throws Exception {
    server = MockCluster.server();
    client = server.createClient();
    pool(client, "default-lb-pool", "10.0.1.0/24", true);
    peer(client, "node1", "9.9.9.9");
    peer(client, "node2", "9.9.9.9");
    informers = new Informers(client);
    events = new Events(client);
    var metrics = new Metrics();
    services = new ServiceReconciler(informers, Sart.LOAD_BALANCER_CLASS, events, metrics);
    adverts =
        new AdvertisementReconciler(
            informers, Sart.LOAD_BALANCER_CLASS, metrics, events, services.decisions());
    informers.start();
    services.start();
    adverts.start();
  }

  @AfterEach
  void tearDown() {
    adverts.close();
    services.close();
    events.close();
    informers.close();
    client.close();
    server.destroy();
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

  /** The agents: NotAdvertised → Advertised, Withdraw entries removed. */
  private void agents(String advert) {
    var current =
        client.resources(BGPAdvertisement.class).inNamespace("test").withName(advert).get();
    var ops = new java.util.ArrayList<String>();
    current
        .getStatus()
        .peers()
        .forEach(
            (peer, state) ->
                ops.add(
                    state == AdvertiseStatus.Withdraw
                        ? "{\"op\":\"remove\",\"path\":\"/status/peers/" + peer + "\"}"
                        : "{\"op\":\"replace\",\"path\":\"/status/peers/"
                            + peer
                            + "\",\"value\":\"Advertised\"}"));
    client
        .resources(BGPAdvertisement.class)
        .inNamespace("test")
        .withName(advert)
        .subresource("status")
        .patch(PatchContext.of(PatchType.JSON), "[" + String.join(",", ops) + "]");
  }

  private Map<String, AdvertiseStatus> peersOf(String advert) {
    var a = client.resources(BGPAdvertisement.class).inNamespace("test").withName(advert).get();
    return a == null || a.getStatus() == null || a.getStatus().peers() == null
        ? Map.of()
        : a.getStatus().peers();
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
        "no target peer: no ready endpoint, or no BGPPeer on the nodes that have one");

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

    await().atMost(WAIT).until(() -> peersOf(advert).size() == 2);
    agents(advert);
    String on = "announced on 2 of 2 peer(s) on 2 node(s)";
    awaitCondition("True", "Announced", on);
    awaitEvent("Normal", "Announced", on);

    // the pod goes: every peer withdraws
    client
        .resource(
            slice("test", "web", "web-1", List.of(endpoint("10.244.0.5", "node1", false, true))))
        .update();
    await()
        .atMost(WAIT)
        .until(
            () -> peersOf(advert).values().stream().allMatch(s -> s == AdvertiseStatus.Withdraw));
    agents(advert);
    String gone = "no target peer: no ready endpoint, or no BGPPeer on the nodes that have one";
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
    var announcements = new Announcements(client, events, settle);
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
