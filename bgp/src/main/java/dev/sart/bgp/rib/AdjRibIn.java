package dev.sart.bgp.rib;

import dev.sart.bgp.policy.PeerPolicy;
import dev.sart.bgp.policy.Policy;
import dev.sart.bgp.policy.Statement;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Iana;
import dev.sart.bgp.wire.PathAttributes;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

/**
 * What the RIB keeps per Established peer besides its paths in the Loc-RIB: its policies, its
 * Adj-RIB-In as received (RFC 4271 §3.2, only with soft reconfiguration inbound), and the number
 * of prefixes accepted per family for the max-prefix limit. Owned by the RIB thread.
 */
final class AdjRibIn {
  record Key(Prefix prefix, int pathId) {}

  PeerPolicy policy;
  final MaxPrefixHandler handler; // null: nobody to tell (tests, warning only)
  /** Pre-policy paths as received; null unless soft reconfiguration inbound is on. */
  Map<Key, Attrs> received;
  /** RFC 7313 §4: per family, the paths marked stale by the peer's BoRR and not sent again yet. */
  Map<Family, Set<Key>> stale;
  long acceptedV4;
  long acceptedV6;
  boolean trippedV4;
  boolean trippedV6;
  // one-entry memos: the prefixes of one UPDATE (and most of a table walk) share their attributes
  private Statement importStatement;
  private Attrs importIn;
  private Attrs importOut;
  private Statement exportStatement;
  private Attrs exportIn;
  private Attrs exportOut;
  /**
   * What a path's attributes become towards this peer: the RFC 4271 export rules ({@link Export})
   * depend on the prefix only through its family, and otherwise on the attributes, whether the
   * path is ours and whether its source is internal, so one computation serves every prefix with
   * the same interned attributes (8 slots per attribute set: family × local × internal source).
   * When the export policy does not look at prefixes (no prefix list), its result is kept too;
   * otherwise the policy runs per prefix on the cached rules' result. Cleared when the policy
   * changes, and when it holds {@link #EXPORT_CACHE_MAX} attribute sets (so it stays bounded).
   */
  private final IdentityHashMap<Attrs, Object[]> exportCache = new IdentityHashMap<>();
  private boolean exportPolicyPerPrefix;
  private static final Object NOT_EXPORTED = new Object();
  static final int EXPORT_CACHE_MAX = 1 << 16;

  AdjRibIn(PeerPolicy policy, MaxPrefixHandler handler) {
    this.policy = policy;
    this.handler = handler;
    this.received = policy.softReconfigurationInbound() ? new HashMap<>() : null;
    this.exportPolicyPerPrefix = perPrefix(policy.exportPolicy());
  }

  private static boolean perPrefix(Policy p) {
    return p.statements().stream().anyMatch(s -> s.match() != null && s.match().prefixList() != null);
  }

  /**
   * The attributes to send {@code best} to {@code to} with (export rules, then the export
   * policy), or null when it is not sent there; {@code to} is the peer this state belongs to.
   */
  Attrs export(Prefix p, Path best, RibPeer to, long localAs) {
    if (best.source() == to) {
      return null;
    }
    int family = p.family().equals(Family.IPV4_UNICAST) ? 0 : p.family().equals(Family.IPV6_UNICAST) ? 1 : -1;
    if (family < 0) {
      Attrs a = Export.toPeer(p, best, to, localAs);
      return a == null ? null : exportPath(p, a, to.internal(), localAs);
    }
    int slot = family | (best.isLocal() ? 2 : 0) | (best.source().internal() ? 4 : 0);
    Object[] e = exportCache.get(best.attrs());
    Object v = e == null ? null : e[slot];
    if (v == null) {
      Attrs a = Export.toPeer(p, best, to, localAs);
      if (a != null && !exportPolicyPerPrefix) {
        a = exportPath(p, a, to.internal(), localAs);
      }
      v = a == null ? NOT_EXPORTED : a;
      if (e == null) {
        if (exportCache.size() >= EXPORT_CACHE_MAX) {
          exportCache.clear();
        }
        e = new Object[8];
        exportCache.put(best.attrs(), e);
      }
      e[slot] = v;
    }
    if (v == NOT_EXPORTED) {
      return null;
    }
    return exportPolicyPerPrefix ? exportPath(p, (Attrs) v, to.internal(), localAs) : (Attrs) v;
  }

  /** The export policy or our AS changed: forget what was computed with the old ones. */
  void forgetExports() {
    exportCache.clear();
    exportPolicyPerPrefix = perPrefix(policy.exportPolicy());
  }

  /** The path's attributes after the import policy (interned), or null when the policy rejects it. */
  Attrs importPath(Prefix p, Attrs in, long localAs) {
    Policy ip = policy.importPolicy();
    if (ip == Policy.ACCEPT_ALL) {
      return in;
    }
    Statement s = ip.decide(p.family(), p.high(), p.low(), p.length(), in.attributes());
    if (s == importStatement && in == importIn) {
      return importOut;
    }
    PathAttributes out = s.apply(in.attributes(), localAs);
    importStatement = s;
    importIn = in;
    importOut = out == null ? null : in.withAttributes(out);
    return importOut;
  }

  /**
   * The attributes to send after the export policy, or null when it rejects the route. {@code in}
   * is what the RFC 4271 export rules produced; LOCAL_PREF never reaches an external peer (§5.1.5)
   * even when the policy sets it.
   */
  Attrs exportPath(Prefix p, Attrs in, boolean internal, long localAs) {
    Policy ep = policy.exportPolicy();
    if (ep == Policy.ACCEPT_ALL) {
      return in;
    }
    Statement s = ep.decide(p.family(), p.high(), p.low(), p.length(), in.attributes());
    if (s == exportStatement && in == exportIn) {
      return exportOut;
    }
    PathAttributes out = s.apply(in.attributes(), localAs);
    if (out != null && !internal) {
      out = out.without(Iana.AttributeType.LOCAL_PREF);
    }
    exportStatement = s;
    exportIn = in;
    exportOut = out == null ? null : in.withAttributes(out);
    return exportOut;
  }

  void forgetMemos() {
    forgetExports();
    importStatement = null;
    importIn = null;
    importOut = null;
    exportStatement = null;
    exportIn = null;
    exportOut = null;
  }

  /** The path came again (or went): it is no longer stale. */
  void refreshed(Prefix p, int pathId) {
    if (stale != null) {
      Set<Key> s = stale.get(p.family());
      if (s != null) {
        s.remove(new Key(p, pathId));
      }
    }
  }

  void count(Prefix p, int delta) {
    if (p.isIpv4()) {
      acceptedV4 += delta;
    } else {
      acceptedV6 += delta;
    }
  }

  boolean tripped(Family f) {
    return f.equals(Family.IPV4_UNICAST) ? trippedV4 : trippedV6;
  }

  void trip(Family f) {
    if (f.equals(Family.IPV4_UNICAST)) {
      trippedV4 = true;
    } else {
      trippedV6 = true;
    }
  }

  long accepted(Family f) {
    return f.equals(Family.IPV4_UNICAST) ? acceptedV4 : f.equals(Family.IPV6_UNICAST) ? acceptedV6 : 0;
  }
}
