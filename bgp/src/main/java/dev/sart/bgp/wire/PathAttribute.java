package dev.sart.bgp.wire;

/**
 * A path attribute of an UPDATE (RFC 4271 §4.3, §5). The attribute flags as received are kept by
 * {@link PathAttributes}, next to the attribute. Unknown type codes become {@link
 * UnknownAttribute}.
 *
 * <pre>
 *  0                   1
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5
 * +---------------+---------------+
 * |  Attr. Flags  |Attr. Type Code|
 * +---------------+---------------+
 * </pre>
 *
 * followed by a 1-octet length, or a 2-octet one when the Extended Length flag is set.
 */
public sealed interface PathAttribute
    permits Origin,
        AsPath,
        NextHop,
        MultiExitDisc,
        LocalPref,
        AtomicAggregate,
        Aggregator,
        Communities,
        OriginatorId,
        ClusterList,
        MpReachNlri,
        MpUnreachNlri,
        ExtendedCommunities,
        As4Path,
        As4Aggregator,
        LargeCommunities,
        OnlyToCustomer,
        UnknownAttribute {

  int typeCode();

  /**
   * The Optional and Transitive flags the RFC defining the attribute prescribes (RFC 4271 §5); an
   * unknown attribute's own.
   */
  default int defaultFlags() {
    return Attributes.expectedFlags(typeCode());
  }
}
