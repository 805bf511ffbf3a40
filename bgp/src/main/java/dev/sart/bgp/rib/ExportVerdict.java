package dev.sart.bgp.rib;

import dev.sart.bgp.policy.PeerPolicy;
import dev.sart.bgp.policy.Policy;
import dev.sart.bgp.policy.Statement;

/**
 * Whether the best path of a prefix goes into a peer's Adj-RIB-Out and, when it does not, the first
 * rule that keeps it back: the export rules of RFC 4271 §9.1.1–§9.1.3 and RFC 1997 ({@link
 * Export#refusal}), then the peer's export policy. Computed on demand from the same functions that
 * fill the Adj-RIB-Out, so it says what the speaker does now.
 *
 * @param kind the outcome
 * @param policy for {@link Kind#POLICY_REJECTED}: the export policy's name
 * @param statement for {@link Kind#POLICY_REJECTED}: the 1-based statement, 0 for the default
 * @param best the Loc-RIB's best path, or null
 * @param sent for {@link Kind#ADVERTISED}: the attributes sent
 */
public record ExportVerdict(Kind kind, String policy, int statement, Path best, Attrs sent) {

  /** The outcomes, first rule first. */
  public enum Kind {
    ADVERTISED,
    NO_ROUTE,
    FROM_THIS_PEER,
    FAMILY_NOT_NEGOTIATED,
    AS_PATH_LOOP,
    NO_ADVERTISE,
    IBGP_SPLIT_HORIZON,
    NO_NEXT_HOP,
    POLICY_REJECTED
  }

  static ExportVerdict of(RibShard shard, Prefix p, RibPeer peer) {
    Destination d = shard.table.get(p);
    Path best = d == null ? null : d.best();
    if (best == null) {
      return new ExportVerdict(Kind.NO_ROUTE, null, 0, null, null);
    }
    AdjRibIn st = shard.adjRibsIn.get(peer);
    PeerPolicy policy = st == null ? PeerPolicy.NONE : st.policy;
    Export.Refusal r = Export.refusal(p, best, peer, policy.advertisePeerAs());
    if (r != null) {
      return new ExportVerdict(Kind.valueOf(r.name()), null, 0, best, null);
    }
    Attrs rules = Export.toPeer(p, best, peer, shard.localAs, policy.advertisePeerAs());
    if (rules == null) {
      return new ExportVerdict(Kind.NO_NEXT_HOP, null, 0, best, null);
    }
    Policy ep = policy.exportPolicy();
    Statement s = ep.decide(p.family(), p.high(), p.low(), p.length(), rules.attributes());
    if (!s.accept()) {
      int index = 0;
      for (int i = 0; i < ep.statements().size(); i++) {
        if (ep.statements().get(i) == s) {
          index = i + 1;
          break;
        }
      }
      return new ExportVerdict(Kind.POLICY_REJECTED, ep.name(), index, best, null);
    }
    return new ExportVerdict(Kind.ADVERTISED, null, 0, best, shard.exportTo(p, best, peer));
  }
}
