package dev.sart.bgp.wire;

/**
 * RFC 4271 §5.1.7: AGGREGATOR, optional transitive: the AS (2 octets, or 4 once RFC 6793 is
 * negotiated) and IPv4 address of the speaker that aggregated. Always the 4-octet AS here: on a
 * 2-octet session the codec merges AS4_AGGREGATOR in (RFC 6793 §4.2.3) and splits it out again.
 */
public record Aggregator(long as, int address) implements PathAttribute {

  public Aggregator {
    Attributes.checkU32(as);
  }

  @Override
  public int typeCode() {
    return Iana.AttributeType.AGGREGATOR;
  }

  @Override
  public String toString() {
    return "Aggregator[" + as + " " + Ip.formatV4(address) + "]";
  }
}
