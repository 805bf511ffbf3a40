package dev.sart.agent.bgp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.Sart;
import dev.sart.crds.testing.ControllerObjects;
import dev.sart.testbed.mockapi.EnableMockApi;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * sart's {@code endpointslice.sart.terassyi.net/triggered-by}: a peer that came up labels the
 * EndpointSlices of the Services announced to it, and only those.
 */
@EnableMockApi
class EndpointSliceTriggerTest {
  static KubernetesClient client;

  private static void slice(String ns, String service, String name) {
    client
        .resource(
            new EndpointSliceBuilder()
                .withNewMetadata()
                .withNamespace(ns)
                .withName(name)
                .withLabels(Map.of(Sart.SERVICE_NAME_LABEL, service))
                .endMetadata()
                .withAddressType("IPv4")
                .build())
        .create();
  }

  private static void advert(String ns, String service, String cidr, String peer) {
    BGPAdvertisement a =
        ControllerObjects.advert(
            client,
            ns,
            service + "-" + cidr.replace('/', '-'),
            cidr,
            Map.of(peer, AdvertiseStatus.NotAdvertised));
    client
        .resource(a)
        .edit(
            x -> {
              x.getMetadata().setLabels(Map.of(Sart.SERVICE_NAME_LABEL, service));
              return x;
            });
  }

  private static String label(String ns, String name) {
    return client
        .discovery()
        .v1()
        .endpointSlices()
        .inNamespace(ns)
        .withName(name)
        .get()
        .getMetadata()
        .getLabels()
        .get(Sart.ENDPOINTSLICE_TRIGGER_LABEL);
  }

  @Test
  void thePeersServicesSlicesAreLabelledWithItsName() {
    slice("web", "front", "front-a");
    slice("web", "front", "front-b");
    slice("web", "back", "back-a");
    slice("other", "front", "front-a");
    advert("web", "front", "203.0.113.1/32", "worker1-65000-192.0.2.1");
    advert("web", "back", "203.0.113.2/32", "worker2-65000-192.0.2.1");

    new EndpointSliceTrigger(client).established("worker1-65000-192.0.2.1");

    assertEquals("worker1-65000-192.0.2.1", label("web", "front-a"));
    assertEquals("worker1-65000-192.0.2.1", label("web", "front-b"));
    assertNull(label("web", "back-a"), "a Service not announced to that peer");
    assertNull(label("other", "front-a"), "a Service of the same name in another namespace");
    assertEquals(
        Sart.SERVICE_NAME_LABEL + "=front",
        "kubernetes.io/service-name="
            + client
                .discovery()
                .v1()
                .endpointSlices()
                .inNamespace("web")
                .withName("front-a")
                .get()
                .getMetadata()
                .getLabels()
                .get(Sart.SERVICE_NAME_LABEL),
        "the slice's own labels are kept");
  }
}
