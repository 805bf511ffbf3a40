package dev.sart.bgp.wire;

/** RFC 4271 §4.3 and §5.1.1: ORIGIN, well-known mandatory, one octet. */
public enum Origin implements PathAttribute {
  IGP,
  EGP,
  INCOMPLETE;

  private static final Origin[] VALUES = values();

  /**
   * The origin with this code, or null when the code is undefined (which RFC 7606 §7.1 treats as
   * withdraw).
   */
  static Origin ofCode(int code) {
    return code >= 0 && code < VALUES.length ? VALUES[code] : null;
  }

  public int code() {
    return ordinal();
  }

  @Override
  public int typeCode() {
    return Iana.AttributeType.ORIGIN;
  }
}
