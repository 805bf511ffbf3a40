package dev.sart.fib.netlink;

/** How far a route or an address reaches: enum rt_scope_t in linux/rtnetlink.h. */
public enum Scope {
  UNIVERSE(0),
  SITE(200),
  LINK(253),
  HOST(254),
  NOWHERE(255);

  private final int code;

  Scope(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  /** The scope of a code; user-defined scopes (1..199) are not supported. */
  public static Scope of(int code) {
    for (Scope s : values()) {
      if (s.code == code) {
        return s;
      }
    }
    throw new IllegalArgumentException("unsupported scope " + code);
  }
}
