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
    List<InetAddress> current) {}
