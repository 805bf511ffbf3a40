package dev.sart.bgp.policy;

import java.util.Objects;

/**
 * What a neighbour's routes go through: the import policy on receipt (before the decision
 * process), the export policy towards it (after the RFC 4271 export rules), the prefix limit, and
 * whether the routes are also kept as received (RFC 4271 §3.2 Adj-RIB-In, pre-policy) so that a
 * changed import policy applies without asking the neighbour to send them again.
 *
 * @param importPolicy applied to every route received from the neighbour
 * @param exportPolicy applied to every route sent to it
 * @param maxPrefix the limit, or null for none
 * @param softReconfigurationInbound keep the routes as received
 */
public record PeerPolicy(Policy importPolicy, Policy exportPolicy, MaxPrefix maxPrefix,
    boolean softReconfigurationInbound) {

  /** No policy, no limit. */
  public static final PeerPolicy NONE = new PeerPolicy(Policy.ACCEPT_ALL, Policy.ACCEPT_ALL, null, false);

  public PeerPolicy {
    Objects.requireNonNull(importPolicy, "importPolicy (Policy.ACCEPT_ALL for none)");
    Objects.requireNonNull(exportPolicy, "exportPolicy (Policy.ACCEPT_ALL for none)");
  }

  public PeerPolicy withImport(Policy p) {
    return new PeerPolicy(p, exportPolicy, maxPrefix, softReconfigurationInbound);
  }

  public PeerPolicy withExport(Policy p) {
    return new PeerPolicy(importPolicy, p, maxPrefix, softReconfigurationInbound);
  }

  public PeerPolicy withMaxPrefix(MaxPrefix m) {
    return new PeerPolicy(importPolicy, exportPolicy, m, softReconfigurationInbound);
  }

  public PeerPolicy withSoftReconfigurationInbound(boolean s) {
    return new PeerPolicy(importPolicy, exportPolicy, maxPrefix, s);
  }
}
