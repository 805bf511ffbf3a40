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
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What one RIB shard keeps per Established peer besides its paths in the Loc-RIB: its policies, its
 * Adj-RIB-In as received (RFC 4271 §3.2, only with soft reconfiguration inbound) for the shard's
 * prefixes, and its share of the number of prefixes accepted per family for the max-prefix limit
 * (the {@link Limit}, which all shards share). Owned by the shard's thread.
 */
final class AdjRibIn {
  record Key(Prefix prefix, int pathId) {}

  /**
   * The peer's max-prefix state across the shards: the accepted prefixes per family (each shard
   * counts in its own slots) and whether the limit has been reported (once per family and session).
   */
  static final class Limit {
    final MaxPrefixHandler handler; // null: nobody to tell (tests, warning only)
    private final ShardCounts accepted = new ShardCounts();
    private final AtomicBoolean trippedV4 = new AtomicBoolean();
    private final AtomicBoolean trippedV6 = new AtomicBoolean();

    Limit(MaxPrefixHandler handler) {
      this.handler = handler;
    }

    long accepted(Family f) {
      return f.equals(Family.IPV4_UNICAST)
          ? accepted.sum(0)
          : f.equals(Family.IPV6_UNICAST) ? accepted.sum(1) : 0;
    }

    /** Marks the limit of {@code f} as reported; false when it already was (by any shard). */
    boolean trip(Family f) {
      return (f.equals(Family.IPV4_UNICAST) ? trippedV4 : trippedV6).compareAndSet(false, true);
    }

    /** The limit changed: it may be reported again. */
    void reset() {
      trippedV4.set(false);
      trippedV6.set(false);
    }
  }

  PeerPolicy policy;
  final Limit limit;
  private final int shard;

  /** Pre-policy paths as received; null unless soft reconfiguration inbound is on. */
  Map<Key, Attrs> received;

  /**
   * RFC 4724 §4.2: the session of this peer that went down before this one, whose paths are kept
   * stale until this one sent them again (or its End-of-RIB, or a timer); null when there is none.
   */
  RibPeer predecessor;

  /** RFC 7313 §4: per family, the paths marked stale by the peer's BoRR and not sent again yet. */
  Map<Family, Set<Key>> stale;

  // one-entry memos: the prefixes of one UPDATE (and most of a table walk) share their attributes
  private Statement importStatement;
  private Attrs importIn;
  private Attrs importOut;
  private Statement exportStatement;
  private Attrs exportIn;
  private Attrs exportOut;

  /**
   * What a path's attributes become towards this peer: the RFC 4271 export rules ({@link Export})
   * depend on the prefix only through its family, and otherwise on the attributes, whether the path
   * is ours and whether its source is internal, so one computation serves every prefix with the
   * same interned attributes (8 slots per attribute set: family × local × internal source). When
   * the export policy does not look at prefixes (no prefix list), its result is kept too; otherwise
   * the policy runs per prefix on the cached rules' result. Cleared when the policy changes, and
   * when it holds {@link #EXPORT_CACHE_MAX} attribute sets (so it stays bounded).
   */
  private final IdentityHashMap<Attrs, Object[]> exportCache = new IdentityHashMap<>();

  private boolean exportPolicyPerPrefix;

  /** The entry of {@link #exportCache} used last, and its key. */
  private Attrs lastAttrs;

  private Object[] lastEntry;
  private static final Object NOT_EXPORTED = new Object();
  static final int EXPORT_CACHE_MAX = 1 << 16;

  AdjRibIn(PeerPolicy policy, Limit limit, int shard) {
    this.policy = policy;
    this.limit = limit;
    this.shard = shard;
    this.received = policy.softReconfigurationInbound() ? new HashMap<>() : null;
    this.exportPolicyPerPrefix = perPrefix(policy.exportPolicy());
  }

  private static boolean perPrefix(Policy p) {
    return p.statements().stream()
        .anyMatch(s -> s.match() != null && s.match().prefixList() != null);
  }

  /**
   * The attributes to send {@code best} to {@code to} with (export rules, then the export policy),
   * or null when it is not sent there; {@code to} is the peer this state belongs to.
   */
  Attrs export(Prefix p, Path best, RibPeer to, long localAs) {
    if (best.source() == to) {
      return null;
    }
    int family =
        p.family().equals(Family.IPV4_UNICAST)
            ? 0
            : p.family().equals(Family.IPV6_UNICAST) ? 1 : -1;
    // a reflected route (RFC 4456) depends on where it came from (ORIGINATOR_ID, client or not),
    // which the cache's key does not hold
    if (family < 0 || (to.internal() && !best.isLocal() && best.source().internal())) {
      Attrs a = Export.toPeer(p, best, to, localAs, policy.advertisePeerAs());
      return a == null ? null : exportPath(p, a, to.internal(), localAs);
    }
    int slot = family | (best.isLocal() ? 2 : 0) | (best.source().internal() ? 4 : 0);
    // the prefixes of an UPDATE share their attributes: the last entry spares the map lookup
    Object[] e = best.attrs() == lastAttrs ? lastEntry : exportCache.get(best.attrs());
    Object v = e == null ? null : e[slot];
    if (v == null) {
      Attrs a = Export.toPeer(p, best, to, localAs, policy.advertisePeerAs());
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
    lastAttrs = best.attrs();
    lastEntry = e;
    if (v == NOT_EXPORTED) {
      return null;
    }
    return exportPolicyPerPrefix ? exportPath(p, (Attrs) v, to.internal(), localAs) : (Attrs) v;
  }

  /** The export policy or our AS changed: forget what was computed with the old ones. */
  void forgetExports() {
    exportCache.clear();
    lastAttrs = null;
    lastEntry = null;
    exportPolicyPerPrefix = perPrefix(policy.exportPolicy());
  }

  /**
   * The path's attributes after the import policy (interned), or null when the policy rejects it.
   */
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
    limit.accepted.add(shard, p.isIpv4() ? 0 : 1, delta);
  }
}
