package dev.sart.controller.advert;

import static dev.sart.controller.MockCluster.ingress;
import static dev.sart.controller.MockCluster.peer;
import static dev.sart.crds.testing.KubeObjects.lbService;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.controller.MockCluster;
import dev.sart.controller.lb.ServiceReconciler;
import dev.sart.controller.runtime.Events;
import dev.sart.controller.runtime.Informers;
import dev.sart.controller.runtime.Metrics;
import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressPoolSpec;
import dev.sart.crds.AddressType;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.LockedEdit;
import dev.sart.crds.Sart;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code BGPAdvertisement.spec.attrs} as the controller fills it: from the address's pool, with the
 * Service's annotations on top; a bad annotation is left out with a Warning Event naming it.
 */
class PathAttributesTest {
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
    client
        .resource(
            new AddressPool(
                "tagged",
                new AddressPoolSpec("198.51.100.0/24", AddressType.SERVICE, null, true)
                    .withAttrs(List.of("65000:100", "large:65000:1:2"), 200L, null)))
        .create();
    peer(client, "node1", "192.0.2.1");
    informers = new Informers(client);
    events = new Events(client);
    var metrics = new Metrics();
    services = new ServiceReconciler(informers, Sart.LOAD_BALANCER_CLASS, events, metrics);
    adverts =
        new AdvertisementReconciler(informers, Sart.LOAD_BALANCER_CLASS, metrics, events, null);
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

  private List<String> attrsOf(String service) {
    var address = ingress(client, "test", service).getFirst();
    var advert =
        client
            .resources(BGPAdvertisement.class)
            .inNamespace("test")
            .withName(service + "-" + address.replace('.', '-'))
            .get();
    return advert.getSpec().attrs() == null ? List.of() : advert.getSpec().attrs();
  }

  private void create(String name, Map<String, String> annotations) {
    client.resource(lbService("test", name, annotations).build()).create();
    await().ignoreExceptions().atMost(WAIT).until(() -> !ingress(client, "test", name).isEmpty());
  }

  @Test
  void anAddressCarriesItsPoolsAttributes() {
    create("plain", Map.of());
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertEquals(
                    List.of("community=65000:100", "large_community=65000:1:2", "local_pref=200"),
                    attrsOf("plain")));
  }

  @Test
  void serviceAnnotationsAddCommunitiesAndReplaceLocalPrefAndMed() {
    create(
        "annotated",
        Map.of(
            Sart.COMMUNITIES_ANNOTATION, "65000:7, large:4200000000:0:1",
            Sart.LOCAL_PREF_ANNOTATION, "50",
            Sart.MED_ANNOTATION, "10"));
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertEquals(
                    List.of(
                        "community=65000:100",
                        "community=65000:7",
                        "large_community=65000:1:2",
                        "large_community=4200000000:0:1",
                        "local_pref=50",
                        "med=10"),
                    attrsOf("annotated")));
    // the pool changes: the advertisement follows
    LockedEdit.edit(
        client,
        client.resources(AddressPool.class).withName("tagged"),
        p -> {
          p.setSpec(p.getSpec().withAttrs(List.of("65001:1"), null, null));
          return p;
        });
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertEquals(
                    List.of(
                        "community=65001:1",
                        "community=65000:7",
                        "large_community=4200000000:0:1",
                        "local_pref=50",
                        "med=10"),
                    attrsOf("annotated")));
    // the annotations go: the pool's alone
    MockCluster.editService(
        client, "test", "annotated", s -> s.getMetadata().setAnnotations(Map.of()));
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(() -> assertEquals(List.of("community=65001:1"), attrsOf("annotated")));
  }

  @Test
  void aBadAnnotationIsLeftOutWithAWarningNamingIt() {
    create("bad", Map.of(Sart.COMMUNITIES_ANNOTATION, "65000:70000", Sart.MED_ANNOTATION, "5"));
    await()
        .ignoreExceptions()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertEquals(
                    List.of(
                        "community=65000:100",
                        "large_community=65000:1:2",
                        "local_pref=200",
                        "med=5"),
                    attrsOf("bad")));
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              var warnings =
                  client.v1().events().inNamespace("test").list().getItems().stream()
                      .filter(e -> "InvalidAnnotation".equals(e.getReason()))
                      .toList();
              assertEquals(1, warnings.size(), warnings.toString());
              assertEquals("Warning", warnings.getFirst().getType());
              assertTrue(
                  warnings
                      .getFirst()
                      .getMessage()
                      .startsWith(Sart.COMMUNITIES_ANNOTATION + ": '65000:70000'"),
                  warnings.getFirst().getMessage());
            });
  }
}
