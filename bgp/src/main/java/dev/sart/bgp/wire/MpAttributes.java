package dev.sart.bgp.wire;

import static dev.sart.bgp.wire.Iana.ErrorSubcode.OPTIONAL_ATTRIBUTE_ERROR;

import dev.sart.bgp.wire.Iana.AttributeType;

/**
 * MP_REACH_NLRI and MP_UNREACH_NLRI values (RFC 4760 §3-4, RFC 2545, RFC 8950, RFC 7606 §7.11-12).
 */
final class MpAttributes {

  private MpAttributes() {}

  /**
   * RFC 7606 §7.11: a next hop length that does not fit the family, or NLRI that do not parse,
   * leave the NLRI unusable: AFI/SAFI disable (or session reset).
   */
  static PathAttribute reach(UpdateDecoder u, int at, int end, int start) {
    byte[] b = u.b;
    int type = AttributeType.MP_REACH_NLRI;
    if (end - at < 5) {
      AttributeValues.malformed(
          u, type, OPTIONAL_ATTRIBUTE_ERROR, start, end, "MP_REACH_NLRI shorter than 5 octets");
      return null;
    }
    Family family = Family.of(Wire.u16(b, at), Wire.u8(b, at + 2));
    int nextHopLength = Wire.u8(b, at + 3);
    int nextHopAt = at + 4;
    int nlriAt = nextHopAt + nextHopLength + 1; // RFC 4760 §3: one Reserved octet, ignored
    if (nlriAt > end) {
      AttributeValues.malformed(
          u, type, OPTIONAL_ATTRIBUTE_ERROR, start, end, "MP_REACH_NLRI next hop overruns");
      return null;
    }
    MpNextHop nextHop = nextHop(family, b, nextHopAt, nextHopLength, u.options);
    if (nextHop == null) {
      AttributeValues.malformed(
          u,
          type,
          OPTIONAL_ATTRIBUTE_ERROR,
          start,
          end,
          "next hop length " + nextHopLength + " for " + family);
      return null;
    }
    Nlri nlri = nlri(family, b, nlriAt, end, u.options);
    if (nlri == null) {
      AttributeValues.malformed(
          u, type, OPTIONAL_ATTRIBUTE_ERROR, start, end, "malformed NLRI in MP_REACH_NLRI");
      return null;
    }
    return new MpReachNlri(family, nextHop, nlri);
  }

  /** RFC 7606 §7.12: NLRI that do not parse: AFI/SAFI disable (or session reset). */
  static PathAttribute unreach(UpdateDecoder u, int at, int end, int start) {
    int type = AttributeType.MP_UNREACH_NLRI;
    if (end - at < 3) {
      AttributeValues.malformed(
          u, type, OPTIONAL_ATTRIBUTE_ERROR, start, end, "MP_UNREACH_NLRI shorter than 3 octets");
      return null;
    }
    Family family = Family.of(Wire.u16(u.b, at), Wire.u8(u.b, at + 2));
    Nlri withdrawn = nlri(family, u.b, at + 3, end, u.options);
    if (withdrawn == null) {
      AttributeValues.malformed(
          u, type, OPTIONAL_ATTRIBUTE_ERROR, start, end, "malformed NLRI in MP_UNREACH_NLRI");
      return null;
    }
    return new MpUnreachNlri(family, withdrawn);
  }

  /**
   * RFC 4760 §3, RFC 2545 §3 (IPv6: global, or global and link-local), RFC 8950 §3 (IPv4 NLRI with
   * an IPv6 next hop, when negotiated). Null when the length does not fit the family.
   */
  private static MpNextHop nextHop(
      Family family, byte[] b, int at, int length, SessionOptions options) {
    if (!family.hasPrefixNlri()) {
      return new MpNextHop.Opaque(Octets.copyOf(b, at, length));
    }
    boolean v6Allowed = family.afi() == Iana.Afi.IPV6 || options.extendedNextHop().contains(family);
    return switch (length) {
      case 4 -> family.afi() == Iana.Afi.IPV4 ? new MpNextHop.V4(Wire.i32(b, at)) : null;
      case 16 -> v6Allowed ? new MpNextHop.V6(Wire.i64(b, at), Wire.i64(b, at + 8)) : null;
      case 32 ->
          v6Allowed
              ? new MpNextHop.V6WithLinkLocal(
                  Wire.i64(b, at), Wire.i64(b, at + 8), Wire.i64(b, at + 16), Wire.i64(b, at + 24))
              : null;
      default -> null;
    };
  }

  private static Nlri nlri(Family family, byte[] b, int from, int to, SessionOptions options) {
    if (!family.hasPrefixNlri()) {
      return new OpaqueNlri(Octets.copyOf(b, from, to - from));
    }
    boolean pathIds = options.addPathReceive().contains(family);
    return family.afi() == Iana.Afi.IPV4
        ? NlriCodec.decodeV4(b, from, to, pathIds)
        : NlriCodec.decodeV6(b, from, to, pathIds);
  }
}
