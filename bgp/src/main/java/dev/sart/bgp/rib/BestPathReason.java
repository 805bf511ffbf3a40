package dev.sart.bgp.rib;

/**
 * Why the best path won: the step of the decision process that set it apart (RFC 4271 §9.1.2.2).
 */
public enum BestPathReason {
  ONLY_PATH,
  LOCAL_PREF,
  LOCALLY_ORIGINATED,
  AS_PATH_LENGTH,
  ORIGIN,
  MED,
  EBGP_OVER_IBGP,
  ROUTER_ID,
  CLUSTER_LIST_LENGTH,
  NEIGHBOR_ADDRESS,
  /** Several paths are equally good and multipath is on. */
  MULTIPATH
}
