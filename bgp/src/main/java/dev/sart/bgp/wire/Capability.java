package dev.sart.bgp.wire;

import java.util.List;

/**
 * A capability of an OPEN (RFC 5492 §4). Codes the codec does not know are kept as {@link Unknown}
 * and re-encoded byte for byte.
 *
 * <pre>
 * +------------------------------+
 * | Capability Code (1 octet)    |
 * +------------------------------+
 * | Capability Length (1 octet)  |
 * +------------------------------+
 * | Capability Value (variable)  |
 * ~                              ~
 * +------------------------------+
 * </pre>
 */
public sealed interface Capability {

  int code();

  /** RFC 4760 §8: AFI (2), reserved (1), SAFI (1). */
  record Multiprotocol(Family family) implements Capability {
    @Override
    public int code() {
      return Iana.CapabilityCode.MULTIPROTOCOL;
    }
  }

  /** RFC 2918 §2: no value. */
  record RouteRefresh() implements Capability {
    public static final RouteRefresh INSTANCE = new RouteRefresh();

    @Override
    public int code() {
      return Iana.CapabilityCode.ROUTE_REFRESH;
    }
  }

  /** RFC 8950 §3: triples of NLRI AFI (2), NLRI SAFI (2), Nexthop AFI (2). */
  record ExtendedNextHop(List<Entry> entries) implements Capability {
    public ExtendedNextHop {
      entries = List.copyOf(entries);
    }

    /** NLRI of {@code family} may carry a next hop of {@code nextHopAfi}. SAFI is 2 octets here. */
    public record Entry(int nlriAfi, int nlriSafi, int nextHopAfi) {
      public Family family() {
        return Family.of(nlriAfi, nlriSafi & 0xff);
      }
    }

    @Override
    public int code() {
      return Iana.CapabilityCode.EXTENDED_NEXT_HOP;
    }
  }

  /** RFC 8654 §3: no value. */
  record ExtendedMessage() implements Capability {
    public static final ExtendedMessage INSTANCE = new ExtendedMessage();

    @Override
    public int code() {
      return Iana.CapabilityCode.EXTENDED_MESSAGE;
    }
  }

  /** RFC 9234 §4.1: one octet, see {@link Iana.Role}. */
  record Role(int role) implements Capability {
    @Override
    public int code() {
      return Iana.CapabilityCode.ROLE;
    }
  }

  /**
   * RFC 4724 §3, RFC 8538 §2: restart flags (4 bits: R = 0x8, N = 0x4), restart time (12 bits),
   * then per family AFI (2), SAFI (1), flags (1: F = 0x80).
   */
  record GracefulRestart(int restartFlags, int restartTime, List<Entry> families)
      implements Capability {
    public static final int RESTART_STATE = 0x8;
    public static final int NOTIFICATION = 0x4;
    public static final int FORWARDING_STATE = 0x80;

    public GracefulRestart {
      if (restartFlags < 0 || restartFlags > 0xf || restartTime < 0 || restartTime > 0xfff) {
        throw new IllegalArgumentException("restart flags/time out of range");
      }
      families = List.copyOf(families);
    }

    public record Entry(Family family, int flags) {
      public boolean forwardingPreserved() {
        return (flags & FORWARDING_STATE) != 0;
      }
    }

    public boolean restarting() {
      return (restartFlags & RESTART_STATE) != 0;
    }

    public boolean notificationSupported() {
      return (restartFlags & NOTIFICATION) != 0;
    }

    @Override
    public int code() {
      return Iana.CapabilityCode.GRACEFUL_RESTART;
    }
  }

  /** RFC 6793 §3: the speaker's 4-octet AS number. */
  record FourOctetAs(long as) implements Capability {
    public FourOctetAs {
      if (as < 0 || as > 0xffff_ffffL) {
        throw new IllegalArgumentException("AS out of range: " + as);
      }
    }

    @Override
    public int code() {
      return Iana.CapabilityCode.FOUR_OCTET_AS;
    }
  }

  /**
   * RFC 7911 §4: per family AFI (2), SAFI (1), Send/Receive (1: receive = 1, send = 2, both = 3).
   */
  record AddPath(List<Entry> families) implements Capability {
    public static final int RECEIVE = 1;
    public static final int SEND = 2;
    public static final int BOTH = 3;

    public AddPath {
      families = List.copyOf(families);
    }

    public record Entry(Family family, int sendReceive) {
      public boolean receive() {
        return (sendReceive & RECEIVE) != 0;
      }

      public boolean send() {
        return (sendReceive & SEND) != 0;
      }
    }

    @Override
    public int code() {
      return Iana.CapabilityCode.ADD_PATH;
    }
  }

  /** RFC 7313 §3: no value. */
  record EnhancedRouteRefresh() implements Capability {
    public static final EnhancedRouteRefresh INSTANCE = new EnhancedRouteRefresh();

    @Override
    public int code() {
      return Iana.CapabilityCode.ENHANCED_ROUTE_REFRESH;
    }
  }

  /**
   * RFC 9494 §3: per family AFI (2), SAFI (1), flags (1: F = 0x80), long-lived stale time (3,
   * seconds).
   */
  record LongLivedGracefulRestart(List<Entry> families) implements Capability {
    public LongLivedGracefulRestart {
      families = List.copyOf(families);
    }

    public record Entry(Family family, int flags, int staleTime) {
      public Entry {
        if (staleTime < 0 || staleTime > 0xff_ffff) {
          throw new IllegalArgumentException("stale time out of range: " + staleTime);
        }
      }
    }

    @Override
    public int code() {
      return Iana.CapabilityCode.LONG_LIVED_GRACEFUL_RESTART;
    }
  }

  /**
   * draft-walton-bgp-hostname-capability §3: host name and domain name, each a length octet and
   * that many octets. Kept as ISO-8859-1 so that every byte round-trips (the names are ASCII).
   */
  record Fqdn(String hostname, String domain) implements Capability {
    public Fqdn {
      if (hostname.length() > 255 || domain.length() > 255) {
        throw new IllegalArgumentException("FQDN part longer than 255");
      }
    }

    @Override
    public int code() {
      return Iana.CapabilityCode.FQDN;
    }
  }

  /** Any other capability, kept as received. */
  record Unknown(int code, Octets value) implements Capability {
    public Unknown {
      if (code < 0 || code > 0xff || value.length() > 255) {
        throw new IllegalArgumentException("capability code/length out of range");
      }
    }
  }
}
