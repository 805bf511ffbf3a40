package dev.sart.bgp.peer;

import dev.sart.bgp.wire.Family;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * One configured neighbour.
 *
 * @param name a name for humans (sart's default: "ASN/address")
 * @param address the neighbour's address
 * @param asn the neighbour's AS
 * @param port the neighbour's BGP port (179)
 * @param localAddress the address to connect from, or null for the kernel's choice
 * @param passive never connect, only accept
 * @param password TCP MD5 signature password (RFC 2385), or null
 * @param multihopTtl eBGP multihop: the TTL to send; 0 means directly connected (TTL 1 for eBGP)
 * @param ttlSecurity GTSM (RFC 5082): send TTL 255 and accept only 255 - hops
 * @param holdTime the hold time we offer (0 disables keepalives)
 * @param keepaliveTime the keepalive interval, or null for a third of the negotiated hold time
 * @param connectRetryTime ConnectRetryTime
 * @param families the families we offer
 */
public record PeerConfig(
    String name,
    InetAddress address,
    long asn,
    int port,
    InetAddress localAddress,
    boolean passive,
    String password,
    int multihopTtl,
    boolean ttlSecurity,
    Duration holdTime,
    Duration keepaliveTime,
    Duration connectRetryTime,
    Set<Family> families) {

  /** The defaults of a neighbour, for every way of configuring one (file, gRPC, CRDs). */
  public static final int DEFAULT_PORT = 179;

  /** RFC 4271 §10's suggested hold time. */
  public static final Duration DEFAULT_HOLD_TIME = Duration.ofSeconds(90);

  /** sart's connect-retry time (RFC 4271 §10 suggests 120 s; a node wants its ToR sooner). */
  public static final Duration DEFAULT_CONNECT_RETRY_TIME = Duration.ofSeconds(10);

  public PeerConfig {
    Objects.requireNonNull(address, "address");
    families = Set.copyOf(families);
    if (asn <= 0 || asn > 0xffff_ffffL) {
      throw new IllegalArgumentException("peer AS must be 1..4294967295: " + asn);
    }
    long hold = holdTime.toSeconds();
    // RFC 4271 §4.2: zero or at least three seconds
    if (hold != 0 && hold < 3 || hold > 65535) {
      throw new IllegalArgumentException("hold time must be 0 or 3..65535 s: " + hold);
    }
    if (multihopTtl < 0 || multihopTtl > 255) {
      throw new IllegalArgumentException("multihop TTL must be 1..255: " + multihopTtl);
    }
    if (ttlSecurity && multihopTtl > 254) {
      throw new IllegalArgumentException("TTL security allows at most 254 hops");
    }
    if (families.isEmpty()) {
      throw new IllegalArgumentException("a peer needs at least one family");
    }
    if (name == null || name.isBlank()) {
      name = asn + "/" + address.getHostAddress();
    }
  }

  /**
   * A directly connected peer with defaults: hold 90 s, connect retry 10 s, the family of its
   * address.
   */
  public static PeerConfig of(InetAddress address, long asn) {
    return new PeerConfig(
        null,
        address,
        asn,
        DEFAULT_PORT,
        null,
        false,
        null,
        0,
        false,
        DEFAULT_HOLD_TIME,
        null,
        DEFAULT_CONNECT_RETRY_TIME,
        Set.of(
            address instanceof java.net.Inet4Address ? Family.IPV4_UNICAST : Family.IPV6_UNICAST));
  }
}
