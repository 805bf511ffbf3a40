package dev.sart.bgp.bfd;

/** The session states of RFC 5880 §4.1 (the State field) and §6.2, by their wire values. */
public enum BfdState {
  ADMIN_DOWN,
  DOWN,
  INIT,
  UP;

  /** The 2-bit State field's value. */
  public int code() {
    return ordinal();
  }

  static BfdState of(int code) {
    return values()[code & 3];
  }
}
