package dev.sart.testbed;

import dev.sart.net.Ip;
import java.net.InetAddress;
import java.util.Objects;
import java.util.Set;

/**
 * One BGP neighbour in a router's configuration.
 *
 * @param address the neighbour's address; its family picks the session's transport
 * @param asn the neighbour's AS number (equal to the local one for iBGP)
 * @param passive wait for the neighbour to connect instead of connecting
 * @param password TCP MD5 signature password (RFC 2385), or null
 * @param multihopTtl for eBGP across routers: the TTL to send, or 0 for a directly connected
 *     neighbour
 * @param ttlSecurityHops GTSM (RFC 5082): 0 for off, else how many hops away the neighbour may be
 *     (send with TTL 255, accept only TTL 256 - hops and above); replaces {@code multihopTtl}
 * @param families the families negotiated on this session
 * @param as4 whether the router announces the 4-octet AS capability (RFC 6793) on this session;
 *     false makes it an old, 2-octet AS speaker on this session
 * @param addPathReceive ADD-PATH (RFC 7911): the router takes several paths per prefix from the
 *     neighbour in each family of the session
 * @param addPathSend ADD-PATH: the router sends the neighbour all its paths per prefix (FRR's
 *     addpath-tx-all-paths, GoBGP's send-max, BIRD's add paths tx)
 */
public record Neighbor(
    InetAddress address,
    long asn,
    boolean passive,
    String password,
    int multihopTtl,
    int ttlSecurityHops,
    Set<Family> families,
    boolean as4,
    boolean addPathReceive,
    boolean addPathSend) {

  public Neighbor {
    Objects.requireNonNull(address, "address");
    families = Set.copyOf(families);
    if (families.isEmpty()) {
      throw new IllegalArgumentException("a neighbour needs at least one family");
    }
    if (ttlSecurityHops < 0 || ttlSecurityHops > 254) {
      throw new IllegalArgumentException("GTSM hops out of range 0..254: " + ttlSecurityHops);
    }
    if (ttlSecurityHops > 0 && multihopTtl > 0) {
      throw new IllegalArgumentException(
          "GTSM and multihop exclude each other; GTSM hops already allow "
              + ttlSecurityHops
              + " hops");
    }
  }

  /** A directly connected, active neighbour exchanging the unicast family of its address. */
  public static Neighbor of(String address, long asn) {
    InetAddress a = Ip.parse(address);
    return new Neighbor(
        a,
        asn,
        false,
        null,
        0,
        0,
        Set.of(a instanceof java.net.Inet4Address ? Family.IPV4_UNICAST : Family.IPV6_UNICAST),
        true,
        false,
        false);
  }

  public Neighbor asPassive() {
    return new Neighbor(
        address,
        asn,
        true,
        password,
        multihopTtl,
        ttlSecurityHops,
        families,
        as4,
        addPathReceive,
        addPathSend);
  }

  public Neighbor withPassword(String secret) {
    return new Neighbor(
        address,
        asn,
        passive,
        secret,
        multihopTtl,
        ttlSecurityHops,
        families,
        as4,
        addPathReceive,
        addPathSend);
  }

  public Neighbor withMultihop(int ttl) {
    return new Neighbor(
        address,
        asn,
        passive,
        password,
        ttl,
        ttlSecurityHops,
        families,
        as4,
        addPathReceive,
        addPathSend);
  }

  /** GTSM (RFC 5082) towards a neighbour at most {@code hops} hops away (1: directly connected). */
  public Neighbor withTtlSecurity(int hops) {
    if (hops < 1) {
      throw new IllegalArgumentException("GTSM needs at least one hop: " + hops);
    }
    return new Neighbor(
        address,
        asn,
        passive,
        password,
        multihopTtl,
        hops,
        families,
        as4,
        addPathReceive,
        addPathSend);
  }

  public Neighbor withFamilies(Family... fs) {
    return new Neighbor(
        address,
        asn,
        passive,
        password,
        multihopTtl,
        ttlSecurityHops,
        Set.of(fs),
        as4,
        addPathReceive,
        addPathSend);
  }

  /**
   * An old, 2-octet AS speaker on this session: no 4-octet AS capability in its OPEN (RFC 6793
   * §4.1). GoBGP cannot be one (its driver refuses); FRR only by sending no capabilities at all.
   */
  public Neighbor withoutAs4() {
    return new Neighbor(
        address,
        asn,
        passive,
        password,
        multihopTtl,
        ttlSecurityHops,
        families,
        false,
        addPathReceive,
        addPathSend);
  }

  /** ADD-PATH (RFC 7911): the router takes several paths per prefix from this neighbour. */
  public Neighbor withAddPathReceive() {
    return new Neighbor(
        address,
        asn,
        passive,
        password,
        multihopTtl,
        ttlSecurityHops,
        families,
        as4,
        true,
        addPathSend);
  }

  /** ADD-PATH (RFC 7911): the router sends this neighbour all its paths per prefix. */
  public Neighbor withAddPathSend() {
    return new Neighbor(
        address,
        asn,
        passive,
        password,
        multihopTtl,
        ttlSecurityHops,
        families,
        as4,
        addPathReceive,
        true);
  }

  public boolean isIpv4() {
    return address instanceof java.net.Inet4Address;
  }

  /** The address as the routers print it. */
  public String addressText() {
    return Ip.format(address);
  }
}
