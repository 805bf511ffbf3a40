package dev.sart.bgp.wire;

/**
 * RFC 6793 §3: AS4_AGGREGATOR, optional transitive, 4-octet AS and IPv4 address. See {@link
 * As4Path}.
 */
public record As4Aggregator(long as, int address) implements PathAttribute {

  public As4Aggregator {
    Attributes.checkU32(as);
  }

  @Override
  public int typeCode() {
    return Iana.AttributeType.AS4_AGGREGATOR;
  }
}
