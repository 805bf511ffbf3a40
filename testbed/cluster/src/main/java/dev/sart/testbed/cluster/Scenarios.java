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
import java.util.TreeSet;
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

  /**
   * The IPv6 sessions: a peer template per ToR's IPv6 address and a ClusterBGP naming them for the
   * same nodes (every node then has an IPv4 and an IPv6 session with each ToR).
   */
  public static final String CLUSTER_BGP_V6 =
      """
      apiVersion: sart.terassyi.net/v1alpha2
      kind: BGPPeerTemplate
      metadata:
        name: tor1-v6
      spec:
        asn: 65100
        addr: 2001:db8:a::1
        holdTime: 9
        keepaliveTime: 3
      ---
      apiVersion: sart.terassyi.net/v1alpha2
      kind: BGPPeerTemplate
      metadata:
        name: tor2-v6
      spec:
        asn: 65200
        addr: 2001:db8:b::1
        holdTime: 9
        keepaliveTime: 3
      ---
      apiVersion: sart.terassyi.net/v1alpha2
      kind: ClusterBGP
      metadata:
        name: clusterbgp-v6
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
          - peerTemplateRef: tor1-v6
          - peerTemplateRef: tor2-v6
      """;

  /** An IPv6 pod pool (blocks of 16) and an IPv6 service pool, both chosen by annotation. */
  public static final String V6_POOLS =
      """
      apiVersion: sart.terassyi.net/v1alpha2
      kind: AddressPool
      metadata:
        name: v6-pod-pool
      spec:
        cidr: 2001:db8:9d::/112
        type: pod
        allocType: bit
        blockSize: 124
        autoAssign: false
      ---
      apiVersion: sart.terassyi.net/v1alpha2
      kind: AddressPool
      metadata:
        name: v6-lb-pool
      spec:
        cidr: 2001:db8:1b::/112
        type: service
        allocType: bit
        autoAssign: false
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
    awaitPeersEstablished(cluster, 2);
  }

  /** Every node has {@code perNode} BGPPeers and all of them are Established. */
  public static void awaitPeersEstablished(Cluster cluster, int perNode) {
    KubernetesClient client = cluster.client();
    await(perNode + " BGPPeers per node, all Established")
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              List<BGPPeer> peers = client.resources(BGPPeer.class).list().getItems();
              return peers.size() == perNode * cluster.nodes().size()
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

  /** The peer templates' {@code spec.bfd}: 300 ms × 3, as the ToRs' bfdd. */
  public static final String BFD = "  bfd:\n    minTx: 300\n    minRx: 300\n    multiplier: 3\n";

  /**
   * The two peer templates of {@link #CLUSTER_BGP} applied again with {@code spec} added to their
   * spec: the controller replaces every node's BGPPeers from them.
   */
  public static void applyTemplates(KubernetesClient client, String spec) {
    String[] docs = CLUSTER_BGP.split("(?m)^---\\s*$");
    Manifests.apply(
        client,
        (docs[0] + "---\n" + docs[1])
            .replace("  keepaliveTime: 3\n", "  keepaliveTime: 3\n" + spec));
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

  /**
   * Both ToRs' kernels route {@code prefix} over exactly these nodes (none: no route). An IPv6 next
   * hop counts for a node by its global address on the ToR's LAN or by the link-local address of
   * its interface there (FRR installs the link-local one when the UPDATE carries both).
   */
  public static void awaitNextHops(Cluster cluster, String prefix, List<ClusterNode> nodes) {
    List<Frr> tors = cluster.tors();
    if (prefix.contains(":")) {
      Set<String> names = nodes.stream().map(ClusterNode::name).collect(Collectors.toSet());
      await("ToRs route %s over %s".formatted(prefix, nodes))
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(300))
          .until(
              () ->
                  nodesBehind(cluster, Cluster.fibNextHops(tors.get(0), prefix), 0).equals(names)
                      && nodesBehind(cluster, Cluster.fibNextHops(tors.get(1), prefix), 1)
                          .equals(names));
      return;
    }
    Set<String> a = nodes.stream().map(ClusterNode::internalIp).collect(Collectors.toSet());
    Set<String> b = nodes.stream().map(ClusterNode::addressB).collect(Collectors.toSet());
    await("ToRs route %s over %s".formatted(prefix, nodes))
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(300))
        .until(
            () ->
                Cluster.fibNextHops(tors.get(0), prefix).equals(a)
                    && Cluster.fibNextHops(tors.get(1), prefix).equals(b));
  }

  /** The nodes behind IPv6 next hops on LAN {@code lan} (0: A, 1: B); "?addr" for strangers. */
  static Set<String> nodesBehind(Cluster cluster, Set<String> hops, int lan) {
    Set<String> out = new TreeSet<>();
    for (String hop : hops) {
      String who = "?" + hop;
      for (ClusterNode n : cluster.nodes()) {
        String global = lan == 0 ? n.address6() : n.address6B();
        if (hop.equals(global) || hop.equals(n.linkLocal(n.uplinks().get(lan)))) {
          who = n.name();
        }
      }
      out.add(who);
    }
    return out;
  }

  /**
   * {@code n} GETs from the client to {@code address}:80, one after the other, each a new
   * connection; the pods that answered and how often. A request that gets no answer is retried (up
   * to 20 s) and counted once.
   */
  public static Map<String, Integer> requests(Cluster cluster, String address, int port, int n) {
    return requests(cluster.clientNode(), address, port, n);
  }

  /** The same from another namespace (a node, a pod). */
  public static Map<String, Integer> requests(
      dev.sart.testbed.Node from, String address, int port, int n) {
    Map<String, Integer> answers = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      Optional<String> body =
          await("an answer from " + address)
              .atMost(Duration.ofSeconds(20))
              .pollInterval(Duration.ofMillis(200))
              .until(
                  () -> Http.get(from, address, port, Duration.ofSeconds(2)), Optional::isPresent);
      answers.merge(body.orElseThrow(), 1, Integer::sum);
    }
    return answers;
  }
}
