package dev.sart.testbed.cluster;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Stand-in for kube-controller-manager's EndpointSlice controller (and, for the slices it made, its
 * garbage collector). For every Service with a selector, one IPv4 EndpointSlice {@code
 * <service>-standin}, labelled {@code kubernetes.io/service-name} and owned by the Service, listing
 * each selected Pod that has an address and a node: {@code ready} = Pod Ready and not terminating,
 * {@code serving} = Pod Ready, {@code terminating} = the Pod has a deletion timestamp (the API's
 * rules); ports from the Service's {@code targetPort}. Level-triggered: any Pod or Service change
 * recomputes every slice and writes only those that differ. The slice of a deleted Service is
 * deleted.
 */
public final class EndpointSliceStandIn implements AutoCloseable {
  public static final String MANAGED_BY = "endpointslice-stand-in.testbed.sart.dev";
  private static final Logger LOG = Logger.getLogger(EndpointSliceStandIn.class.getName());

  private final KubernetesClient client;
  private final SharedIndexInformer<Pod> pods;
  private final SharedIndexInformer<Service> services;
  private final SharedIndexInformer<EndpointSlice> slices;
  private final ExecutorService worker =
      Executors.newSingleThreadExecutor(
          r -> Thread.ofPlatform().daemon().name("endpointslice-stand-in").unstarted(r));
  private final AtomicBoolean dirty = new AtomicBoolean();

  EndpointSliceStandIn(
      KubernetesClient client,
      SharedIndexInformer<Pod> pods,
      SharedIndexInformer<Service> services,
      SharedIndexInformer<EndpointSlice> slices) {
    this.client = client;
    this.pods = pods;
    this.services = services;
    this.slices = slices;
    changed();
  }

  void changed() {
    if (dirty.compareAndSet(false, true)) {
      worker.execute(
          () -> {
            dirty.set(false);
            try {
              syncAll();
            } catch (RuntimeException e) {
              LOG.log(Level.WARNING, "EndpointSlice stand-in: " + e.getMessage(), e);
              Thread.ofVirtual()
                  .start(
                      () -> {
                        try {
                          Thread.sleep(1_000);
                        } catch (InterruptedException ie) {
                          return;
                        }
                        changed();
                      });
            }
          });
    }
  }

  private void syncAll() {
    Set<String> wanted = new HashSet<>();
    for (Service svc : services.getStore().list()) {
      Map<String, String> selector = svc.getSpec().getSelector();
      if (selector == null || selector.isEmpty()) {
        continue;
      }
      List<String> families =
          svc.getSpec().getIpFamilies() == null || svc.getSpec().getIpFamilies().isEmpty()
              ? List.of("IPv4")
              : svc.getSpec().getIpFamilies();
      for (String family : families) {
        EndpointSlice desired = desired(svc, selector, family);
        String key = desired.getMetadata().getNamespace() + "/" + desired.getMetadata().getName();
        wanted.add(key);
        EndpointSlice have = slices.getStore().getByKey(key);
        if (have == null
            || !Objects.equals(have.getEndpoints(), desired.getEndpoints())
            || !Objects.equals(have.getPorts(), desired.getPorts())) {
          client
              .resource(desired)
              .createOr(io.fabric8.kubernetes.client.dsl.NonDeletingOperation::update);
        }
      }
    }
    for (EndpointSlice s : slices.getStore().list()) {
      var labels = s.getMetadata().getLabels();
      String key = s.getMetadata().getNamespace() + "/" + s.getMetadata().getName();
      if (labels != null
          && MANAGED_BY.equals(labels.get("endpointslice.kubernetes.io/managed-by"))
          && !wanted.contains(key)) {
        try {
          client.resource(s).delete();
        } catch (KubernetesClientException e) {
          if (e.getCode() != 404) {
            throw e;
          }
        }
      }
    }
  }

  /** The pod's addresses of {@code family} ("IPv4" or "IPv6"). */
  private static List<String> addresses(Pod p, String family) {
    List<String> all = new ArrayList<>();
    if (p.getStatus().getPodIPs() != null) {
      p.getStatus().getPodIPs().forEach(ip -> all.add(ip.getIp()));
    }
    if (all.isEmpty()) {
      all.add(p.getStatus().getPodIP());
    }
    boolean v6 = family.equals("IPv6");
    return all.stream().filter(a -> a != null && a.contains(":") == v6).toList();
  }

  /**
   * The Service's slice of one family, as the EndpointSlice controller makes one per family: the
   * IPv4 one is {@code <service>-standin}, the IPv6 one {@code <service>-standin-ipv6}.
   */
  private EndpointSlice desired(Service svc, Map<String, String> selector, String family) {
    String ns = svc.getMetadata().getNamespace();
    List<Endpoint> endpoints = new ArrayList<>();
    List<Pod> selected =
        pods.getStore().list().stream()
            .filter(p -> ns.equals(p.getMetadata().getNamespace()))
            .filter(p -> matches(selector, p.getMetadata().getLabels()))
            .filter(p -> p.getStatus() != null && p.getStatus().getPodIP() != null)
            .filter(p -> p.getSpec().getNodeName() != null)
            .sorted(Comparator.comparing(p -> p.getMetadata().getName()))
            .toList();
    for (Pod p : selected) {
      List<String> addresses = addresses(p, family);
      if (addresses.isEmpty()) {
        continue;
      }
      boolean podReady =
          p.getStatus().getConditions() != null
              && p.getStatus().getConditions().stream()
                  .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
      boolean terminating = p.getMetadata().getDeletionTimestamp() != null;
      endpoints.add(
          new EndpointBuilder()
              .withAddresses(addresses.getFirst())
              .withNewConditions()
              .withReady(podReady && !terminating)
              .withServing(podReady)
              .withTerminating(terminating)
              .endConditions()
              .withNodeName(p.getSpec().getNodeName())
              .withTargetRef(
                  new ObjectReferenceBuilder()
                      .withKind("Pod")
                      .withNamespace(ns)
                      .withName(p.getMetadata().getName())
                      .withUid(p.getMetadata().getUid())
                      .build())
              .build());
    }
    List<EndpointPort> ports = new ArrayList<>();
    for (ServicePort sp : svc.getSpec().getPorts()) {
      IntOrString target = sp.getTargetPort();
      int port = target == null || target.getIntVal() == null ? sp.getPort() : target.getIntVal();
      ports.add(
          new EndpointPortBuilder()
              .withName(sp.getName() == null ? "" : sp.getName())
              .withPort(port)
              .withProtocol(sp.getProtocol() == null ? "TCP" : sp.getProtocol())
              .build());
    }
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName(
            svc.getMetadata().getName() + (family.equals("IPv6") ? "-standin-ipv6" : "-standin"))
        .withLabels(
            Map.of(
                "kubernetes.io/service-name",
                svc.getMetadata().getName(),
                "endpointslice.kubernetes.io/managed-by",
                MANAGED_BY))
        .withOwnerReferences(
            new OwnerReferenceBuilder()
                .withApiVersion("v1")
                .withKind("Service")
                .withName(svc.getMetadata().getName())
                .withUid(svc.getMetadata().getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .build())
        .endMetadata()
        .withAddressType(family)
        .withEndpoints(endpoints)
        .withPorts(ports)
        .build();
  }

  private static boolean matches(Map<String, String> selector, Map<String, String> labels) {
    if (labels == null) {
      return false;
    }
    return selector.entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())));
  }

  @Override
  public void close() {
    worker.shutdownNow();
  }
}
