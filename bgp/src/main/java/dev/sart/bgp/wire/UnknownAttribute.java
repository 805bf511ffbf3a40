package dev.sart.bgp.wire;

/**
 * An attribute whose type code the codec does not know (RFC 4271 §5): kept with its flags and
 * value. An unknown well-known attribute never gets here (it ends the session, 3/2).
 */
public record UnknownAttribute(int typeCode, int flags, Octets value) implements PathAttribute {

  public UnknownAttribute {
    if (typeCode < 0 || typeCode > 0xff || flags < 0 || flags > 0xff) {
      throw new IllegalArgumentException("type code/flags out of range");
    }
  }

  public boolean transitive() {
    return (flags & Iana.AttributeFlag.TRANSITIVE) != 0;
  }

  /**
   * RFC 4271 §5: when an unrecognized optional transitive attribute is passed on, its Partial bit
   * is set.
   */
  public UnknownAttribute withPartial() {
    return new UnknownAttribute(typeCode, flags | Iana.AttributeFlag.PARTIAL, value);
  }

  @Override
  public int defaultFlags() {
    return flags;
  }
}
