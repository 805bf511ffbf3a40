package dev.sart.fib.netlink;

/** What a policy rule does when it matches: FR_ACT_* in linux/fib_rules.h (fib_rule_hdr.action). */
public enum RuleAction {
  /** Look the destination up in the rule's table. */
  TO_TBL(1),
  /** Jump to another rule (FRA_GOTO; not created by this library). */
  GOTO(2),
  NOP(3),
  BLACKHOLE(6),
  UNREACHABLE(7),
  PROHIBIT(8);

  private final int code;

  RuleAction(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  static RuleAction of(int code) {
    for (RuleAction a : values()) {
      if (a.code == code) {
        return a;
      }
    }
    throw new IllegalArgumentException("unknown rule action " + code);
  }
}
