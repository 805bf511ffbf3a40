package dev.sart.agent.kube;

import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressType;
import dev.sart.crds.Sart;
import dev.sart.net.IpPrefix;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The pod AddressPools of a pod (sart.md §6.2, §7), one per family: the pod's {@code
 * sart.terassyi.net/addresspool} annotation (one pool, or a comma-separated IPv4 and IPv6 pool),
 * else its namespace's, else the pool of the network configuration; a family none of these names
 * gets the pod pool with {@code autoAssign: true} of that family (the webhook allows one per type
 * and family), so a cluster with an IPv4 and an IPv6 auto-assign pod pool gives every pod both. The
 * result is the pool names comma-separated, IPv4 first; null when there is none (the CNI ADD is
 * told to try again later: the pool may be created later).
 */
public final class PoolSelector {
  /** CNI_ARGS keys the runtime sets for a pod (kubelet's dockershim/CRI convention). */
  static final String POD_NAMESPACE = "K8S_POD_NAMESPACE";

  static final String POD_NAME = "K8S_POD_NAME";

  private final KubernetesClient client;

  public PoolSelector(KubernetesClient client) {
    this.client = client;
  }

  /**
   * @param cniArgs CNI_ARGS as key/value pairs
   * @param configured the pool named in the network configuration, or null
   */
  public String pool(Map<String, String> cniArgs, String configured) {
    String chosen = null;
    String ns = cniArgs.get(POD_NAMESPACE);
    String name = cniArgs.get(POD_NAME);
    if (ns != null && name != null) {
      Pod pod = client.pods().inNamespace(ns).withName(name).get();
      chosen = annotation(pod == null ? null : pod.getMetadata().getAnnotations());
      if (chosen == null) {
        Namespace n = client.namespaces().withName(ns).get();
        chosen = annotation(n == null ? null : n.getMetadata().getAnnotations());
      }
    }
    if (chosen == null) {
      chosen = configured;
    }
    List<AddressPool> all = podPools();
    List<String> names = new ArrayList<>();
    Set<Boolean> covered = new HashSet<>();
    if (chosen != null) {
      for (String n : chosen.split(",")) {
        if (n.isBlank()) {
          continue;
        }
        names.add(n.strip());
        Boolean v4 = ipv4(all, n.strip());
        if (v4 == null) {
          // a pool that does not exist (yet): its family is unknown, so nothing is added to it;
          // the ADD is tried again until the pool is there
          return chosen.strip();
        }
        covered.add(v4);
      }
    }
    for (boolean v4 : List.of(true, false)) {
      if (!covered.contains(v4)) {
        autoAssign(all, v4).ifPresent(names::add);
      }
    }
    // IPv4 first (the order of the CNI result's ips), names whose pool is unknown last
    names.sort(
        java.util.Comparator.comparingInt(
            n -> {
              Boolean v4 = ipv4(all, n);
              return v4 == null ? 2 : v4 ? 0 : 1;
            }));
    return names.isEmpty() ? null : String.join(",", names);
  }

  /** The pod pools with autoAssign, one per family (IPv4 first), comma-separated; or null. */
  public String autoAssign() {
    List<AddressPool> all = podPools();
    List<String> names = new ArrayList<>();
    autoAssign(all, true).ifPresent(names::add);
    autoAssign(all, false).ifPresent(names::add);
    return names.isEmpty() ? null : String.join(",", names);
  }

  private List<AddressPool> podPools() {
    return client.resources(AddressPool.class).list().getItems().stream()
        .filter(p -> p.getSpec() != null && p.getSpec().type() == AddressType.POD)
        .toList();
  }

  private static java.util.Optional<String> autoAssign(List<AddressPool> pools, boolean v4) {
    return pools.stream()
        .filter(p -> p.getSpec().autoAssignOrFalse())
        .filter(p -> Boolean.valueOf(v4).equals(ipv4(p)))
        .map(p -> p.getMetadata().getName())
        .findFirst();
  }

  /** Whether the named pod pool is IPv4; null when it is unknown or its cidr unreadable. */
  private static Boolean ipv4(List<AddressPool> pools, String name) {
    return pools.stream()
        .filter(p -> p.getMetadata().getName().equals(name))
        .findFirst()
        .map(PoolSelector::ipv4)
        .orElse(null);
  }

  private static Boolean ipv4(AddressPool pool) {
    try {
      return IpPrefix.parseCidr(pool.getSpec().cidr()).isIpv4();
    } catch (IllegalArgumentException | NullPointerException e) {
      return null;
    }
  }

  /** Whether {@code name} is a pod AddressPool (this node may ask for a block of it). */
  public boolean isPodPool(String name) {
    AddressPool p = client.resources(AddressPool.class).withName(name).get();
    return p != null && p.getSpec() != null && p.getSpec().type() == AddressType.POD;
  }

  private static String annotation(Map<String, String> annotations) {
    if (annotations == null) {
      return null;
    }
    String v = annotations.get(Sart.ADDRESS_POOL_ANNOTATION);
    return v == null || v.isBlank() ? null : v.strip();
  }
}
