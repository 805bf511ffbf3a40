package dev.sart.testbed.cluster;

import dev.sart.testbed.Topology;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The stand-ins for what is not sart's, sharing one client and one informer per kind (as the real
 * ones would each have their own; sharing only saves watches): a {@link KubeletStandIn} per node,
 * the {@link EndpointSliceStandIn} (unless {@code SART_E2E_ENDPOINTSLICE_STANDIN=off}: a real
 * cluster's kube-controller-manager makes EndpointSlices itself), the {@link KubeProxyStandIn} and
 * the {@link ClusterIpStandIn} (which does nothing against a real API server: it allocates
 * ClusterIPs itself).
 */
public final class StandIns implements AutoCloseable {
  private final KubernetesClient client;
  private final SharedIndexInformer<Pod> pods;
  private final SharedIndexInformer<Service> services;
  private final SharedIndexInformer<EndpointSlice> slices;
  private final Map<String, KubeletStandIn> kubelets = new LinkedHashMap<>();
  private final EndpointSliceStandIn endpointSlices;
  private final KubeProxyStandIn kubeProxy;
  private final ClusterIpStandIn clusterIps;
  private final NodeHeartbeats heartbeats;

  StandIns(ApiServer api, Topology topology, List<ClusterNode> nodes) {
    this.client = api.newClient();
    pods = client.pods().inAnyNamespace().inform();
    services = client.services().inAnyNamespace().inform();
    slices = client.discovery().v1().endpointSlices().inAnyNamespace().inform();
    for (ClusterNode n : nodes) {
      kubelets.put(n.name(), new KubeletStandIn(client, topology, n, pods));
    }
    heartbeats = new NodeHeartbeats(client, nodes);
    boolean sliceStandIn =
        !"off".equalsIgnoreCase(System.getenv().getOrDefault("SART_E2E_ENDPOINTSLICE_STANDIN", ""));
    endpointSlices = sliceStandIn ? new EndpointSliceStandIn(client, pods, services, slices) : null;
    kubeProxy = new KubeProxyStandIn(nodes, services, slices);
    clusterIps = new ClusterIpStandIn(client, services);
    pods.addEventHandler(
        handler(
            p -> {
              String node = p.getSpec() == null ? null : p.getSpec().getNodeName();
              KubeletStandIn k = node == null ? null : kubelets.get(node);
              if (k != null) {
                k.changed(p);
              }
              if (endpointSlices != null) {
                endpointSlices.changed();
              }
            }));
    services.addEventHandler(
        handler(
            s -> {
              if (endpointSlices != null) {
                endpointSlices.changed();
              }
              kubeProxy.changed();
              clusterIps.changed();
            }));
    slices.addEventHandler(handler(s -> kubeProxy.changed()));
  }

  private static <T> ResourceEventHandler<T> handler(Consumer<T> any) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T obj) {
        any.accept(obj);
      }

      @Override
      public void onUpdate(T oldObj, T newObj) {
        any.accept(newObj);
      }

      @Override
      public void onDelete(T obj, boolean deletedFinalStateUnknown) {
        any.accept(obj);
      }
    };
  }

  public KubeletStandIn kubelet(String node) {
    KubeletStandIn k = kubelets.get(node);
    if (k == null) {
      throw new IllegalArgumentException("no node " + node);
    }
    return k;
  }

  public KubeProxyStandIn kubeProxy() {
    return kubeProxy;
  }

  private volatile boolean closed;

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    pods.close();
    services.close();
    slices.close();
    for (KubeletStandIn k : kubelets.values()) {
      k.close();
    }
    if (endpointSlices != null) {
      endpointSlices.close();
    }
    kubeProxy.close();
    clusterIps.close();
    heartbeats.close();
    client.close();
  }
}
