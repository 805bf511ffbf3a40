package dev.sart.controller.lb;

import dev.sart.crds.AddressPoolSpec;
import dev.sart.crds.AddressType;
import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Load-balancer address allocation over all service pools: which pool(s) a Service draws from,
 * which addresses it keeps, gets and gives back. Pure (no Kubernetes calls) and not thread-safe:
 * the Service reconciler's thread owns it.
 */
public final class Allocator {
  private final Map<String, Pool> pools = new LinkedHashMap<>();
  private final Map<String, Boolean> autoAssign = new LinkedHashMap<>();
  private final Set<String> draining = new java.util.HashSet<>();

  /** Adds a pool, or updates its auto-assign flag (cidr and type are immutable). */
  public void upsertPool(String name, AddressPoolSpec spec) {
    if (spec.type() != AddressType.SERVICE) {
      return;
    }
    var cidr = IpPrefix.parseCidr(spec.cidr());
    var existing = pools.get(name);
    if (existing == null || !existing.cidr().equals(cidr)) {
      pools.put(name, new Pool(name, cidr, spec.allowFirstLastOrFalse()));
    }
    autoAssign.put(name, spec.autoAssignOrFalse());
  }

  /** Forgets a pool; its holders' addresses are no longer tracked. */
  public void removePool(String name) {
    pools.remove(name);
    autoAssign.remove(name);
    draining.remove(name);
  }

  /**
   * A pool being deleted: Services keep what they hold in it, nobody gets a new address from it
   * (its deletion waits until its Services have moved).
   */
  public void drain(String name) {
    if (pools.containsKey(name)) {
      draining.add(name);
    }
  }

  public Collection<Pool> pools() {
    return pools.values();
  }

  public Optional<Pool> pool(String name) {
    return Optional.ofNullable(pools.get(name));
  }

  /** The pool containing {@code address}, if any. */
  public Optional<Pool> poolOf(InetAddress address) {
    return pools.values().stream().filter(p -> p.contains(address)).findFirst();
  }

  /** Re-takes addresses found in a Service's status (after a restart); false for a clash. */
  public List<InetAddress> restore(ServiceView view) {
    var lost = new ArrayList<InetAddress>();
    for (var address : view.current()) {
      var pool = poolOf(address);
      if (pool.isPresent()
          && !pool.get()
              .assign(address, view.key(), view.sharingKey(), view.backend(), view.ports())) {
        lost.add(address);
      }
    }
    return lost;
  }

  /** After restoring every Service: continue each pool after its highest held address. */
  public void resumeAfterRestore() {
    pools.values().forEach(Pool::resumeAfterHighest);
  }

  /** Releases everything {@code holder} holds (Service deleted, or no longer a LoadBalancer). */
  public List<InetAddress> releaseAll(String holder) {
    var released = new ArrayList<InetAddress>();
    for (var pool : pools.values()) {
      for (var address : pool.heldBy(holder)) {
        pool.release(address, holder);
        released.add(address);
      }
    }
    return released;
  }

  private record Want(Pool pool, InetAddress address) {}

  /** One allocation pass: brings what {@code view.key()} holds in line with what it asks for. */
  public Outcome reconcile(ServiceView view) {
    var holder = view.key();
    if (!view.wanted()) {
      var released = releaseAll(holder);
      return new Outcome(List.of(), List.of(), released, null);
    }
    // what it holds now: status (source of truth after a restart) and this allocator's memory
    var held = new LinkedHashSet<InetAddress>(view.current());
    pools.values().forEach(p -> held.addAll(p.heldBy(holder)));
    // only what it can really have: an address in a pool, not held by another Service it may not
    // share with
    held.removeIf(
        a ->
            poolOf(a)
                .map(p -> !p.assign(a, holder, view.sharingKey(), view.backend(), view.ports()))
                .orElse(true));

    List<Want> wants;
    try {
      wants = wants(view);
    } catch (IllegalArgumentException e) {
      return new Outcome(sorted(held, view), List.of(), List.of(), e.getMessage());
    }

    var keep = new LinkedHashSet<InetAddress>();
    var allocated = new ArrayList<InetAddress>();
    String error = null;
    // requested addresses and addresses already held in a wanted pool stay
    var open = new ArrayList<Want>();
    for (var want : wants) {
      if (want.address() != null) {
        if (held.contains(want.address())
            || want.pool()
                .assign(want.address(), holder, view.sharingKey(), view.backend(), view.ports())) {
          keep.add(want.address());
        } else {
          error =
              "address "
                  + Ip.format(want.address())
                  + " of pool "
                  + want.pool().name()
                  + " is in use";
        }
      } else {
        var mine =
            held.stream().filter(a -> want.pool().contains(a) && !keep.contains(a)).findFirst();
        if (mine.isPresent()) {
          keep.add(mine.get());
        } else {
          open.add(want);
        }
      }
    }
    if (error != null) {
      // keep what it had; undo requested addresses newly taken in this pass
      for (var address : keep) {
        if (!held.contains(address)) {
          poolOf(address).ifPresent(p -> p.release(address, holder));
        }
      }
      return new Outcome(sorted(held, view), List.of(), List.of(), error);
    }
    var released = new ArrayList<InetAddress>();
    for (var address : held) {
      if (!keep.contains(address)) {
        poolOf(address).ifPresent(p -> p.release(address, holder));
        released.add(address);
      }
    }
    for (var want : open) {
      var got = want.pool().allocate(holder, view.sharingKey(), view.backend(), view.ports());
      if (got.isEmpty()) {
        error = "pool " + want.pool().name() + " (" + want.pool().cidr() + ") has no free address";
        continue;
      }
      keep.add(got.get());
      allocated.add(got.get());
    }
    return new Outcome(sorted(keep, view), allocated, released, error);
  }

  private List<Want> wants(ServiceView view) {
    var wants = new ArrayList<Want>();
    List<Pool> named = null;
    if (view.pools() != null) {
      named = new ArrayList<>();
      for (var name : view.pools()) {
        var pool = pools.get(name);
        if (pool == null) {
          throw new IllegalArgumentException("no service AddressPool named " + name);
        }
        if (draining.contains(name)) {
          throw new IllegalArgumentException("AddressPool " + name + " is being deleted");
        }
        if (view.familiesExplicit() && !view.families().contains(pool.isIpv4())) {
          throw new IllegalArgumentException(
              "pool "
                  + name
                  + " is "
                  + family(pool.isIpv4())
                  + " but the Service's ipFamilies do not include it");
        }
        named.add(pool);
      }
    }
    if (!view.requested().isEmpty()) {
      for (var address : view.requested()) {
        var candidates = named != null ? named : List.copyOf(pools.values());
        var pool =
            candidates.stream()
                .filter(p -> p.usable(address) && !draining.contains(p.name()))
                .findFirst()
                .orElseThrow(
                    () ->
                        new IllegalArgumentException(
                            "requested address "
                                + Ip.format(address)
                                + " is in no usable address of "
                                + (view.pools() != null
                                    ? "pools " + view.pools()
                                    : "any service AddressPool")));
        wants.add(new Want(pool, address));
      }
      return wants;
    }
    if (named != null) {
      named.forEach(p -> wants.add(new Want(p, null)));
      return wants;
    }
    var families =
        switch (view.policy()) {
          case "RequireDualStack", "PreferDualStack" ->
              view.families().size() > 1 ? view.families() : List.of(true, false);
          default -> List.of(view.families().getFirst());
        };
    boolean required = !"PreferDualStack".equals(view.policy());
    for (var v4 : families) {
      var auto =
          pools.values().stream()
              .filter(
                  p ->
                      p.isIpv4() == v4
                          && autoAssign.getOrDefault(p.name(), false)
                          && !draining.contains(p.name()))
              .findFirst();
      if (auto.isPresent()) {
        wants.add(new Want(auto.get(), null));
      } else if (required) {
        throw new IllegalArgumentException("no auto-assign " + family(v4) + " service AddressPool");
      }
    }
    if (wants.isEmpty()) {
      throw new IllegalArgumentException("no auto-assign service AddressPool");
    }
    return wants;
  }

  private static String family(boolean v4) {
    return v4 ? "IPv4" : "IPv6";
  }

  /** Addresses in the Service's family order (then by value). */
  private static List<InetAddress> sorted(Set<InetAddress> addresses, ServiceView view) {
    var families = view.families();
    return addresses.stream()
        .sorted(
            Comparator.<InetAddress>comparingInt(
                    a -> {
                      int i = families.indexOf(a instanceof Inet4Address);
                      return i < 0 ? families.size() : i;
                    })
                .thenComparing(Ip::toNumber))
        .toList();
  }
}
