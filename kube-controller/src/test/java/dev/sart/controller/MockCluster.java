package dev.sart.controller;

import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressPoolSpec;
import dev.sart.crds.AddressType;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.LockedEdit;
import dev.sart.crds.testing.ControllerObjects;
import dev.sart.testbed.mockapi.MockApi;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Test helpers: objects as a user would create them, against fabric8's mock API server in CRUD
 * mode.
 */
public final class MockCluster {
  private MockCluster() {}

  /** {@link MockApi}'s server (CRUD mode, its watch fix) with sart's CRDs. */
  public static KubernetesMockServer server() {
    return MockApi.withSartCrds();
  }

  /**
   * Changes a Service as a user would while the controller writes its status and finalizers: read,
   * change, write with its {@code resourceVersion}, again on 409 ({@link LockedEdit}).
   */
  public static Service editService(
      KubernetesClient client, String namespace, String name, Consumer<Service> change) {
    return LockedEdit.edit(
        client,
        client.services().inNamespace(namespace).withName(name),
        s -> {
          change.accept(s);
          return s;
        });
  }

  /** A Node with these labels and one InternalIP, as the kubelet would register it. */
  public static Node node(
      KubernetesClient client, String name, String internalIp, Map<String, String> labels) {
    return client
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .endMetadata()
                .withNewStatus()
                .addNewAddress()
                .withType("InternalIP")
                .withAddress(internalIp)
                .endAddress()
                .endStatus()
                .build())
        .create();
  }

  public static AddressPool pool(
      KubernetesClient client, String name, String cidr, boolean autoAssign) {
    return client
        .resource(
            new AddressPool(name, new AddressPoolSpec(cidr, AddressType.SERVICE, null, autoAssign)))
        .create();
  }

  /** A BGPPeer named {@code <node>-65000-<addr>} (an IPv6 address's colons as dashes). */
  public static BGPPeer peer(KubernetesClient client, String node, String addr, String... groups) {
    return client
        .resource(peerSpec(node, addr, groups.length == 0 ? null : List.of(groups)))
        .create();
  }

  public static BGPPeer peerSpec(String node, String addr) {
    return peerSpec(node, addr, null);
  }

  private static BGPPeer peerSpec(String node, String addr, List<String> groups) {
    return ControllerObjects.peer(node, 65000L, addr, groups);
  }

  public static List<String> ingress(KubernetesClient client, String namespace, String name) {
    return ingressOf(client.services().inNamespace(namespace).withName(name).get());
  }

  public static List<String> ingressOf(Service service) {
    if (service == null
        || service.getStatus() == null
        || service.getStatus().getLoadBalancer() == null
        || service.getStatus().getLoadBalancer().getIngress() == null) {
      return List.of();
    }
    return service.getStatus().getLoadBalancer().getIngress().stream().map(i -> i.getIp()).toList();
  }
}
