package dev.sart.bgp.wire;

/**
 * RFC 4760 §3: MP_REACH_NLRI, optional non-transitive.
 *
 * <pre>
 * +---------------------------------------------------------+
 * | Address Family Identifier (2 octets)                    |
 * +---------------------------------------------------------+
 * | Subsequent Address Family Identifier (1 octet)          |
 * +---------------------------------------------------------+
 * | Length of Next Hop Network Address (1 octet)            |
 * +---------------------------------------------------------+
 * | Network Address of Next Hop (variable)                  |
 * +---------------------------------------------------------+
 * | Reserved (1 octet)                                      |
 * +---------------------------------------------------------+
 * | Network Layer Reachability Information (variable)       |
 * +---------------------------------------------------------+
 * </pre>
 *
 * The NLRI are {@link Ipv4Prefixes} or {@link Ipv6Prefixes} for unicast and multicast, else {@link
 * OpaqueNlri}.
 */
public record MpReachNlri(Family family, MpNextHop nextHop, Nlri nlri) implements PathAttribute {

  @Override
  public int typeCode() {
    return Iana.AttributeType.MP_REACH_NLRI;
  }
}
