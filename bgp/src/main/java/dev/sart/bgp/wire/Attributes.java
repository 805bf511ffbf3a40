package dev.sart.bgp.wire;

import static dev.sart.bgp.wire.Iana.AttributeFlag.OPTIONAL_NON_TRANSITIVE;
import static dev.sart.bgp.wire.Iana.AttributeFlag.OPTIONAL_TRANSITIVE;
import static dev.sart.bgp.wire.Iana.AttributeFlag.WELL_KNOWN;

/** Facts about attribute type codes shared by the decoder and the encoder. */
final class Attributes {

  private Attributes() {}

  /**
   * RFC 4271 §5, RFC 4456 §8, RFC 4760 §3-4, RFC 1997, RFC 4360 §2, RFC 6793 §3, RFC 8092 §3, RFC
   * 9234 §5: the Optional and Transitive bits of each known attribute; -1 for an unknown one.
   */
  static int expectedFlags(int typeCode) {
    return switch (typeCode) {
      case Iana.AttributeType.ORIGIN,
          Iana.AttributeType.AS_PATH,
          Iana.AttributeType.NEXT_HOP,
          Iana.AttributeType.LOCAL_PREF,
          Iana.AttributeType.ATOMIC_AGGREGATE ->
          WELL_KNOWN;
      case Iana.AttributeType.MULTI_EXIT_DISC,
          Iana.AttributeType.ORIGINATOR_ID,
          Iana.AttributeType.CLUSTER_LIST,
          Iana.AttributeType.MP_REACH_NLRI,
          Iana.AttributeType.MP_UNREACH_NLRI ->
          OPTIONAL_NON_TRANSITIVE;
      case Iana.AttributeType.AGGREGATOR,
          Iana.AttributeType.COMMUNITIES,
          Iana.AttributeType.EXTENDED_COMMUNITIES,
          Iana.AttributeType.AS4_PATH,
          Iana.AttributeType.AS4_AGGREGATOR,
          Iana.AttributeType.LARGE_COMMUNITY,
          Iana.AttributeType.ONLY_TO_CUSTOMER ->
          OPTIONAL_TRANSITIVE;
      default -> -1;
    };
  }

  static void checkU32(long value) {
    if (value < 0 || value > 0xffff_ffffL) {
      throw new IllegalArgumentException("not a 4-octet unsigned value: " + value);
    }
  }
}
