package dev.sart.controller.lb;

import dev.sart.crds.Sart;
import dev.sart.net.Ip;
import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.Service;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a {@link ServiceView} out of a Service: type, class, annotations, families, ports, status.
 */
public final class ServiceViews {
  private final String loadBalancerClass;

  /**
   * @param loadBalancerClass the {@code spec.loadBalancerClass} we serve besides none
   */
  public ServiceViews(String loadBalancerClass) {
    this.loadBalancerClass = loadBalancerClass;
  }

  public static String key(Service service) {
    return service.getMetadata().getNamespace() + "/" + service.getMetadata().getName();
  }

  /** Whether the Service is a LoadBalancer this controller serves. */
  public boolean wanted(Service service) {
    var spec = service.getSpec();
    if (spec == null
        || !"LoadBalancer".equals(spec.getType())
        || service.getMetadata().getDeletionTimestamp() != null) {
      return false;
    }
    var cls = spec.getLoadBalancerClass();
    return cls == null || cls.isEmpty() || cls.equals(loadBalancerClass);
  }

  /**
   * Whether another implementation owns the Service's status (a different loadBalancerClass): then
   * we neither write nor clear it.
   */
  public boolean foreign(Service service) {
    var spec = service.getSpec();
    var cls = spec == null ? null : spec.getLoadBalancerClass();
    return cls != null && !cls.isEmpty() && !cls.equals(loadBalancerClass);
  }

  /**
   * @throws IllegalArgumentException for an address annotation that does not parse
   */
  public ServiceView view(Service service) {
    var annotations =
        service.getMetadata().getAnnotations() == null
            ? Map.<String, String>of()
            : service.getMetadata().getAnnotations();
    var spec = service.getSpec();
    List<String> pools =
        annotations.containsKey(Sart.ADDRESS_POOL_ANNOTATION)
            ? list(annotations.get(Sart.ADDRESS_POOL_ANNOTATION))
            : null;
    if (pools != null && pools.isEmpty()) {
      pools = null;
    }
    var requested = new ArrayList<InetAddress>();
    String requestedText =
        annotations.getOrDefault(
            Sart.LOAD_BALANCER_IPS_ANNOTATION,
            annotations.get(Sart.METALLB_LOAD_BALANCER_IPS_ANNOTATION));
    if (requestedText == null
        && spec != null
        && spec.getLoadBalancerIP() != null
        && !spec.getLoadBalancerIP().isEmpty()) {
      requestedText = spec.getLoadBalancerIP();
    }
    if (requestedText != null) {
      for (var text : list(requestedText)) {
        requested.add(Ip.parse(text));
      }
    }
    var families = new ArrayList<Boolean>();
    boolean explicit =
        spec != null && spec.getIpFamilies() != null && !spec.getIpFamilies().isEmpty();
    if (explicit) {
      for (var family : spec.getIpFamilies()) {
        families.add(!"IPv6".equals(family));
      }
    } else if (!requested.isEmpty()) {
      requested.stream()
          .map(a -> a instanceof java.net.Inet4Address)
          .distinct()
          .forEach(families::add);
    } else {
      families.add(true);
    }
    String policy =
        spec == null || spec.getIpFamilyPolicy() == null ? "SingleStack" : spec.getIpFamilyPolicy();
    String sharingKey =
        annotations.getOrDefault(
            Sart.ALLOW_SHARED_IP_ANNOTATION, annotations.get(Sart.SART_ALLOW_SHARED_IP_ANNOTATION));
    Set<Port> ports = new LinkedHashSet<>();
    if (spec != null && spec.getPorts() != null) {
      spec.getPorts()
          .forEach(
              p -> ports.add(new Port(p.getProtocol(), p.getPort() == null ? 0 : p.getPort())));
    }
    return new ServiceView(
        key(service),
        wanted(service),
        pools,
        List.copyOf(requested),
        List.copyOf(families),
        policy,
        explicit,
        sharingKey,
        Set.copyOf(ports),
        current(service),
        backend(service));
  }

  /**
   * {@link ServiceView#backend()}: null for {@code externalTrafficPolicy: Cluster}, else the pod
   * selector as sorted {@code key=value} pairs ({@code "local:"} alone for a Local Service without
   * a selector).
   */
  static String backend(Service service) {
    var spec = service.getSpec();
    if (spec == null || !"Local".equals(spec.getExternalTrafficPolicy())) {
      return null;
    }
    var selector = spec.getSelector() == null ? Map.<String, String>of() : spec.getSelector();
    return "local:"
        + new java.util.TreeMap<>(selector)
            .entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .collect(java.util.stream.Collectors.joining(","));
  }

  /** The IP addresses in {@code status.loadBalancer.ingress}. */
  public static List<InetAddress> current(Service service) {
    var result = new ArrayList<InetAddress>();
    var status = service.getStatus();
    if (status == null
        || status.getLoadBalancer() == null
        || status.getLoadBalancer().getIngress() == null) {
      return result;
    }
    for (LoadBalancerIngress ingress : status.getLoadBalancer().getIngress()) {
      if (ingress.getIp() != null) {
        try {
          result.add(Ip.parse(ingress.getIp()));
        } catch (IllegalArgumentException e) {
          // not an address of ours
        }
      }
    }
    return result;
  }

  private static List<String> list(String text) {
    return Arrays.stream(text.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }
}
