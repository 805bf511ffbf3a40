package dev.sart.controller.advert;

import dev.sart.crds.BGPPeer;
import dev.sart.crds.Protocol;
import dev.sart.crds.Sart;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which BGPPeers announce a Service's addresses, by {@code externalTrafficPolicy}:
 *
 * <ul>
 *   <li>{@code Cluster}: the peers of every node, while the Service has at least one ready
 *       endpoint;
 *   <li>{@code Local}: the peers of the nodes that host a ready endpoint.
 * </ul>
 *
 * An endpoint counts only while its EndpointSlice says it is ready and not terminating: a
 * terminating pod is withdrawn before it is gone. The peers of a node labelled {@code
 * node.kubernetes.io/exclude-from-external-load-balancers} are never targets (a node being drained,
 * or kept out of external traffic): under {@code Cluster} its endpoints still count, as the other
 * nodes forward to them; under {@code Local} its endpoints have no announcement. Peers are filtered
 * by the Service's {@code bgppeer.sart.terassyi.net/group} list (a peer without groups always
 * matches, as in sart), and by address family: a peer carries the family of its own address (the
 * agent opens an IPv4 session with IPv4 unicast only and an IPv6 session with IPv6 unicast only,
 * RFC 4760 §8), so an IPv6 address is announced only to IPv6 peers; listing an IPv4 peer would have
 * its agent report Advertised for a prefix the session cannot carry. An unnumbered peer ({@code
 * interface}) carries both: its agent opens the link-local IPv6 session with IPv4 unicast (RFC 8950
 * next hops) and IPv6 unicast.
 */
public final class Targets {
  private Targets() {}

  /**
   * The peers that announce an address of {@code family}; {@code excludedNodes}: the nodes labelled
   * {@link Sart#EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS_LABEL}.
   */
  public static Set<String> of(
      Service service,
      Collection<EndpointSlice> slices,
      Collection<BGPPeer> peers,
      Protocol family,
      Set<String> excludedNodes) {
    var groups = groups(service);
    boolean local = "Local".equals(service.getSpec().getExternalTrafficPolicy());
    var readyNodes = new HashSet<String>();
    boolean anyReady = false;
    for (var slice : slices) {
      if (slice.getEndpoints() == null) {
        continue;
      }
      for (var endpoint : slice.getEndpoints()) {
        if (ready(endpoint)) {
          anyReady = true;
          if (endpoint.getNodeName() != null) {
            readyNodes.add(endpoint.getNodeName());
          }
        }
      }
    }
    var targets = new TreeSet<String>();
    if (!anyReady) {
      return targets;
    }
    for (var peer : peers) {
      if (!candidate(groups, peer, family) || excludedNodes.contains(peer.getSpec().nodeBGPRef())) {
        continue;
      }
      if (!local || readyNodes.contains(peer.getSpec().nodeBGPRef())) {
        targets.add(peer.getMetadata().getName());
      }
    }
    return targets;
  }

  /**
   * Whether some BGPPeer could announce an address of {@code family} for {@code service} (its
   * groups and family match), endpoints aside.
   */
  public static boolean carried(Service service, Collection<BGPPeer> peers, Protocol family) {
    var groups = groups(service);
    return peers.stream().anyMatch(p -> candidate(groups, p, family));
  }

  private static boolean candidate(Set<String> groups, BGPPeer peer, Protocol family) {
    return peer.getSpec() != null
        && peer.getMetadata().getDeletionTimestamp() == null
        && carries(peer, family)
        && matches(groups, peer);
  }

  /** Whether a peer's session carries {@code family}: unnumbered ones both, others their own. */
  static boolean carries(BGPPeer peer, Protocol family) {
    return peer.getSpec().addr() == null && peer.getSpec().interfaceName() != null
        || family(peer) == family;
  }

  /** The family of a peer's address (IPv4 for an unnumbered peer, which carries both). */
  static Protocol family(BGPPeer peer) {
    var addr = peer.getSpec().addr();
    return addr != null && addr.contains(":") ? Protocol.IPV6 : Protocol.IPV4;
  }

  /** Ready (nil means ready, per the EndpointSlice API) and not terminating. */
  static boolean ready(Endpoint endpoint) {
    var conditions = endpoint.getConditions();
    if (conditions == null) {
      return true;
    }
    return !Boolean.FALSE.equals(conditions.getReady())
        && !Boolean.TRUE.equals(conditions.getTerminating());
  }

  private static Set<String> groups(Service service) {
    var annotations = service.getMetadata().getAnnotations();
    var text = annotations == null ? null : annotations.get(Sart.PEER_GROUP_ANNOTATION);
    var result = new HashSet<String>();
    if (text != null) {
      Arrays.stream(text.split(","))
          .map(String::trim)
          .filter(s -> !s.isEmpty())
          .forEach(result::add);
    }
    return result;
  }

  private static boolean matches(Set<String> groups, BGPPeer peer) {
    var peerGroups = peer.getSpec().groups();
    if (groups.isEmpty() || peerGroups == null || peerGroups.isEmpty()) {
      return true;
    }
    return peerGroups.stream().anyMatch(groups::contains);
  }
}
