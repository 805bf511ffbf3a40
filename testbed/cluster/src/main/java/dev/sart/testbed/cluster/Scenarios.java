package dev.sart.testbed.cluster;

import static org.awaitility.Awaitility.await;

import dev.sart.crds.BGPPeer;
import dev.sart.crds.BGPPeerCondition;
import dev.sart.testbed.Frr;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What the scenarios and the demo apply and check on a {@link Cluster}, as a user would: manifests,
 * then the API's objects, the ToRs' tables and traffic.
 */
public final class Scenarios {
  private Scenarios() {}

  /** A peer template per ToR and a ClusterBGP over the nodes labelled {@code bgp=a}. */
  public static final String CLUSTER_BGP =
      """
      apiVersion: sart.terassyi.net/v1alpha2
      kind: BGPPeerTemplate
      metadata:
        name: tor1
      spec:
        asn: 65100
        addr: 192.0.2.1
        holdTime: 9
        keepaliveTime: 3
      ---
      apiVersion: sart.terassyi.net/v1alpha2
      kind: BGPPeerTemplate
      metadata:
        name: tor2
      spec:
        asn: 65200
        addr: 192.0.2.65
        holdTime: 9
        keepaliveTime: 3
      ---
      apiVersion: sart.terassyi.net/v1alpha2
      kind: ClusterBGP
      metadata:
        name: clusterbgp-a
      spec:
        nodeSelector:
          bgp: a
        asnSelector:
          from: label
        routerIdSelector:
          from: internalAddress
        speaker:
          path: 127.0.0.1:5000
          multipath: true
        peers:
          - peerTemplateRef: tor1
          - peerTemplateRef: tor2
      """;

  public static final String LB_POOL =
      """
      apiVersion: sart.terassyi.net/v1alpha2
      kind: AddressPool
      metadata:
        name: default-lb-pool
      spec:
        cidr: 198.51.100.0/24
        type: service
        allocType: bit
        autoAssign: true
      """;

  public static final String POD_POOL =
      """
      apiVersion: sart.terassyi.net/v1alpha2
      kind: AddressPool
      metadata:
        name: default-pod-pool
      spec:
        cidr: 203.0.113.128/25
        type: pod
        allocType: bit
        blockSize: 28
        autoAssign: true
      """;

  public static boolean established(BGPPeer p) {
    var s = p.getStatus();
    if (s == null || s.conditions() == null || s.conditions().isEmpty()) {
      return false;
    }
    return s.conditions().getLast().status() == BGPPeerCondition.Status.Established;
  }

  /** Every node has a BGPPeer to each ToR and all of them are Established. */
  public static void awaitPeersEstablished(Cluster cluster) {
    KubernetesClient client = cluster.client();
    await("a BGPPeer per node and ToR, all Established")
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              List<BGPPeer> peers = client.resources(BGPPeer.class).list().getItems();
              return peers.size() == 2 * cluster.nodes().size()
                  && peers.stream().allMatch(Scenarios::established);
            });
  }

  static boolean ready(Pod p) {
    return p.getMetadata().getDeletionTimestamp() == null
        && p.getStatus() != null
        && p.getStatus().getConditions() != null
        && p.getStatus().getConditions().stream()
            .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"));
  }

  /** Exactly {@code count} pods with these labels are Ready (and not terminating). */
  public static List<Pod> awaitPodsReady(
      Cluster cluster, String ns, Map<String, String> labels, int count) {
    return await("%d pods %s Ready".formatted(count, labels))
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(300))
        .until(
            () ->
                cluster
                    .client()
                    .pods()
                    .inNamespace(ns)
                    .withLabels(labels)
                    .list()
                    .getItems()
                    .stream()
                    .filter(Scenarios::ready)
                    .toList(),
            l -> l.size() == count);
  }

  /** The Service's first LoadBalancer address, once it has one. */
  public static String awaitAddress(Cluster cluster, String ns, String service) {
    return await(service + " has an address")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              Service s = cluster.client().services().inNamespace(ns).withName(service).get();
              if (s == null
                  || s.getStatus() == null
                  || s.getStatus().getLoadBalancer() == null
                  || s.getStatus().getLoadBalancer().getIngress() == null
                  || s.getStatus().getLoadBalancer().getIngress().isEmpty()) {
                return null;
              }
              return s.getStatus().getLoadBalancer().getIngress().getFirst().getIp();
            },
            ip -> ip != null);
  }

  /** Both ToRs' kernels route {@code prefix} over exactly these nodes (none: no route). */
  public static void awaitNextHops(Cluster cluster, String prefix, List<ClusterNode> nodes) {
    Set<String> a = nodes.stream().map(ClusterNode::internalIp).collect(Collectors.toSet());
    Set<String> b = nodes.stream().map(ClusterNode::addressB).collect(Collectors.toSet());
    List<Frr> tors = cluster.tors();
    await("ToRs route %s over %s".formatted(prefix, nodes))
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(300))
        .until(
            () ->
                Cluster.fibNextHops(tors.get(0), prefix).equals(a)
                    && Cluster.fibNextHops(tors.get(1), prefix).equals(b));
  }

  /**
   * {@code n} GETs from the client to {@code address}:80, one after the other, each a new
   * connection; the pods that answered and how often. A request that gets no answer is retried (up
   * to 20 s) and counted once.
   */
  public static Map<String, Integer> requests(Cluster cluster, String address, int port, int n) {
    Map<String, Integer> answers = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      Optional<String> body =
          await("an answer from " + address)
              .atMost(Duration.ofSeconds(20))
              .pollInterval(Duration.ofMillis(200))
              .until(
                  () -> Http.get(cluster.clientNode(), address, port, Duration.ofSeconds(2)),
                  Optional::isPresent);
      answers.merge(body.orElseThrow(), 1, Integer::sum);
    }
    return answers;
  }
}
