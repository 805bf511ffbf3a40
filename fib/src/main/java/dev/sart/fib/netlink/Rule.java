package dev.sart.fib.netlink;

import dev.sart.net.IpPrefix;
import java.util.Objects;

/**
 * A policy routing rule (RTM_NEWRULE: struct fib_rule_hdr and FRA_* in linux/fib_rules.h).
 *
 * @param family INET or INET6
 * @param priority FRA_PRIORITY; rules are tried from the lowest. When adding, 0 lets the kernel
 *     pick one (just below the first user rule), as {@code ip rule add} without a priority does
 * @param table FRA_TABLE, the table a {@link RuleAction#TO_TBL} rule looks up
 * @param action what the rule does when it matches
 * @param from FRA_SRC, the source prefix the rule matches, or null for any
 * @param to FRA_DST, the destination prefix the rule matches, or null for any
 * @param iif FRA_IIFNAME, the input interface's name, or null for any
 * @param oif FRA_OIFNAME, the output interface's name (for locally generated packets), or null
 * @param fwmark FRA_FWMARK, the firewall mark, or 0 for none
 * @param fwmask FRA_FWMASK; with a mark and no mask the kernel compares all 32 bits
 * @param protocol FRA_PROTOCOL, who installed the rule (an rtm_protocol number)
 */
public record Rule(
    Family family,
    int priority,
    int table,
    RuleAction action,
    IpPrefix from,
    IpPrefix to,
    String iif,
    String oif,
    int fwmark,
    int fwmask,
    int protocol) {

  public Rule {
    Objects.requireNonNull(family, "family");
    Objects.requireNonNull(action, "action");
    if (from != null && Family.of(from) != family || to != null && Family.of(to) != family) {
      throw new IllegalArgumentException("from " + from + " and to " + to + " must be " + family);
    }
    if (fwmark != 0 && fwmask == 0) {
      fwmask = 0xffffffff; // net/core/fib_rules.c fib_nl2rule
    }
    if (protocol < 0 || protocol > 255) {
      throw new IllegalArgumentException("protocol " + protocol + " outside 0..255");
    }
  }

  /** A rule looking up {@code table}, matching everything, at {@code priority}. */
  public static Rule lookup(Family family, int priority, int table) {
    return new Rule(
        family, priority, table, RuleAction.TO_TBL, null, null, null, null, 0, 0, Rtnl.RTPROT_BOOT);
  }

  public Rule withFrom(IpPrefix p) {
    return new Rule(family, priority, table, action, p, to, iif, oif, fwmark, fwmask, protocol);
  }

  public Rule withTo(IpPrefix p) {
    return new Rule(family, priority, table, action, from, p, iif, oif, fwmark, fwmask, protocol);
  }

  public Rule withIif(String name) {
    return new Rule(family, priority, table, action, from, to, name, oif, fwmark, fwmask, protocol);
  }

  public Rule withOif(String name) {
    return new Rule(family, priority, table, action, from, to, iif, name, fwmark, fwmask, protocol);
  }

  public Rule withFwmark(int mark, int mask) {
    return new Rule(family, priority, table, action, from, to, iif, oif, mark, mask, protocol);
  }

  public Rule withAction(RuleAction a) {
    return new Rule(family, priority, table, a, from, to, iif, oif, fwmark, fwmask, protocol);
  }

  public Rule withProtocol(int p) {
    return new Rule(family, priority, table, action, from, to, iif, oif, fwmark, fwmask, p);
  }

  /** "rule 100 from 192.0.2.0/24 lookup 120", how errors name the rule. */
  String describe() {
    StringBuilder sb =
        new StringBuilder(family == Family.INET ? "rule " : "-6 rule ").append(priority);
    if (from != null) {
      sb.append(" from ").append(from);
    }
    if (to != null) {
      sb.append(" to ").append(to);
    }
    if (iif != null) {
      sb.append(" iif ").append(iif);
    }
    if (oif != null) {
      sb.append(" oif ").append(oif);
    }
    if (fwmark != 0) {
      sb.append(" fwmark 0x")
          .append(Integer.toHexString(fwmark))
          .append("/0x")
          .append(Integer.toHexString(fwmask));
    }
    return sb.append(
            action == RuleAction.TO_TBL
                ? " lookup " + table
                : " " + action.name().toLowerCase(java.util.Locale.ROOT))
        .toString();
  }
}
