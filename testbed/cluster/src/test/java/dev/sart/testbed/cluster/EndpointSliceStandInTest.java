package dev.sart.testbed.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sart.crds.testing.KubeObjects;
import dev.sart.testbed.mockapi.MockApi;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The EndpointSlice stand-in against fabric8's mock server in CRUD mode: a slice it updates keeps
 * what others put on it (as kube-controller-manager's EndpointSlice controller keeps foreign
 * annotations), and a pod's readiness reaches its slice in one write.
 */
class EndpointSliceStandInTest {
  private KubernetesMockServer server;
  private KubernetesClient client;
  private SharedIndexInformer<Pod> pods;
  private SharedIndexInformer<Service> services;
  private SharedIndexInformer<EndpointSlice> slices;
  private EndpointSliceStandIn standIn;

  @BeforeEach
  void setUp() {
    server = MockApi.start();
    client = server.createClient();
    pods = client.pods().inAnyNamespace().inform();
    services = client.services().inAnyNamespace().inform();
    slices = client.discovery().v1().endpointSlices().inAnyNamespace().inform();
    standIn = new EndpointSliceStandIn(client, pods, services, slices);
    ResourceEventHandler<Object> any =
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Object o) {
            standIn.changed();
          }

          @Override
          public void onUpdate(Object o, Object n) {
            standIn.changed();
          }

          @Override
          public void onDelete(Object o, boolean unknown) {
            standIn.changed();
          }
        };
    pods.addEventHandler(cast(any));
    services.addEventHandler(cast(any));
  }

  @SuppressWarnings("unchecked")
  private static <T> ResourceEventHandler<T> cast(ResourceEventHandler<Object> h) {
    return (ResourceEventHandler<T>) (ResourceEventHandler<?>) h;
  }

  @AfterEach
  void tearDown() {
    standIn.close();
    pods.close();
    services.close();
    slices.close();
    client.close();
    server.destroy();
  }

  private Pod pod(boolean ready) {
    return KubeObjects.labelled(
        KubeObjects.readyPod("default", "web-1", "node1", "203.0.113.130", ready),
        Map.of("app", "web"));
  }

  private EndpointSlice slice() {
    return client
        .discovery()
        .v1()
        .endpointSlices()
        .inNamespace("default")
        .withName("web-standin")
        .get();
  }

  private Boolean ready(EndpointSlice s) {
    return s == null || s.getEndpoints().isEmpty()
        ? null
        : s.getEndpoints().getFirst().getConditions().getReady();
  }

  @Test
  void anUpdatedSliceKeepsTheAnnotationsAndLabelsOthersPutOnIt() {
    client.resource(pod(true)).create();
    client
        .resource(KubeObjects.service("default", "web", Map.of("app", "web"), 80).build())
        .create();
    await().atMost(Duration.ofSeconds(20)).until(() -> Boolean.TRUE.equals(ready(slice())));
    // what sart's controller writes on a LoadBalancer Service's slices (sart.md §6.2)
    client
        .resource(slice())
        .edit(
            s -> {
              s.getMetadata().setAnnotations(Map.of("service.sart.terassyi.net/etp", "Local"));
              s.getMetadata()
                  .getLabels()
                  .put("endpointslice.sart.terassyi.net/triggered-by", "node1-tor1");
              return s;
            });
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () -> {
              var cached = slices.getStore().getByKey("default/web-standin");
              return cached != null && cached.getMetadata().getAnnotations() != null;
            });

    // what a kubelet writes when the readiness probe fails
    client
        .pods()
        .inNamespace("default")
        .withName("web-1")
        .editStatus(
            p -> {
              p.getStatus().getConditions().getFirst().setStatus("False");
              return p;
            });

    await().atMost(Duration.ofSeconds(20)).until(() -> Boolean.FALSE.equals(ready(slice())));
    EndpointSlice after = slice();
    assertEquals(
        "Local",
        after.getMetadata().getAnnotations().get("service.sart.terassyi.net/etp"),
        "the controller's annotation");
    assertEquals(
        "node1-tor1",
        after.getMetadata().getLabels().get("endpointslice.sart.terassyi.net/triggered-by"),
        "the agent's trigger label");
    assertEquals("web", after.getMetadata().getLabels().get("kubernetes.io/service-name"));
    assertEquals(false, after.getEndpoints().getFirst().getConditions().getServing());
    assertEquals("web", after.getMetadata().getOwnerReferences().getFirst().getName());
  }
}
