package dev.sart.bgp.wire;

/** RFC 4271 §5.1.5: LOCAL_PREF, well-known, sent to internal peers only, 4 octets unsigned. */
public record LocalPref(long value) implements PathAttribute {

  public LocalPref {
    Attributes.checkU32(value);
  }

  @Override
  public int typeCode() {
    return Iana.AttributeType.LOCAL_PREF;
  }
}
