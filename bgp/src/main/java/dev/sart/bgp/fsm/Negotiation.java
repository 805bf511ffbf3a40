package dev.sart.bgp.fsm;

import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Open;
import dev.sart.bgp.wire.SessionOptions;
import java.util.Set;

/**
 * What a session agreed on once the peer's OPEN passed {@link OpenCheck}.
 *
 * @param fsm what the FSM needs (hold time, keepalive, internal or external)
 * @param options what the codec needs (4-octet AS, ADD-PATH, extended message, extended next hop)
 * @param families the families both sides announced (RFC 4760 §8)
 * @param peerAs the peer's AS (from the 4-octet AS capability when present)
 * @param peerId the peer's BGP Identifier
 * @param routeRefresh both sides support ROUTE-REFRESH (RFC 2918)
 * @param enhancedRouteRefresh both sides support enhanced route refresh (RFC 7313)
 * @param received the peer's OPEN as received
 * @param sent our OPEN on the connection that negotiated
 */
public record Negotiation(
    Negotiated fsm,
    SessionOptions options,
    Set<Family> families,
    long peerAs,
    int peerId,
    boolean routeRefresh,
    boolean enhancedRouteRefresh,
    Open received,
    Open sent) {

  public Negotiation {
    families = Set.copyOf(families);
  }
}
