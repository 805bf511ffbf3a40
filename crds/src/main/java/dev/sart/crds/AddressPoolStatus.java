package dev.sart.crds;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * Empty in sart. Ours counts what the pool holds, kept true by the controller: the pool's address
 * family ({@code ipv4}/{@code ipv6}); how many addresses it can hand out ({@code addressesTotal})
 * and, for a service pool, how many distinct addresses Services hold ({@code addressesInUse}); for
 * a pod pool, how many blocks of {@code blockSize} it is cut into ({@code blocksTotal}) and how
 * many are allocated to nodes ({@code blocksInUse}). Totals are decimal strings because an IPv6
 * pool can hold more than 2^63 addresses (a /64 holds 2^64).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record AddressPoolStatus(
    String family,
    String addressesTotal,
    Long addressesInUse,
    String blocksTotal,
    Long blocksInUse) {
  public static AddressPoolStatus service(boolean ipv4, java.math.BigInteger total, long inUse) {
    return new AddressPoolStatus(ipv4 ? "ipv4" : "ipv6", total.toString(), inUse, null, null);
  }

  public static AddressPoolStatus pod(
      boolean ipv4, java.math.BigInteger total, java.math.BigInteger blocks, long blocksInUse) {
    return new AddressPoolStatus(
        ipv4 ? "ipv4" : "ipv6", total.toString(), null, blocks.toString(), blocksInUse);
  }
}
