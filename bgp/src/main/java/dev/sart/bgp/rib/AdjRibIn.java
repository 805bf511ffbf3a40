package dev.sart.bgp.rib;

import dev.sart.bgp.policy.PeerPolicy;
import dev.sart.bgp.policy.Policy;
import dev.sart.bgp.policy.Statement;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Iana;
import dev.sart.bgp.wire.PathAttributes;
import java.util.HashMap;
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

  AdjRibIn(PeerPolicy policy, MaxPrefixHandler handler) {
    this.policy = policy;
    this.handler = handler;
    this.received = policy.softReconfigurationInbound() ? new HashMap<>() : null;
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
