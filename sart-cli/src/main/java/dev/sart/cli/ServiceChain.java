package dev.sart.cli;

import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressType;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.Sart;
import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.math.BigInteger;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@code sart explain service}: Service type and class → pool → address in status → per address:
 * endpoints under the externalTrafficPolicy, the BGPAdvertisement and its target peers, then per
 * node the NodeBGP, each BGPPeer, the speaker's Adj-RIB-Out and the session. Reads only.
 */
final class ServiceChain {
  private final KubernetesClient client;
  private final Speakers speakers;
  private final String lbClass;

  ServiceChain(KubernetesClient client, Speakers speakers, String lbClass) {
    this.client = client;
    this.speakers = speakers;
    this.lbClass = lbClass;
  }

  Link explain(String namespace, String name, String onlyAddress) {
    Service s = client.services().inNamespace(namespace).withName(name).get();
    Link root = Link.ok("service", namespace + "/" + name, "");
    if (s == null) {
      root.state = Link.State.broken;
      root.summary = "no such Service";
      root.fix = "check the namespace and name: kubectl get services -n " + namespace;
      return root;
    }
    var spec = s.getSpec();
    String cls = spec.getLoadBalancerClass();
    if (!"LoadBalancer".equals(spec.getType())) {
      root.state = Link.State.broken;
      root.summary = "type " + spec.getType() + ": only a LoadBalancer Service gets an address";
      root.fix = "set spec.type: LoadBalancer";
      return root;
    }
    if (cls != null && !cls.equals(lbClass)) {
      root.state = Link.State.broken;
      root.summary = "loadBalancerClass " + cls + " is not ours (" + lbClass + ")";
      root.fix =
          "remove spec.loadBalancerClass (it is immutable: recreate the Service) or run sartd"
              + " controller with --lb-class "
              + cls;
      return root;
    }
    String etp =
        spec.getExternalTrafficPolicy() == null ? "Cluster" : spec.getExternalTrafficPolicy();
    root.summary =
        "LoadBalancer, class "
            + (cls == null ? "unset (ours)" : cls)
            + ", externalTrafficPolicy "
            + etp;

    List<AddressPool> pools = client.resources(AddressPool.class).list().getItems();
    List<Service> services = client.services().inAnyNamespace().list().getItems();
    List<String> ingress = ingress(s);
    root.add(pool(s, pools, services, ingress));
    if (ingress.isEmpty()) {
      return root;
    }
    List<BGPAdvertisement> adverts =
        client
            .resources(BGPAdvertisement.class)
            .inNamespace(namespace)
            .withLabel(Sart.SERVICE_NAME_LABEL, name)
            .list()
            .getItems();
    List<EndpointSlice> slices =
        client
            .discovery()
            .v1()
            .endpointSlices()
            .inNamespace(namespace)
            .withLabel(Sart.SERVICE_NAME_LABEL, name)
            .list()
            .getItems();
    List<BGPPeer> peers = client.resources(BGPPeer.class).list().getItems();
    NodeMarks marks = nodeMarks();
    for (String ip : ingress) {
      if (onlyAddress == null || onlyAddress.equals(ip)) {
        root.add(address(s, ip, adverts, slices, peers, marks));
      }
    }
    return root;
  }

  /**
   * What of the nodes decides whether they announce.
   *
   * @param excluded labelled {@link Sart#EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS_LABEL}
   * @param cordoned {@code spec.unschedulable} ({@code kubectl cordon}, {@code drain}), which the
   *     controller honours only with {@code --withdraw-from-cordoned-nodes}
   */
  private record NodeMarks(Set<String> excluded, Set<String> cordoned) {}

  /** The nodes' marks; none when the user may not list Nodes (the chain then reads without). */
  private NodeMarks nodeMarks() {
    var excluded = new java.util.TreeSet<String>();
    var cordoned = new java.util.TreeSet<String>();
    try {
      for (var n : client.nodes().list().getItems()) {
        var labels = n.getMetadata().getLabels();
        if (labels != null && labels.containsKey(Sart.EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS_LABEL)) {
          excluded.add(n.getMetadata().getName());
        }
        if (n.getSpec() != null && Boolean.TRUE.equals(n.getSpec().getUnschedulable())) {
          cordoned.add(n.getMetadata().getName());
        }
      }
    } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
      if (e.getCode() != 403) {
        throw e;
      }
    }
    return new NodeMarks(excluded, cordoned);
  }

  // --- pool and address

  private Link pool(Service s, List<AddressPool> pools, List<Service> all, List<String> ingress) {
    var ann = annotations(s);
    List<String> named = list(ann.get(Sart.ADDRESS_POOL_ANNOTATION));
    List<String> requested = list(ann.get(Sart.LOAD_BALANCER_IPS_ANNOTATION));
    if (requested.isEmpty()) {
      requested = list(ann.get(Sart.METALLB_LOAD_BALANCER_IPS_ANNOTATION));
    }
    if (requested.isEmpty() && s.getSpec().getLoadBalancerIP() != null) {
      requested = list(s.getSpec().getLoadBalancerIP());
    }
    if (!ingress.isEmpty()) {
      List<String> names = new ArrayList<>();
      for (String ip : ingress) {
        names.add(
            poolOf(pools, ip)
                .map(p -> p.getMetadata().getName() + " (" + p.getSpec().cidr() + ")")
                .orElse("no pool holds " + ip));
      }
      Link l = Link.ok("pool", String.join(", ", names), "addresses " + String.join(", ", ingress));
      if (names.stream().anyMatch(n -> n.startsWith("no pool"))) {
        l.state = Link.State.warning;
      }
      return l;
    }
    String failed = lastAllocationFailure(s);
    String said = failed == null ? "" : " (the controller says: " + failed + ")";
    List<AddressPool> servicePools =
        pools.stream().filter(p -> p.getSpec().type() == AddressType.SERVICE).toList();
    List<AddressPool> chosen = new ArrayList<>();
    if (!named.isEmpty()) {
      for (String n : named) {
        var p = pools.stream().filter(x -> x.getMetadata().getName().equals(n)).findFirst();
        if (p.isEmpty()) {
          return Link.broken(
              "pool",
              n,
              "no AddressPool named " + n + said,
              "create it or fix the annotation " + Sart.ADDRESS_POOL_ANNOTATION);
        }
        if (p.get().getSpec().type() != AddressType.SERVICE) {
          return Link.broken(
              "pool", n, n + " is a pod pool" + said, "name a pool of type: service");
        }
        chosen.add(p.get());
      }
    }
    for (String ip : requested) {
      var candidates = chosen.isEmpty() ? servicePools : chosen;
      var p = candidates.stream().filter(x -> contains(x, ip)).findFirst();
      if (p.isEmpty()) {
        return Link.broken(
            "pool",
            "",
            "requested address "
                + ip
                + " lies in no "
                + (chosen.isEmpty() ? "service pool" : "named pool")
                + said,
            "request an address of a service AddressPool, or create a pool that holds it");
      }
      var holder = holderOf(all, ip, s);
      if (holder.isPresent()) {
        return Link.broken(
            "pool",
            p.get().getMetadata().getName(),
            "requested address " + ip + " is taken by Service " + holder.get() + said,
            "request another address, or let both Services share it: the same "
                + Sart.ALLOW_SHARED_IP_ANNOTATION
                + " key on both, ports that do not clash");
      }
      chosen = List.of(p.get());
    }
    if (chosen.isEmpty()) {
      chosen = servicePools.stream().filter(p -> p.getSpec().autoAssignOrFalse()).toList();
      if (chosen.isEmpty()) {
        return Link.broken(
            "pool",
            "",
            "no auto-assign pool: no AddressPool of type service has autoAssign: true, and the"
                + " Service names none"
                + said,
            "annotate the Service with "
                + Sart.ADDRESS_POOL_ANNOTATION
                + "=<pool> or set autoAssign: true on one service pool");
      }
    }
    for (AddressPool p : chosen) {
      BigInteger total = usable(p);
      long used = inUse(all, p);
      if (BigInteger.valueOf(used).compareTo(total) >= 0) {
        return Link.broken(
            "pool",
            p.getMetadata().getName(),
            "pool exhausted: "
                + used
                + " of "
                + total
                + " addresses of "
                + p.getSpec().cidr()
                + " are held"
                + said,
            "free an address (delete or change a Service of the pool) or add a pool");
      }
    }
    return Link.broken(
        "pool",
        chosen.getFirst().getMetadata().getName(),
        "the pool has room but the Service has no address yet" + said,
        "check that sartd controller runs (mode lb or dual) and holds the leader Lease");
  }

  private String lastAllocationFailure(Service s) {
    try {
      return client
          .v1()
          .events()
          .inNamespace(s.getMetadata().getNamespace())
          .list()
          .getItems()
          .stream()
          .filter(
              e ->
                  e.getInvolvedObject() != null
                      && "Service".equals(e.getInvolvedObject().getKind())
                      && s.getMetadata().getName().equals(e.getInvolvedObject().getName())
                      && "AllocationFailed".equals(e.getReason()))
          .reduce((a, b) -> b)
          .map(e -> e.getMessage())
          .orElse(null);
    } catch (RuntimeException e) {
      return null; // events are a hint only (RBAC may not allow reading them)
    }
  }

  private Link address(
      Service s,
      String ip,
      List<BGPAdvertisement> adverts,
      List<EndpointSlice> slices,
      List<BGPPeer> peers,
      NodeMarks marks) {
    String prefix = ip + (ip.contains(":") ? "/128" : "/32");
    Link l = Link.ok("address", ip, "in status.loadBalancer.ingress");
    boolean local = "Local".equals(s.getSpec().getExternalTrafficPolicy());
    // endpoints
    TreeMap<String, Integer> readyByNode = new TreeMap<>();
    int ready = 0;
    for (EndpointSlice slice : slices) {
      for (Endpoint e : slice.getEndpoints() == null ? List.<Endpoint>of() : slice.getEndpoints()) {
        if (ready(e)) {
          ready++;
          if (e.getNodeName() != null) {
            readyByNode.merge(e.getNodeName(), 1, Integer::sum);
          }
        }
      }
    }
    String where = readyByNode.isEmpty() ? "" : " on " + String.join(", ", readyByNode.keySet());
    if (ready == 0) {
      l.add(
          Link.broken(
              "endpoints",
              "",
              local
                  ? "externalTrafficPolicy Local and no ready endpoint: the address is announced"
                      + " only from nodes that run a ready pod of the Service, and there is none"
                  : "no ready endpoint: the address is not announced until a pod of the Service is"
                      + " ready",
              "check the Service's pods and their readiness: kubectl get endpointslices -n "
                  + s.getMetadata().getNamespace()
                  + " -l "
                  + Sart.SERVICE_NAME_LABEL
                  + "="
                  + s.getMetadata().getName()));
      return l;
    }
    l.add(
        Link.ok(
            "endpoints",
            "",
            ready
                + " ready"
                + where
                + (local
                    ? " (Local: announced from these nodes only)"
                    : " (Cluster: every node announces)")));
    // target peers as the controller computes them
    Set<String> groups = new HashSet<>(list(annotations(s).get(Sart.PEER_GROUP_ANNOTATION)));
    TreeMap<String, List<BGPPeer>> targets = new TreeMap<>();
    var left = new java.util.TreeSet<String>(); // nodes that would announce but are excluded
    for (BGPPeer p : peers) {
      if (p.getSpec() == null || p.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      var pg = p.getSpec().groups();
      boolean matches =
          groups.isEmpty() || pg == null || pg.isEmpty() || pg.stream().anyMatch(groups::contains);
      if (matches && (!local || readyByNode.containsKey(p.getSpec().nodeBGPRef()))) {
        if (marks.excluded().contains(p.getSpec().nodeBGPRef())) {
          left.add(p.getSpec().nodeBGPRef());
        } else {
          targets.computeIfAbsent(p.getSpec().nodeBGPRef(), k -> new ArrayList<>()).add(p);
        }
      }
    }
    String unlabel =
        "kubectl label node "
            + String.join(" ", left)
            + " "
            + Sart.EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS_LABEL
            + "-";
    if (!left.isEmpty() && !targets.isEmpty()) {
      Link skipped =
          new Link(
              "excluded",
              String.join(", ", left),
              Link.State.skipped,
              "labelled "
                  + Sart.EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS_LABEL
                  + ": their peers do not announce the address");
      skipped.fix = "to announce from them again: " + unlabel;
      l.add(skipped);
    }
    Optional<BGPAdvertisement> adv =
        adverts.stream()
            .filter(a -> a.getSpec() != null && prefix.equals(a.getSpec().cidr()))
            .findFirst();
    if (adv.isEmpty()) {
      l.add(
          Link.broken(
              "advertisement",
              "",
              "no BGPAdvertisement for " + prefix,
              "the controller makes one per address: check that sartd controller runs and leads"));
      return l;
    }
    Map<String, AdvertiseStatus> entries =
        adv.get().getStatus() == null || adv.get().getStatus().peers() == null
            ? Map.of()
            : adv.get().getStatus().peers();
    String advName =
        adv.get().getMetadata().getNamespace() + "/" + adv.get().getMetadata().getName();
    if (targets.isEmpty()) {
      l.add(
          Link.broken(
              "advertisement",
              advName,
              peers.isEmpty()
                  ? "no BGPPeer in the cluster: there is no router to announce to"
                  : !left.isEmpty()
                      ? "the nodes that would announce it ("
                          + String.join(", ", left)
                          + ") are labelled "
                          + Sart.EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS_LABEL
                      : local
                          ? "no BGPPeer on the nodes with a ready endpoint ("
                              + String.join(", ", readyByNode.keySet())
                              + ")"
                          : "no BGPPeer in the Service's peer groups " + groups,
              peers.isEmpty()
                  ? "create a ClusterBGP (with peer templates) that selects the nodes"
                  : !left.isEmpty()
                      ? unlabel
                      : "give those nodes peers (ClusterBGP nodeSelector) or change "
                          + Sart.PEER_GROUP_ANNOTATION));
      return l;
    }
    // a cordoned node the controller took its peers from (every entry gone or Withdraw): it runs
    // with --withdraw-from-cordoned-nodes. With no entry at all while other nodes are targets, the
    // controller has not written the advertisement's status yet (a Service a moment old): not that
    boolean written = !entries.isEmpty() || marks.cordoned().containsAll(targets.keySet());
    var cordonedOut = new java.util.TreeSet<String>();
    for (String node : marks.cordoned()) {
      List<BGPPeer> ps = targets.get(node);
      if (written
          && ps != null
          && ps.stream()
              .map(p -> entries.get(p.getMetadata().getName()))
              .allMatch(v -> v == null || v == AdvertiseStatus.Withdraw)) {
        cordonedOut.add(node);
      }
    }
    if (!cordonedOut.isEmpty()) {
      targets.keySet().removeAll(cordonedOut);
      String why =
          "cordoned, and the controller withdraws from cordoned nodes"
              + " (--withdraw-from-cordoned-nodes)";
      String uncordon = "kubectl uncordon " + String.join(" ", cordonedOut);
      if (targets.isEmpty()) {
        l.add(
            Link.broken(
                "advertisement",
                advName,
                "the nodes that would announce it ("
                    + String.join(", ", cordonedOut)
                    + ") are "
                    + why,
                uncordon));
        return l;
      }
      Link skipped =
          new Link(
              "cordoned",
              String.join(", ", cordonedOut),
              Link.State.skipped,
              why + ": their peers do not announce the address");
      skipped.fix = "to announce from them again: " + uncordon;
      l.add(skipped);
    }
    long advertised =
        entries.values().stream().filter(v -> v == AdvertiseStatus.Advertised).count();
    l.add(
        Link.ok(
            "advertisement",
            advName,
            targets.values().stream().mapToInt(List::size).sum()
                + " target peer(s) on "
                + targets.size()
                + " node(s); status: "
                + advertised
                + " Advertised of "
                + entries.size()));
    NodeLinks.Tally tally = new NodeLinks.Tally();
    for (var e : targets.entrySet()) {
      l.add(NodeLinks.node(client, speakers, e.getKey(), e.getValue(), entries, prefix, tally));
    }
    l.summary =
        "in status.loadBalancer.ingress; "
            + tally.announcedOn()
            + " on "
            + tally.nodes.size()
            + " node(s)";
    if (tally.announced == 0 && tally.unasked == tally.peers) {
      l.summary += ": no node's speaker could be asked (below)";
      l.state = Link.State.warning;
    } else if (tally.announced == 0) {
      l.summary += ": no Established peer has it" + tally.unaskedNote();
      l.state = Link.State.warning;
    } else {
      l.summary += tally.unaskedNote();
    }
    return l;
  }

  // --- helpers

  static List<String> ingress(Service s) {
    if (s.getStatus() == null
        || s.getStatus().getLoadBalancer() == null
        || s.getStatus().getLoadBalancer().getIngress() == null) {
      return List.of();
    }
    return s.getStatus().getLoadBalancer().getIngress().stream()
        .map(i -> i.getIp())
        .filter(ip -> ip != null)
        .toList();
  }

  private static Map<String, String> annotations(Service s) {
    var a = s.getMetadata().getAnnotations();
    return a == null ? Map.of() : a;
  }

  static List<String> list(String text) {
    if (text == null) {
      return List.of();
    }
    return Arrays.stream(text.split(",")).map(String::trim).filter(x -> !x.isEmpty()).toList();
  }

  static boolean contains(AddressPool p, String ip) {
    try {
      return IpPrefix.parseCidr(p.getSpec().cidr()).contains(Ip.parse(ip));
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  static Optional<AddressPool> poolOf(List<AddressPool> pools, String ip) {
    return pools.stream().filter(p -> contains(p, ip)).findFirst();
  }

  private static Optional<String> holderOf(List<Service> all, String ip, Service self) {
    return all.stream()
        .filter(x -> !x.getMetadata().getUid().equals(self.getMetadata().getUid()))
        .filter(x -> ingress(x).contains(ip))
        .map(x -> x.getMetadata().getNamespace() + "/" + x.getMetadata().getName())
        .findFirst();
  }

  /** Addresses a pool hands out: the whole range less network/broadcast (IPv4, /30 or wider). */
  static BigInteger usable(AddressPool p) {
    if (p.getStatus() != null && p.getStatus().addressesTotal() != null) {
      return new BigInteger(p.getStatus().addressesTotal());
    }
    IpPrefix c = IpPrefix.parseCidr(p.getSpec().cidr());
    BigInteger size = c.size();
    if (!p.getSpec().allowFirstLastOrFalse()) {
      if (c.isIpv4() && c.length() <= 30) {
        size = size.subtract(BigInteger.TWO);
      } else if (!c.isIpv4() && c.length() < 127) {
        size = size.subtract(BigInteger.ONE);
      }
    }
    return size;
  }

  private static long inUse(List<Service> all, AddressPool p) {
    Set<InetAddress> held = new TreeSet<>((a, b) -> Ip.toNumber(a).compareTo(Ip.toNumber(b)));
    for (Service s : all) {
      for (String ip : ingress(s)) {
        if (contains(p, ip)) {
          held.add(Ip.parse(ip));
        }
      }
    }
    return held.size();
  }

  /** Ready (nil means ready) and not terminating, as the controller counts it. */
  static boolean ready(Endpoint e) {
    var c = e.getConditions();
    return c == null
        || (!Boolean.FALSE.equals(c.getReady()) && !Boolean.TRUE.equals(c.getTerminating()));
  }
}
