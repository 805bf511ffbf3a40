package dev.sart.bgp.fsm;

import static dev.sart.bgp.wire.Iana.ErrorCode.OPEN_MESSAGE;
import static dev.sart.bgp.wire.Iana.ErrorSubcode.BAD_BGP_IDENTIFIER;
import static dev.sart.bgp.wire.Iana.ErrorSubcode.UNSUPPORTED_CAPABILITY;

import dev.sart.bgp.wire.Capability;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.NotificationException;
import dev.sart.bgp.wire.Octets;
import dev.sart.bgp.wire.Open;
import dev.sart.bgp.wire.SessionOptions;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Checks the peer's OPEN against ours and the configuration (RFC 4271 §6.2, RFC 5492, RFC 6286, RFC
 * 6793) and negotiates the session. The codec has already rejected a wrong version and hold times
 * of 1 or 2 seconds; what needs the configuration is checked here.
 */
public final class OpenCheck {
  private OpenCheck() {}

  /**
   * @param sent the OPEN we sent (our AS, hold time, identifier and capabilities)
   * @param received the peer's OPEN
   * @param expectedPeerAs the AS the peer is configured with
   * @param localAs our AS (may exceed 65535 when {@code sent.myAs()} is AS_TRANS)
   * @param keepaliveTime the configured keepalive interval, or null for a third of the hold time
   */
  public static Negotiation check(
      Open sent, Open received, long expectedPeerAs, long localAs, Duration keepaliveTime)
      throws NotificationException {
    // RFC 4271 §6.2 / RFC 6793 §4.1: the AS is the 4-octet capability's when present.
    received.checkPeerAs(expectedPeerAs);
    long peerAs = received.as();
    boolean internal = peerAs == localAs;
    // RFC 6286 §2.2: a zero identifier is invalid; within an AS it must differ from ours.
    if (received.bgpIdentifier() == 0
        || (internal && received.bgpIdentifier() == sent.bgpIdentifier())) {
      throw new NotificationException(
          OPEN_MESSAGE,
          BAD_BGP_IDENTIFIER,
          "BGP identifier " + Integer.toUnsignedString(received.bgpIdentifier()));
    }
    // RFC 4760 §8: no Multiprotocol capability at all means IPv4 unicast only.
    Set<Family> ours = families(sent);
    Set<Family> theirs = families(received);
    Set<Family> common = new HashSet<>(ours);
    common.retainAll(theirs);
    if (common.isEmpty()) {
      // RFC 5492 §5: the data lists the capabilities we need and the peer lacks.
      throw new NotificationException(
          OPEN_MESSAGE,
          UNSUPPORTED_CAPABILITY,
          multiprotocolData(ours),
          "no family in common: ours " + ours + ", the peer's " + theirs);
    }
    // RFC 4271 §4.2: the smaller hold time; the keepalive is a third of it unless configured.
    int hold = Math.min(sent.holdTime(), received.holdTime());
    Duration holdTime = Duration.ofSeconds(hold);
    Duration keepalive;
    if (hold == 0) {
      keepalive = Duration.ZERO;
    } else if (keepaliveTime != null && !keepaliveTime.isZero()) {
      keepalive =
          keepaliveTime.compareTo(holdTime) < 0
              ? keepaliveTime
              : Duration.ofSeconds(Math.max(1, hold / 3));
    } else {
      keepalive = Duration.ofSeconds(Math.max(1, hold / 3));
    }
    SessionOptions options = SessionOptions.negotiate(sent, received, !internal);
    boolean rr =
        has(sent, Capability.RouteRefresh.class) && has(received, Capability.RouteRefresh.class);
    boolean err =
        has(sent, Capability.EnhancedRouteRefresh.class)
            && has(received, Capability.EnhancedRouteRefresh.class);
    return new Negotiation(
        new Negotiated(holdTime, keepalive, internal),
        options,
        common,
        peerAs,
        received.bgpIdentifier(),
        rr,
        err,
        received,
        sent);
  }

  static Set<Family> families(Open open) {
    Set<Family> fs = new HashSet<>();
    boolean any = false;
    for (Capability c : open.capabilities()) {
      if (c instanceof Capability.Multiprotocol mp) {
        fs.add(mp.family());
        any = true;
      }
    }
    if (!any) {
      fs.add(Family.IPV4_UNICAST);
    }
    return fs;
  }

  private static boolean has(Open open, Class<? extends Capability> kind) {
    return open.capability(kind).isPresent();
  }

  /** The Multiprotocol capabilities (code 1, length 4: AFI, reserved, SAFI) we would need. */
  private static Octets multiprotocolData(Set<Family> families) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (Family f : List.copyOf(families)) {
      out.write(1);
      out.write(4);
      out.write(f.afi() >>> 8);
      out.write(f.afi());
      out.write(0);
      out.write(f.safi());
    }
    return Octets.of(out.toByteArray());
  }
}
