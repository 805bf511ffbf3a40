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
 * @param gracefulRestart RFC 4724: whether we keep its routes while it restarts, and the restart
 *     time we advertise
 * @param bfd single-hop BFD (RFC 5880, RFC 5881) with these timers, the session taken down when BFD
 *     goes down (RFC 5882); null: none
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
    Set<Family> families,
    GracefulRestart gracefulRestart,
    dev.sart.bgp.bfd.BfdConfig bfd) {

  /**
   * RFC 4724 for one neighbour.
   *
   * @param helper keep its routes, stale, while it restarts (§4.2)
   * @param restartTime the Restart Time of our capability (§3), 0..4095 s
   */
  public record GracefulRestart(boolean helper, Duration restartTime) {
    /** The helper on, a restart time of 120 s. */
    public static final GracefulRestart DEFAULT =
        new GracefulRestart(true, Duration.ofSeconds(120));

    public GracefulRestart {
      Objects.requireNonNull(restartTime, "restartTime");
      if (restartTime.isNegative() || restartTime.toSeconds() > 4095) {
        throw new IllegalArgumentException(
            "graceful restart time must be 0..4095 s (RFC 4724 §3): " + restartTime.toSeconds());
      }
    }
  }

  /** Without BFD. */
  public PeerConfig(
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
      Set<Family> families,
      GracefulRestart gracefulRestart) {
    this(
        name,
        address,
        asn,
        port,
        localAddress,
        passive,
        password,
        multihopTtl,
        ttlSecurity,
        holdTime,
        keepaliveTime,
        connectRetryTime,
        families,
        gracefulRestart,
        null);
  }

  /** The same with single-hop BFD with these timers (null: none). */
  public PeerConfig withBfd(dev.sart.bgp.bfd.BfdConfig timers) {
    return new PeerConfig(
        name,
        address,
        asn,
        port,
        localAddress,
        passive,
        password,
        multihopTtl,
        ttlSecurity,
        holdTime,
        keepaliveTime,
        connectRetryTime,
        families,
        gracefulRestart,
        timers);
  }

  /** With the default graceful restart settings ({@link GracefulRestart#DEFAULT}). */
  public PeerConfig(
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
    this(
        name,
        address,
        asn,
        port,
        localAddress,
        passive,
        password,
        multihopTtl,
        ttlSecurity,
        holdTime,
        keepaliveTime,
        connectRetryTime,
        families,
        GracefulRestart.DEFAULT,
        null);
  }

  /** The defaults of a neighbour, for every way of configuring one (file, gRPC, CRDs). */
  public static final int DEFAULT_PORT = 179;

  /** RFC 4271 §10's suggested hold time. */
  public static final Duration DEFAULT_HOLD_TIME = Duration.ofSeconds(90);

  /** sart's connect-retry time (RFC 4271 §10 suggests 120 s; a node wants its ToR sooner). */
  public static final Duration DEFAULT_CONNECT_RETRY_TIME = Duration.ofSeconds(10);

  public PeerConfig {
    Objects.requireNonNull(address, "address");
    if (gracefulRestart == null) {
      gracefulRestart = GracefulRestart.DEFAULT;
    }
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
    if (bfd != null && multihopTtl > 1) {
      // RFC 5883 (multihop BFD) is not implemented
      throw new IllegalArgumentException(
          "BFD is single-hop only: the peer must be directly connected");
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
