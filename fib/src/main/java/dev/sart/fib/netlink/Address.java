package dev.sart.fib.netlink;

import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import java.net.InetAddress;
import java.util.Set;

/**
 * An address on an interface (RTM_NEWADDR: struct ifaddrmsg and IFA_*). Unlike an {@link IpPrefix},
 * it keeps its host bits: 192.0.2.1/24.
 *
 * @param index the interface's index
 * @param address the address (IFA_LOCAL for IPv4, IFA_ADDRESS for IPv6)
 * @param prefixLength the length of the subnet the address is in
 * @param scope ifa_scope
 * @param flags IFA_FLAGS
 * @param label IFA_LABEL (IPv4 only), or null
 */
public record Address(
    int index,
    InetAddress address,
    int prefixLength,
    Scope scope,
    Set<AddressFlag> flags,
    String label) {

  public Address {
    if (prefixLength < 0 || prefixLength > Family.of(address).maxPrefixLength()) {
      throw new IllegalArgumentException(
          "prefix length " + prefixLength + " out of range for " + Ip.format(address));
    }
    flags = BitFlag.copy(AddressFlag.class, flags);
  }

  /** "192.0.2.1/24" on link {@code index}, scope universe, no flags. */
  public static Address of(int index, String cidr) {
    int slash = cidr.indexOf('/');
    if (slash < 0) {
      throw new IllegalArgumentException("expected ADDRESS/LENGTH: " + cidr);
    }
    return new Address(
        index,
        Ip.parse(cidr.substring(0, slash)),
        Integer.parseInt(cidr.substring(slash + 1)),
        Scope.UNIVERSE,
        Set.of(),
        null);
  }

  /** A copy with these flags. */
  public Address withFlags(Set<AddressFlag> newFlags) {
    return new Address(index, address, prefixLength, scope, newFlags, label);
  }

  /** A copy with this scope. */
  public Address withScope(Scope newScope) {
    return new Address(index, address, prefixLength, newScope, flags, label);
  }

  public Family family() {
    return Family.of(address);
  }

  /** The subnet the address is in: 192.0.2.1/24 → 192.0.2.0/24. */
  public IpPrefix subnet() {
    return new IpPrefix(address, prefixLength);
  }

  /** "192.0.2.1/24". */
  public String cidr() {
    return Ip.format(address) + "/" + prefixLength;
  }
}
