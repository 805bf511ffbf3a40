package dev.sart.bgp.policy;

import java.util.Objects;

/**
 * What a neighbour's routes go through: the import policy on receipt (before the decision process),
 * the export policy towards it (after the RFC 4271 export rules), the prefix limit, and whether the
 * routes are also kept as received (RFC 4271 §3.2 Adj-RIB-In, pre-policy) so that a changed import
 * policy applies without asking the neighbour to send them again, and whether an external neighbour
 * is sent routes that already carry its AS.
 *
 * @param importPolicy applied to every route received from the neighbour
 * @param exportPolicy applied to every route sent to it
 * @param maxPrefix the limit, or null for none
 * @param softReconfigurationInbound keep the routes as received
 * @param advertisePeerAs send an external neighbour routes whose AS_PATH holds its AS. Off by
 *     default, as in Junos and GoBGP: the neighbour would drop them as loops (RFC 4271 §9.1.2), so
 *     sending them only costs both sides. On for a neighbour that accepts its own AS ({@code
 *     allowas-in}), e.g. sites of one AS joined through this speaker.
 */
public record PeerPolicy(
    Policy importPolicy,
    Policy exportPolicy,
    MaxPrefix maxPrefix,
    boolean softReconfigurationInbound,
    boolean advertisePeerAs) {

  /** No policy, no limit. */
  public static final PeerPolicy NONE =
      new PeerPolicy(Policy.ACCEPT_ALL, Policy.ACCEPT_ALL, null, false, false);

  public PeerPolicy {
    Objects.requireNonNull(importPolicy, "importPolicy (Policy.ACCEPT_ALL for none)");
    Objects.requireNonNull(exportPolicy, "exportPolicy (Policy.ACCEPT_ALL for none)");
  }

  public PeerPolicy(
      Policy importPolicy,
      Policy exportPolicy,
      MaxPrefix maxPrefix,
      boolean softReconfigurationInbound) {
    this(importPolicy, exportPolicy, maxPrefix, softReconfigurationInbound, false);
  }

  public PeerPolicy withImport(Policy p) {
    return new PeerPolicy(p, exportPolicy, maxPrefix, softReconfigurationInbound, advertisePeerAs);
  }

  public PeerPolicy withExport(Policy p) {
    return new PeerPolicy(importPolicy, p, maxPrefix, softReconfigurationInbound, advertisePeerAs);
  }

  public PeerPolicy withMaxPrefix(MaxPrefix m) {
    return new PeerPolicy(
        importPolicy, exportPolicy, m, softReconfigurationInbound, advertisePeerAs);
  }

  public PeerPolicy withSoftReconfigurationInbound(boolean s) {
    return new PeerPolicy(importPolicy, exportPolicy, maxPrefix, s, advertisePeerAs);
  }

  public PeerPolicy withAdvertisePeerAs(boolean a) {
    return new PeerPolicy(importPolicy, exportPolicy, maxPrefix, softReconfigurationInbound, a);
  }
}
