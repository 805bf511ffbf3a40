package dev.sart.bgp.wire;

/** RFC 4271 §5.1.4: MULTI_EXIT_DISC, optional non-transitive, 4 octets unsigned. */
public record MultiExitDisc(long value) implements PathAttribute {

  public MultiExitDisc {
    Attributes.checkU32(value);
  }

  @Override
  public int typeCode() {
    return Iana.AttributeType.MULTI_EXIT_DISC;
  }
}
