package dev.sart.fib.netlink;

/**
 * RFC 2863 operational state of a link: IF_OPER_* in linux/if.h (IFLA_OPERSTATE); the ordinal is
 * the code.
 */
public enum OperState {
  UNKNOWN,
  NOTPRESENT,
  DOWN,
  LOWERLAYERDOWN,
  TESTING,
  DORMANT,
  UP;

  static OperState of(int code) {
    return code >= 0 && code < values().length ? values()[code] : UNKNOWN;
  }
}
