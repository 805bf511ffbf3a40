package dev.sart.bgp.wire;

/** RFC 4456 §8: ORIGINATOR_ID, optional non-transitive, the BGP Identifier of the originator. */
public record OriginatorId(int id) implements PathAttribute {

  @Override
  public int typeCode() {
    return Iana.AttributeType.ORIGINATOR_ID;
  }

  @Override
  public String toString() {
    return "OriginatorId[" + Ip.formatV4(id) + "]";
  }
}
