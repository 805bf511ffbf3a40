package dev.sart.controller.lb;

import java.net.InetAddress;
import java.util.List;
import java.util.Set;

/**
 * What the allocator needs to know about one Service, read from it by {@link ServiceViews}.
 *
 * @param key {@code namespace/name}, the holder of its addresses
 * @param wanted a LoadBalancer of our class (or with no class)
 * @param pools pool names from the annotation, or null for the auto-assign pools
 * @param requested requested addresses (annotation or {@code spec.loadBalancerIP}), empty if none
 * @param families wanted families in order, {@code true} = IPv4; never empty
 * @param policy {@code spec.ipFamilyPolicy}: SingleStack, PreferDualStack or RequireDualStack
 * @param familiesExplicit whether {@code spec.ipFamilies} was set
 * @param sharingKey the allow-shared-ip key, or null
 * @param ports the Service's ports (what a shared address must not clash on)
 * @param current the addresses in {@code status.loadBalancer.ingress}
 * @param backend who serves the address behind the Service, for MetalLB's extra sharing rule: null
 *     for {@code externalTrafficPolicy: Cluster} (any node forwards), the Service's pod selector
 *     for {@code Local} (the address is announced only from nodes with its pods, so Services
 *     sharing it must select the same pods); Services share an address only when their backends are
 *     equal
 */
public record ServiceView(
    String key,
    boolean wanted,
    List<String> pools,
    List<InetAddress> requested,
    List<Boolean> families,
    String policy,
    boolean familiesExplicit,
    String sharingKey,
    Set<Port> ports,
    List<InetAddress> current,
    String backend) {

  /** A Service with {@code externalTrafficPolicy: Cluster}. */
  public ServiceView(
      String key,
      boolean wanted,
      List<String> pools,
      List<InetAddress> requested,
      List<Boolean> families,
      String policy,
      boolean familiesExplicit,
      String sharingKey,
      Set<Port> ports,
      List<InetAddress> current) {
    this(
        key,
        wanted,
        pools,
        requested,
        families,
        policy,
        familiesExplicit,
        sharingKey,
        ports,
        current,
        null);
  }
}
