package dev.sart.bgp.wire;

/** RFC 9234 §5: OTC (Only to Customer), optional transitive, a 4-octet AS number. */
public record OnlyToCustomer(long as) implements PathAttribute {

  public OnlyToCustomer {
    Attributes.checkU32(as);
  }

  @Override
  public int typeCode() {
    return Iana.AttributeType.ONLY_TO_CUSTOMER;
  }
}
