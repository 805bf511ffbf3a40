package dev.sart.fib.netlink;

import dev.sart.net.IpPrefix;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;

/**
 * Policy routing rules, IPv4 and IPv6: add, delete, list (struct fib_rule_hdr, linux/fib_rules.h).
 */
public final class Rules {
  private final NetlinkSocket socket;

  Rules(NetlinkSocket socket) {
    this.socket = socket;
  }

  /** Adds a rule; EEXIST when an identical one exists. */
  public void add(Rule r) {
    socket.execute(addRequest(r));
  }

  /** Deletes the rule matching every field of {@code r} that is set; ENOENT when there is none. */
  public void delete(Rule r) {
    socket.execute(deleteRequest(r));
  }

  /** The rules of both families, in the kernel's order (by priority). */
  public List<Rule> list() {
    return list(null);
  }

  /** The rules of {@code family} (null: both). */
  public List<Rule> list(Family family) {
    int af = family == null ? Rtnl.AF_UNSPEC : family.code();
    return socket
        .dump(
            new Request(
                Rtnl.RTM_GETRULE,
                Rtnl.NLM_F_DUMP,
                () -> "list rules",
                w -> header(w, af, 0, 0, 0, 0, 0)))
        .stream()
        .filter(m -> m.type() == Rtnl.RTM_NEWRULE)
        .map(Rules::parse)
        .filter(Objects::nonNull)
        .toList();
  }

  static Request addRequest(Rule r) {
    return new Request(
        Rtnl.RTM_NEWRULE,
        Rtnl.NLM_F_CREATE | Rtnl.NLM_F_EXCL,
        () -> "add " + r.describe(),
        w -> write(w, r));
  }

  static Request deleteRequest(Rule r) {
    return new Request(Rtnl.RTM_DELRULE, 0, () -> "delete " + r.describe(), w -> write(w, r));
  }

  /**
   * struct fib_rule_hdr: family, dst_len, src_len, tos, table, res1, res2, action (u8 each), flags
   * u32.
   */
  private static void header(
      MessageWriter w, int family, int dstLen, int srcLen, int table, int action, int flags) {
    w.u8(family).u8(dstLen).u8(srcLen).u8(0).u8(table).u8(0).u8(0).u8(action).u32(flags);
  }

  static void write(MessageWriter w, Rule r) {
    header(
        w,
        r.family().code(),
        r.to() == null ? 0 : r.to().length(),
        r.from() == null ? 0 : r.from().length(),
        r.table() < 256 ? r.table() : Rtnl.RT_TABLE_UNSPEC,
        r.action().code(),
        0);
    if (r.priority() != 0) {
      w.attrU32(Rtnl.FRA_PRIORITY, r.priority());
    }
    if (r.action() == RuleAction.TO_TBL) {
      w.attrU32(Rtnl.FRA_TABLE, r.table());
    }
    if (r.from() != null) {
      w.attrAddress(Rtnl.FRA_SRC, r.from().address());
    }
    if (r.to() != null) {
      w.attrAddress(Rtnl.FRA_DST, r.to().address());
    }
    if (r.iif() != null) {
      w.attrString(Rtnl.FRA_IIFNAME, r.iif());
    }
    if (r.oif() != null) {
      w.attrString(Rtnl.FRA_OIFNAME, r.oif());
    }
    if (r.fwmark() != 0) {
      w.attrU32(Rtnl.FRA_FWMARK, r.fwmark());
      w.attrU32(Rtnl.FRA_FWMASK, r.fwmask());
    }
    if (r.protocol() != 0) {
      w.attrU8(Rtnl.FRA_PROTOCOL, r.protocol());
    }
  }

  /** Decodes an RTM_NEWRULE or RTM_DELRULE; null for a family other than IPv4 and IPv6. */
  static Rule parse(Message m) {
    ByteBuffer p = m.payload();
    Family family = Family.ofCode(p.get(0) & 0xff);
    if (family == null) {
      return null;
    }
    int dstLen = p.get(1) & 0xff;
    int srcLen = p.get(2) & 0xff;
    int table = p.get(4) & 0xff;
    int action = p.get(7) & 0xff;
    Attributes a = Attributes.after(p, Rtnl.FIB_RULE_HDR_LEN);
    return new Rule(
        family,
        a.u32(Rtnl.FRA_PRIORITY, 0),
        a.u32(Rtnl.FRA_TABLE, table),
        RuleAction.of(action),
        a.has(Rtnl.FRA_SRC) ? new IpPrefix(a.address(Rtnl.FRA_SRC), srcLen) : null,
        a.has(Rtnl.FRA_DST) ? new IpPrefix(a.address(Rtnl.FRA_DST), dstLen) : null,
        a.stringOrNull(Rtnl.FRA_IIFNAME),
        a.stringOrNull(Rtnl.FRA_OIFNAME),
        a.u32(Rtnl.FRA_FWMARK, 0),
        a.u32(Rtnl.FRA_FWMASK, 0),
        a.has(Rtnl.FRA_PROTOCOL) ? a.u8(Rtnl.FRA_PROTOCOL) : 0);
  }
}
