package dev.sart.bgp.rib;

import dev.sart.bgp.wire.ClusterList;

/**
 * Route reflection (RFC 4456) as it concerns one session: whether the peer is a client of ours,
 * whether it gets our address as next hop, and the values of the loop checks of §8.
 *
 * @param client the peer is a route reflector client (§6): what it sends is reflected to every
 *     internal peer, and it gets what the non-clients send
 * @param nextHopSelf every route sent to this internal peer carries our address as next hop, the
 *     reflected ones included (§10 says a reflector SHOULD NOT change it; this is the exception an
 *     operator asks for)
 * @param clusterId our CLUSTER_ID (§7; our BGP Identifier unless configured); 0: none known
 * @param routerId our BGP Identifier; 0: none known
 */
public record Reflection(boolean client, boolean nextHopSelf, int clusterId, int routerId) {
  /** No reflection and no loop checks (a peer of the tests, the local pseudo-peer). */
  public static final Reflection NONE = new Reflection(false, false, 0, 0);

  /**
   * RFC 4456 §8: a route whose ORIGINATOR_ID is our BGP Identifier, or whose CLUSTER_LIST holds our
   * CLUSTER_ID, has looped and is ignored.
   */
  boolean loops(Attrs a) {
    if (routerId != 0 && a.originatorId == routerId) {
      return true;
    }
    if (clusterId == 0 || a.clusterListLength == 0) {
      return false;
    }
    ClusterList list = a.attributes().orNull(ClusterList.class);
    return list != null && list.contains(clusterId);
  }
}
