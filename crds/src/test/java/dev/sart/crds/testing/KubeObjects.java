package dev.sart.crds.testing;

import dev.sart.crds.Sart;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The Kubernetes objects that users, the kubelet and kube's own controllers make, as the tests of
 * every module build them: pods, namespaces, Services, EndpointSlices. The objects are not created;
 * the caller creates them on its client.
 */
public final class KubeObjects {
  private KubeObjects() {}

  /**
   * A pod as its owner posts it: {@code namespace/name}, one container {@code app}, bound to {@code
   * node} (null: not scheduled yet), no status.
   */
  public static Pod pod(String namespace, String name, String node) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .addNewContainer()
        .withName("app")
        .withImage("app")
        .endContainer()
        .endSpec()
        .build();
  }

  /** {@link #pod} as the kubelet reports it once started: phase Running, {@code ip} its address. */
  public static Pod runningPod(String namespace, String name, String node, String ip) {
    Pod p = pod(namespace, name, node);
    p.setStatus(startedStatus(ip));
    return p;
  }

  /** {@link #runningPod} with the kubelet's {@code Ready} condition. */
  public static Pod readyPod(String namespace, String name, String node, String ip, boolean ready) {
    Pod p = runningPod(namespace, name, node, ip);
    p.setStatus(
        new PodStatusBuilder(p.getStatus())
            .addNewCondition()
            .withType("Ready")
            .withStatus(ready ? "True" : "False")
            .endCondition()
            .build());
    return p;
  }

  /**
   * The kubelet's status of a started pod: phase Running, {@code ip} as podIP and in podIPs (a real
   * API server drops a new pod's status: write it with {@code updateStatus}).
   */
  public static PodStatus startedStatus(String ip) {
    return new PodStatusBuilder().withPhase("Running").withPodIP(ip).addNewPodIP(ip).build();
  }

  /** A namespace {@code name}. */
  public static Namespace namespace(String name) {
    return new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build();
  }

  /** {@code object} with {@code labels} added to its own. */
  public static <T extends HasMetadata> T labelled(T object, Map<String, String> labels) {
    object.getMetadata().setLabels(plus(object.getMetadata().getLabels(), labels));
    return object;
  }

  /** {@code object} with {@code annotations} added to its own. */
  public static <T extends HasMetadata> T annotated(T object, Map<String, String> annotations) {
    object.getMetadata().setAnnotations(plus(object.getMetadata().getAnnotations(), annotations));
    return object;
  }

  private static Map<String, String> plus(Map<String, String> own, Map<String, String> more) {
    var all = own == null ? new HashMap<String, String>() : new HashMap<>(own);
    all.putAll(more);
    return all;
  }

  /**
   * A ClusterIP Service {@code namespace/name} selecting {@code selector} (null: none, its
   * endpoints written by hand) with one TCP port. A builder, for the callers that set its
   * ClusterIP, labels or target port.
   */
  public static ServiceBuilder service(
      String namespace, String name, Map<String, String> selector, int port) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withSelector(selector)
        .addNewPort()
        .withProtocol("TCP")
        .withPort(port)
        .endPort()
        .endSpec();
  }

  /**
   * A LoadBalancer Service {@code namespace/name} with these annotations (may be null): traffic
   * policy Cluster, selecting {@code app=<name>}, port {@code http} 80/TCP to 8080. A builder, for
   * the callers that change a field (class, families, policy).
   */
  public static ServiceBuilder lbService(
      String namespace, String name, Map<String, String> annotations) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .withAnnotations(annotations)
        .endMetadata()
        .withNewSpec()
        .withType("LoadBalancer")
        .withExternalTrafficPolicy("Cluster")
        .withSelector(Map.of("app", name))
        .addNewPort()
        .withName("http")
        .withPort(80)
        .withProtocol("TCP")
        .withTargetPort(new IntOrString(8080))
        .endPort()
        .endSpec();
  }

  /**
   * An EndpointSlice of {@code service} as the EndpointSlice controller writes it: labelled with
   * the Service's name, IPv4, port {@code http} 8080/TCP.
   */
  public static EndpointSlice slice(
      String namespace, String service, String name, List<Endpoint> endpoints) {
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .withLabels(Map.of(Sart.SERVICE_NAME_LABEL, service))
        .endMetadata()
        .withAddressType("IPv4")
        .withEndpoints(endpoints)
        .addNewPort()
        .withName("http")
        .withPort(8080)
        .withProtocol("TCP")
        .endPort()
        .build();
  }

  /** One endpoint of a slice: serving when ready or terminating (KEP-1672). */
  public static Endpoint endpoint(String ip, String node, boolean ready, boolean terminating) {
    return new EndpointBuilder()
        .withAddresses(ip)
        .withNodeName(node)
        .withNewConditions()
        .withReady(ready)
        .withServing(ready || terminating)
        .withTerminating(terminating)
        .endConditions()
        .build();
  }
}
