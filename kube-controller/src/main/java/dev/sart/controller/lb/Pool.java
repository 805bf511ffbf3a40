package dev.sart.controller.lb;

import dev.sart.net.IpPrefix;
import java.math.BigInteger;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The addresses of one service AddressPool and who holds them. Not thread-safe: one reconciler owns
 * it.
 *
 * <ul>
 *   <li>The network and broadcast addresses of an IPv4 pool of /30 or wider are not handed out
 *       unless the pool allows it ({@code allowFirstLast}); /31 and /32 use every address (RFC
 *       3021). For IPv6 the first address (the Subnet-Router anycast address, RFC 4291 §2.6.1) is
 *       skipped likewise.
 *   <li>No immediate reuse: allocation continues after the last address handed out and wraps around
 *       at the end, so a released address comes back only after the pool has cycled.
 *   <li>Sharing: holders with the same non-null sharing key may hold one address when their ports
 *       do not clash and their backends are equal (both {@code externalTrafficPolicy: Cluster}, or
 *       both {@code Local} with the same pod selector, as MetalLB).
 * </ul>
 */
public final class Pool {
  private final String name;
  private final IpPrefix cidr;
  private final BigInteger first;
  private final BigInteger last;
  private final TreeMap<BigInteger, Lease> leases = new TreeMap<>();
  private final Map<String, Set<BigInteger>> byHolder = new HashMap<>();

  /** The addresses leased under each sharing key (a shared Service looks only at those). */
  private final Map<String, java.util.TreeSet<BigInteger>> bySharingKey = new HashMap<>();

  private BigInteger cursor;

  /** The holders of one address; all have the same sharing key and backend. */
  private static final class Lease {
    final String sharingKey;
    final String backend;
    final Map<String, Set<Port>> holders = new HashMap<>();

    Lease(String sharingKey, String backend) {
      this.sharingKey = sharingKey;
      this.backend = backend;
    }

    boolean admits(String holder, String key, String backend, Set<Port> ports) {
      if (holders.containsKey(holder)) {
        return true;
      }
      if (sharingKey == null || !sharingKey.equals(key)) {
        return false;
      }
      // MetalLB's rule: both Cluster, or both Local with the same pods (else a node with the pods
      // of
      // one Service would attract the traffic of the other)
      if (!java.util.Objects.equals(this.backend, backend)) {
        return false;
      }
      for (var held : holders.values()) {
        for (var port : ports) {
          if (held.contains(port)) {
            return false;
          }
        }
      }
      return true;
    }
  }

  public Pool(String name, IpPrefix cidr, boolean allowFirstLast) {
    this.name = name;
    this.cidr = cidr;
    BigInteger size = cidr.size();
    boolean skipEnds = !allowFirstLast && size.compareTo(BigInteger.valueOf(4)) >= 0;
    this.first = skipEnds ? BigInteger.ONE : BigInteger.ZERO;
    // IPv6 has no broadcast address: only the first one is special
    this.last = size.subtract(skipEnds && cidr.isIpv4() ? BigInteger.TWO : BigInteger.ONE);
    this.cursor = first;
  }

  public String name() {
    return name;
  }

  public IpPrefix cidr() {
    return cidr;
  }

  public boolean isIpv4() {
    return cidr.isIpv4();
  }

  /** How many addresses can be handed out. */
  public BigInteger capacity() {
    return last.subtract(first).add(BigInteger.ONE);
  }

  /** How many distinct addresses are held. */
  public int inUse() {
    return leases.size();
  }

  public boolean contains(InetAddress address) {
    return cidr.contains(address);
  }

  /** Whether {@code address} may be handed out at all (inside, and not a skipped end). */
  public boolean usable(InetAddress address) {
    if (!cidr.contains(address)) {
      return false;
    }
    BigInteger offset = cidr.offsetOf(address);
    return offset.compareTo(first) >= 0 && offset.compareTo(last) <= 0;
  }

  /** The addresses {@code holder} holds in this pool. */
  public Set<InetAddress> heldBy(String holder) {
    var offsets = byHolder.get(holder);
    var result = new HashSet<InetAddress>();
    if (offsets != null) {
      offsets.forEach(o -> result.add(cidr.addressAt(o)));
    }
    return result;
  }

  /**
   * Takes {@code address} for {@code holder}: a requested address, or one read back from a
   * Service's status after a restart. Fails (empty) when another holder has it and sharing is not
   * allowed.
   */
  public boolean assign(
      InetAddress address, String holder, String sharingKey, String backend, Set<Port> ports) {
    if (!usable(address)) {
      return false;
    }
    BigInteger offset = cidr.offsetOf(address);
    Lease lease = leases.get(offset);
    if (lease != null && !lease.admits(holder, sharingKey, backend, ports)) {
      return false;
    }
    if (lease == null) {
      lease = new Lease(sharingKey, backend);
      put(offset, lease);
    }
    lease.holders.put(holder, Set.copyOf(ports));
    byHolder.computeIfAbsent(holder, h -> new HashSet<>()).add(offset);
    return true;
  }

  /**
   * Hands an address to {@code holder}: first an address already shared under {@code sharingKey}
   * whose holders' ports do not clash, else the next free address after the last one handed out.
   */
  public Optional<InetAddress> allocate(
      String holder, String sharingKey, String backend, Set<Port> ports) {
    if (sharingKey != null) {
      for (var offset : bySharingKey.getOrDefault(sharingKey, new java.util.TreeSet<>())) {
        var lease = leases.get(offset);
        if (lease.admits(holder, sharingKey, backend, ports)) {
          lease.holders.put(holder, Set.copyOf(ports));
          byHolder.computeIfAbsent(holder, h -> new HashSet<>()).add(offset);
          return Optional.of(cidr.addressAt(offset));
        }
      }
    }
    if (BigInteger.valueOf(leases.size()).compareTo(capacity()) >= 0) {
      return Optional.empty();
    }
    BigInteger candidate = cursor;
    // leases.size() < capacity: a free offset exists; walk past runs of held ones
    while (true) {
      if (candidate.compareTo(last) > 0) {
        candidate = first;
      }
      var held = leases.ceilingKey(candidate);
      if (held == null || !held.equals(candidate)) {
        break;
      }
      // skip the run of consecutive held offsets starting here
      var next = candidate.add(BigInteger.ONE);
      var tail = leases.tailMap(next, true);
      for (var key : tail.keySet()) {
        if (!key.equals(next)) {
          break;
        }
        next = next.add(BigInteger.ONE);
      }
      candidate = next;
    }
    var lease = new Lease(sharingKey, backend);
    lease.holders.put(holder, Set.copyOf(ports));
    put(candidate, lease);
    byHolder.computeIfAbsent(holder, h -> new HashSet<>()).add(candidate);
    cursor = candidate.add(BigInteger.ONE);
    return Optional.of(cidr.addressAt(candidate));
  }

  private void put(BigInteger offset, Lease lease) {
    leases.put(offset, lease);
    if (lease.sharingKey != null) {
      bySharingKey.computeIfAbsent(lease.sharingKey, k -> new java.util.TreeSet<>()).add(offset);
    }
  }

  /**
   * Gives {@code address} back for {@code holder}; the address is free when its last holder lets
   * go.
   */
  public void release(InetAddress address, String holder) {
    if (!cidr.contains(address)) {
      return;
    }
    BigInteger offset = cidr.offsetOf(address);
    var lease = leases.get(offset);
    if (lease != null) {
      lease.holders.remove(holder);
      if (lease.holders.isEmpty()) {
        leases.remove(offset);
        if (lease.sharingKey != null) {
          var keyed = bySharingKey.get(lease.sharingKey);
          keyed.remove(offset);
          if (keyed.isEmpty()) {
            bySharingKey.remove(lease.sharingKey);
          }
        }
      }
    }
    var offsets = byHolder.get(holder);
    if (offsets != null) {
      offsets.remove(offset);
      if (offsets.isEmpty()) {
        byHolder.remove(holder);
      }
    }
  }

  /** Releases everything {@code holder} has here. */
  public void releaseAll(String holder) {
    for (var address : heldBy(holder)) {
      release(address, holder);
    }
  }

  /**
   * After a restart the cursor is unknown: continue after the highest held address, so that
   * addresses freed while the controller was down are not the first handed out.
   */
  public void resumeAfterHighest() {
    if (!leases.isEmpty()) {
      cursor = leases.lastKey().add(BigInteger.ONE);
    }
  }
}
