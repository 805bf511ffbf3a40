package dev.sart.controller;

import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressPoolSpec;
import dev.sart.crds.AddressType;
import dev.sart.crds.CrdManifests;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Test helpers: objects as a user would create them, against fabric8's mock API server in CRUD mode. */
public final class MockCluster {
  private MockCluster() {}

  public static KubernetesMockServer server() {
    // CRUD mode: a real HTTP API with watches, keeping what is created
    var server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
    server.init();
    try (var client = server.createClient()) {
      for (var yaml : CrdManifests.yaml()) {
        client.apiextensions().v1().customResourceDefinitions()
            .resource(Serialization.unmarshal(yaml, CustomResourceDefinition.class)).create();
      }
    }
    return server;
  }

  public static AddressPool pool(KubernetesClient client, String name, String cidr, boolean autoAssign) {
    return client.resource(new AddressPool(name, new AddressPoolSpec(cidr, AddressType.SERVICE, null, autoAssign))).create();
  }

  public static ServiceBuilder lbService(String namespace, String name, Map<String, String> annotations) {
    return new ServiceBuilder()
        .withNewMetadata().withNamespace(namespace).withName(name).withAnnotations(annotations).endMetadata()
        .withNewSpec()
        .withType("LoadBalancer")
        .withExternalTrafficPolicy("Cluster")
        .withSelector(Map.of("app", name))
        .addNewPort().withName("http").withPort(80).withProtocol("TCP").withTargetPort(new IntOrString(8080)).endPort()
        .endSpec();
  }

  public static List<String> ingress(KubernetesClient client, String namespace, String name) {
    Service service = client.services().inNamespace(namespace).withName(name).get();
    if (service == null || service.getStatus() == null || service.getStatus().getLoadBalancer() == null
        || service.getStatus().getLoadBalancer().getIngress() == null) {
      return List.of();
    }
    return service.getStatus().getLoadBalancer().getIngress().stream().map(i -> i.getIp()).toList();
  }
}
