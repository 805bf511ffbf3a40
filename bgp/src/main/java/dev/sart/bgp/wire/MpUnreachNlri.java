package dev.sart.bgp.wire;

/**
 * RFC 4760 §4: MP_UNREACH_NLRI, optional non-transitive: AFI (2), SAFI (1), withdrawn routes. With
 * no withdrawn routes and alone in an UPDATE it is the End-of-RIB marker of its family (RFC 4724
 * §2).
 */
public record MpUnreachNlri(Family family, Nlri withdrawn) implements PathAttribute {

  @Override
  public int typeCode() {
    return Iana.AttributeType.MP_UNREACH_NLRI;
  }
}
