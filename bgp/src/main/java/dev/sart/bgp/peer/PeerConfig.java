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
 * @param addPath RFC 7911: the families we offer to receive and to send several paths of a prefix
 *     in, and how many we send
 * @param routeReflectorClient RFC 4456 §6: an internal peer that is a client of ours (which makes
 *     us its route reflector)
 * @param nextHopSelf every route sent to this internal peer carries our address as its next hop,
 *     reflected ones included
 * @param interfaceName an unnumbered neighbour: the interface it is on, its link-local address
 *     learned there (RFC 8950 fabrics); null: a neighbour given by address
 * @param remoteAs whether {@code asn} is the neighbour's AS, or the AS is learned from its OPEN and
 *     only checked to be another than ours (external) or ours (internal)
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
    dev.sart.bgp.bfd.BfdConfig bfd,
    AddPath addPath,
    boolean routeReflectorClient,
    boolean nextHopSelf,
    String interfaceName,
    RemoteAs remoteAs) {

  /**
   * How the neighbour's AS is known: {@link #NUMBER} configured; {@link #EXTERNAL} and {@link
   * #INTERNAL} (FRR's {@code remote-as external|internal}) learned from its OPEN, which must name
   * another AS than ours, or ours.
   */
  public enum RemoteAs {
    NUMBER,
    EXTERNAL,
    INTERNAL
  }

  /** An address that stands for "not learned yet" in the configuration of an unnumbered peer. */
  public static final InetAddress UNNUMBERED;

  static {
    try {
      UNNUMBERED = InetAddress.getByAddress(new byte[16]);
    } catch (java.net.UnknownHostException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** The same neighbour at {@code a} (an unnumbered one once its address is learned). */
  public PeerConfig withAddress(InetAddress a) {
    return new PeerConfig(
        name,
        a,
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
        bfd,
        addPath,
        routeReflectorClient,
        nextHopSelf,
        interfaceName,
        remoteAs);
  }

  /**
   * ADD-PATH (RFC 7911) for one neighbour, offered in our OPEN per family (§4) and used where the
   * peer offers the other direction.
   *
   * @param receive families in which we take several paths per prefix from the peer
   * @param send families in which we send the peer several paths per prefix
   * @param sendMax how many paths per prefix we send: the best this many that the export rules let
   *     through; 0: all of them
   */
  public record AddPath(Set<Family> receive, Set<Family> send, int sendMax) {
    /** None: one path per prefix both ways (RFC 4271). */
    public static final AddPath NONE = new AddPath(Set.of(), Set.of(), 0);

    public AddPath {
      receive = Set.copyOf(receive);
      send = Set.copyOf(send);
      if (sendMax < 0 || sendMax > 255) {
        throw new IllegalArgumentException("ADD-PATH paths to send must be 0 (all) or 1..255");
      }
    }

    public boolean isNone() {
      return receive.isEmpty() && send.isEmpty();
    }
  }

  /**
   * Graceful restart (RFC 4724) for one neighbour.
   *
   * @param helper keep its routes, stale, while it restarts (§4.2)
   * @param restartTime the Restart Time of our capability (§3), 0..4095 s
   * @param notification send RFC 8538's N bit: when the peer sends it too, a session that ends with
   *     a NOTIFICATION other than a Hard Reset is a restart as well, on both sides — a hold timer
   *     expiry included, so that without BFD a peer that helps us keeps our routes for our restart
   *     time after we are gone (off by default)
   */
  public record GracefulRestart(boolean helper, Duration restartTime, boolean notification) {
    /** The helper on, a restart time of 120 s, no N bit. */
    public static final GracefulRestart DEFAULT =
        new GracefulRestart(true, Duration.ofSeconds(120), false);

    /** Without RFC 8538's N bit. */
    public GracefulRestart(boolean helper, Duration restartTime) {
      this(helper, restartTime, false);
    }

    public GracefulRestart {
      Objects.requireNonNull(restartTime, "restartTime");
      if (restartTime.isNegative() || restartTime.toSeconds() > 4095) {
        throw new IllegalArgumentException(
            "graceful restart time must be 0..4095 s (RFC 4724 §3): " + restartTime.toSeconds());
      }
    }
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
        timers,
        addPath,
        routeReflectorClient,
        nextHopSelf,
        interfaceName,
        remoteAs);
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
    if (addPath == null) {
      addPath = AddPath.NONE;
    }
    if (remoteAs == null) {
      remoteAs = RemoteAs.NUMBER;
    }
    if (interfaceName != null && interfaceName.isBlank()) {
      interfaceName = null;
    }
    families = Set.copyOf(families);
    if (remoteAs == RemoteAs.NUMBER ? asn <= 0 || asn > 0xffff_ffffL : asn != 0) {
      throw new IllegalArgumentException(
          remoteAs == RemoteAs.NUMBER
              ? "peer AS must be 1..4294967295: " + asn
              : "a peer with remote AS " + remoteAs + " has no AS number configured: " + asn);
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
      name =
          interfaceName != null
              ? interfaceName
              : (asn == 0 ? remoteAs.name().toLowerCase(java.util.Locale.ROOT) : asn)
                  + "/"
                  + address.getHostAddress();
    }
  }

  /**
   * A directly connected peer with defaults: hold 90 s, connect retry 10 s, the family of its
   * address.
   */
  public static PeerConfig of(InetAddress address, long asn) {
    return builder(address, asn).build();
  }

  /**
   * A neighbour with every default filled in ({@link Builder}): the one place the defaults live,
   * for the file, the gRPC API (and so the CRDs, through the agent) and tests.
   */
  public static Builder builder(InetAddress address, long asn) {
    return new Builder(address, asn);
  }

  /** A builder holding this configuration, to change some of it. */
  public Builder toBuilder() {
    Builder b = new Builder(address, asn);
    b.name = name;
    b.port = port;
    b.localAddress = localAddress;
    b.passive = passive;
    b.password = password;
    b.multihopTtl = multihopTtl;
    b.ttlSecurity = ttlSecurity;
    b.holdTime = holdTime;
    b.keepaliveTime = keepaliveTime;
    b.connectRetryTime = connectRetryTime;
    b.families = families;
    b.gracefulRestart = gracefulRestart;
    b.bfd = bfd;
    b.addPath = addPath;
    b.routeReflectorClient = routeReflectorClient;
    b.nextHopSelf = nextHopSelf;
    b.interfaceName = interfaceName;
    b.remoteAs = remoteAs;
    return b;
  }

  /**
   * The defaults: port 179, hold time 90 s, keepalive a third of the negotiated hold time, connect
   * retry 10 s, the family of the address, graceful restart {@link GracefulRestart#DEFAULT}, no
   * BFD, active, directly connected (TTL 1 for eBGP), no password. {@link #build} checks the whole
   * (the record's constructor).
   */
  public static final class Builder {
    private final InetAddress address;
    private final long asn;
    private String name;
    private int port = DEFAULT_PORT;
    private InetAddress localAddress;
    private boolean passive;
    private String password;
    private int multihopTtl;
    private boolean ttlSecurity;
    private Duration holdTime = DEFAULT_HOLD_TIME;
    private Duration keepaliveTime;
    private Duration connectRetryTime = DEFAULT_CONNECT_RETRY_TIME;
    private Set<Family> families = Set.of();
    private GracefulRestart gracefulRestart = GracefulRestart.DEFAULT;
    private dev.sart.bgp.bfd.BfdConfig bfd;
    private AddPath addPath = AddPath.NONE;
    private boolean routeReflectorClient;
    private boolean nextHopSelf;
    private String interfaceName;
    private RemoteAs remoteAs = RemoteAs.NUMBER;

    private Builder(InetAddress address, long asn) {
      this.address = Objects.requireNonNull(address, "address");
      this.asn = asn;
    }

    public Builder name(String v) {
      name = v;
      return this;
    }

    public Builder port(int v) {
      port = v;
      return this;
    }

    public Builder localAddress(InetAddress v) {
      localAddress = v;
      return this;
    }

    public Builder passive(boolean v) {
      passive = v;
      return this;
    }

    public Builder password(String v) {
      password = v;
      return this;
    }

    public Builder multihopTtl(int v) {
      multihopTtl = v;
      return this;
    }

    public Builder ttlSecurity(boolean v) {
      ttlSecurity = v;
      return this;
    }

    public Builder holdTime(Duration v) {
      holdTime = Objects.requireNonNull(v, "holdTime");
      return this;
    }

    /** null: a third of the negotiated hold time. */
    public Builder keepaliveTime(Duration v) {
      keepaliveTime = v;
      return this;
    }

    public Builder connectRetryTime(Duration v) {
      connectRetryTime = Objects.requireNonNull(v, "connectRetryTime");
      return this;
    }

    /** Empty: the family of the address. */
    public Builder families(Set<Family> v) {
      families = Set.copyOf(v);
      return this;
    }

    public Builder gracefulRestart(GracefulRestart v) {
      gracefulRestart = Objects.requireNonNull(v, "gracefulRestart");
      return this;
    }

    /** null: no BFD. */
    public Builder bfd(dev.sart.bgp.bfd.BfdConfig v) {
      bfd = v;
      return this;
    }

    /** RFC 7911; {@link AddPath#NONE} by default. */
    public Builder addPath(AddPath v) {
      addPath = Objects.requireNonNull(v, "addPath");
      return this;
    }

    /** RFC 4456 §6: the peer is a route reflector client of ours (false by default). */
    public Builder routeReflectorClient(boolean v) {
      routeReflectorClient = v;
      return this;
    }

    /** Our address as next hop on every route to this internal peer (false by default). */
    public Builder nextHopSelf(boolean v) {
      nextHopSelf = v;
      return this;
    }

    /**
     * An unnumbered neighbour on this interface (null: none); build it with {@link #UNNUMBERED} as
     * the address. Without families it exchanges IPv4 and IPv6 unicast.
     */
    public Builder interfaceName(String v) {
      interfaceName = v;
      return this;
    }

    /** {@link RemoteAs#EXTERNAL} or {@link RemoteAs#INTERNAL} take an AS of 0. */
    public Builder remoteAs(RemoteAs v) {
      remoteAs = Objects.requireNonNull(v, "remoteAs");
      return this;
    }

    public PeerConfig build() {
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
          families.isEmpty()
              ? (interfaceName != null
                  ? Set.of(Family.IPV4_UNICAST, Family.IPV6_UNICAST)
                  : Set.of(
                      address instanceof java.net.Inet4Address
                          ? Family.IPV4_UNICAST
                          : Family.IPV6_UNICAST))
              : families,
          gracefulRestart,
          bfd,
          addPath,
          routeReflectorClient,
          nextHopSelf,
          interfaceName,
          remoteAs);
    }
  }
}
