package dev.sart.controller.egress;

import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressType;
import dev.sart.crds.Egress;
import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import java.math.BigInteger;
import java.net.InetAddress;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

/**
 * Which static source address an Egress gets (KEP-0275), pure. The Egresses' {@code
 * status.sourceAddress} is the truth: an Egress keeps the address it holds while it is still valid
 * (in its pool, the pool still lets its namespace claim, nobody else holds it, it is the one it
 * asked for if it asked); otherwise it gets the address it asked for, or the lowest free one. As
 * for Service pools, the network and broadcast addresses of an IPv4 pool of /30 or wider are never
 * handed out.
 */
public final class SourceAddresses {
  private SourceAddresses() {}

  /** An address, or why there is none (for {@code status.message} and an Event). */
  public record Outcome(InetAddress address, String error) {
    static Outcome of(InetAddress a) {
      return new Outcome(a, null);
    }

    static Outcome fail(String why) {
      return new Outcome(null, why);
    }
  }

  /**
   * @param egress the Egress (its spec names a pool)
   * @param pool that pool, or null when there is none
   * @param all every Egress of the cluster (their status holds the addresses given out)
   */
  public static Outcome allocate(Egress egress, AddressPool pool, Collection<Egress> all) {
    var claim = egress.getSpec().sourceAddress();
    String namespace = egress.getMetadata().getNamespace();
    if (pool == null || pool.getSpec() == null) {
      return Outcome.fail("AddressPool " + claim.pool() + " does not exist");
    }
    if (pool.getSpec().type() != AddressType.EGRESS) {
      return Outcome.fail("AddressPool " + claim.pool() + " is not of type egress");
    }
    if (!pool.getSpec().allowsNamespace(namespace)) {
      return Outcome.fail(
          "AddressPool "
              + claim.pool()
              + " does not list namespace "
              + namespace
              + " in allowedNamespaces");
    }
    if (pool.getMetadata().getDeletionTimestamp() != null) {
      return Outcome.fail("AddressPool " + claim.pool() + " is being deleted");
    }
    var cidr = IpPrefix.parseCidr(pool.getSpec().cidr());
    var held = new HashSet<InetAddress>();
    for (var other : all) {
      if (sameObject(other, egress) || other.getStatus() == null) {
        continue;
      }
      var a = other.getStatus().sourceAddress();
      if (a != null) {
        held.add(Ip.parse(a));
      }
    }
    InetAddress requested = claim.address() == null ? null : Ip.parse(claim.address());
    if (requested != null) {
      if (!cidr.contains(requested) || !usable(cidr, requested)) {
        return Outcome.fail(
            "address " + claim.address() + " is not an address of AddressPool " + claim.pool());
      }
      if (held.contains(requested)) {
        return Outcome.fail("address " + claim.address() + " is held by another Egress");
      }
      return Outcome.of(requested);
    }
    var status = egress.getStatus();
    if (status != null && status.sourceAddress() != null) {
      var current = Ip.parse(status.sourceAddress());
      if (cidr.contains(current) && usable(cidr, current) && !held.contains(current)) {
        return Outcome.of(current);
      }
    }
    var size = cidr.size();
    for (var i = BigInteger.ZERO; i.compareTo(size) < 0; i = i.add(BigInteger.ONE)) {
      var a = cidr.addressAt(i);
      if (usable(cidr, a) && !held.contains(a)) {
        return Outcome.of(a);
      }
    }
    return Outcome.fail("AddressPool " + claim.pool() + " has no free address");
  }

  private static boolean usable(IpPrefix cidr, InetAddress a) {
    if (!cidr.isIpv4() || cidr.length() > 30) {
      return true;
    }
    var offset = cidr.offsetOf(a);
    return offset.signum() != 0 && !offset.equals(cidr.size().subtract(BigInteger.ONE));
  }

  private static boolean sameObject(Egress a, Egress b) {
    return a.getMetadata().getNamespace().equals(b.getMetadata().getNamespace())
        && a.getMetadata().getName().equals(b.getMetadata().getName());
  }

  /** The addresses of {@code all} (for tests). */
  static Set<InetAddress> held(Collection<Egress> all) {
    var out = new HashSet<InetAddress>();
    for (var e : all) {
      if (e.getStatus() != null && e.getStatus().sourceAddress() != null) {
        out.add(Ip.parse(e.getStatus().sourceAddress()));
      }
    }
    return out;
  }
}
