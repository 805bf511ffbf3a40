package dev.sart.controller.advert;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sart.controller.MockCluster;
import dev.sart.controller.lb.ServiceReconciler;
import dev.sart.controller.runtime.Events;
import dev.sart.controller.runtime.Informers;
import dev.sart.controller.runtime.Metrics;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.Sart;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The Service and advertisement reconcilers running against fabric8's mock API server, and what the
 * advertisement tests read and play on it: an advertisement's peer map and the agents' answers.
 * Advertisements live in namespace {@code test}.
 */
final class ReconcilersOnMock implements AutoCloseable {
  static final Duration WAIT = Duration.ofSeconds(20);
  static final String NA = "NotAdvertised";

  final KubernetesMockServer server;
  final KubernetesClient client;
  final Informers informers;
  final Events events;
  final Metrics metrics;
  final ServiceReconciler services;
  final AdvertisementReconciler adverts;

  /**
   * Creates what {@code seed} makes (pools, peers) before the informers start, then starts both
   * reconcilers; {@code advertEvents}: whether the advertisement reconciler records the Service's
   * announcement Events.
   */
  ReconcilersOnMock(boolean advertEvents, Consumer<KubernetesClient> seed) throws Exception {
    this(advertEvents, false, seed);
  }

  /** {@code withdrawFromCordoned}: the controller's {@code --withdraw-from-cordoned-nodes}. */
  ReconcilersOnMock(
      boolean advertEvents, boolean withdrawFromCordoned, Consumer<KubernetesClient> seed)
      throws Exception {
    server = MockCluster.server();
    client = server.createClient();
    seed.accept(client);
    informers = new Informers(client);
    events = new Events(client);
    metrics = new Metrics();
    services = new ServiceReconciler(informers, Sart.LOAD_BALANCER_CLASS, events, metrics);
    adverts =
        new AdvertisementReconciler(
                informers,
                Sart.LOAD_BALANCER_CLASS,
                metrics,
                advertEvents ? events : null,
                services.decisions())
            .withdrawFromCordoned(withdrawFromCordoned);
    informers.start();
    services.start();
    adverts.start();
  }

  @Override
  public void close() {
    adverts.close();
    services.close();
    events.close();
    informers.close();
    client.close();
    server.destroy();
  }

  /**
   * The advertisement's peers and their states by name: null while the advertisement does not
   * exist, empty while it has no peer map (no status written) or an empty one.
   */
  static Map<String, String> peersOf(KubernetesClient client, String advert) {
    var a = client.resources(BGPAdvertisement.class).inNamespace("test").withName(advert).get();
    if (a == null) {
      return null;
    }
    if (a.getStatus() == null || a.getStatus().peers() == null) {
      return Map.of();
    }
    return a.getStatus().peers().entrySet().stream()
        .collect(
            Collectors.toMap(
                Map.Entry::getKey, e -> e.getValue().name(), (x, y) -> x, TreeMap::new));
  }

  static void awaitPeers(
      KubernetesClient client, String advert, Map<String, String> expected, Duration within) {
    await()
        .ignoreExceptions()
        .atMost(within)
        .untilAsserted(() -> assertEquals(expected, peersOf(client, advert)));
  }

  /**
   * Plays the agents once: NotAdvertised entries become Advertised, Withdraw entries are removed
   * (one RFC 6902 JSON Patch on the status subresource).
   */
  static void playAgents(KubernetesClient client, String advert) {
    var current =
        client.resources(BGPAdvertisement.class).inNamespace("test").withName(advert).get();
    var ops = new ArrayList<String>();
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

  boolean exists(String advert) {
    return client.resources(BGPAdvertisement.class).inNamespace("test").withName(advert).get()
        != null;
  }

  Map<String, String> peersOf(String advert) {
    return peersOf(client, advert);
  }

  void awaitPeers(String advert, Map<String, String> expected) {
    awaitPeers(client, advert, expected, WAIT);
  }

  void playAgents(String advert) {
    playAgents(client, advert);
  }
}
