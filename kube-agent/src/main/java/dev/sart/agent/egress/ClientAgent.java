package dev.sart.agent.egress;

import dev.sart.crds.Egress;
import dev.sart.crds.Sart;
import dev.sart.crds.TunnelMode;
import dev.sart.fib.netlink.GenericNetlink;
import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.Netns;
import dev.sart.fib.netlink.NextHop;
import dev.sart.fib.netlink.Route;
import dev.sart.fib.netlink.RouteFilter;
import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * The node agent's egress side, for the pods of its node:
 *
 * <ul>
 *   <li>a pod annotated {@code egress.sart.terassyi.net/<namespace>: <name>} (or coil's key) gets,
 *       inside its network namespace, a tunnel per Egress named (that exists and whose Service has
 *       a ClusterIP) and the policy routing of its destinations ({@link ClientTunnels}); when the
 *       annotation, the Egress or its Service goes, what was made goes too;
 *   <li>when an Egress's gateway pod ({@code status.gateway}) runs on this node, the node routes
 *       the Egress's static address to it ({@code <address>/32 via <pod> table T proto 51}), so
 *       what the ToRs send to the address this node announces reaches the gateway.
 * </ul>
 *
 * Level-triggered on one thread ({@link Passes}): informer events request a pass; a pass every 30
 * s.
 */
public final class ClientAgent implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(ClientAgent.class.getName());

  private final String node;
  private final PodNetns netns;
  private final Netlink host;
  private final int table;
  private final String uplink;
  private final SharedIndexInformer<Pod> pods;
  private final SharedIndexInformer<Egress> egresses;
  private final SharedIndexInformer<Service> services;
  private final Passes passes;

  /** Pods given tunnels (uid → netns), so that a pod whose annotation went is cleaned once. */
  private final Map<String, Path> configured = new HashMap<>();

  /**
   * @param node this node's name
   * @param netns finds a pod's network namespace
   * @param host netlink of the node's namespace (the static addresses' routes)
   * @param table the node's pod table (the agent's {@code routeTable}, 120)
   * @param uplink the pods' interface ({@code eth0})
   */
  public ClientAgent(
      KubernetesClient client,
      String node,
      PodNetns netns,
      Netlink host,
      int table,
      String uplink) {
    this.node = node;
    this.netns = netns;
    this.host = host;
    this.table = table;
    this.uplink = uplink;
    this.pods = client.pods().inAnyNamespace().runnableInformer(0);
    this.egresses = client.resources(Egress.class).inAnyNamespace().runnableInformer(0);
    this.services =
        client.services().inAnyNamespace().withLabel(Sart.EGRESS_NAME_LABEL).runnableInformer(0);
    this.passes = new Passes("egress-agent-" + node, this::pass, 30);
    for (var informer : List.of(pods, egresses, services)) {
      informer.addEventHandler(new GatewayAgent.Wake<>(passes));
    }
  }

  public void start() throws Exception {
    for (var informer : List.of(pods, egresses, services)) {
      informer.start().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
    passes.request();
  }

  /** Whether every informer has its watch open (for tests). */
  public boolean watching() {
    return pods.isWatching() && egresses.isWatching() && services.isWatching();
  }

  private void pass() {
    reported = reported(pods.getStore().list());
    var local =
        pods.getStore().list().stream()
            .filter(p -> p.getSpec() != null && node.equals(p.getSpec().getNodeName()))
            .toList();
    var seen = new HashSet<String>();
    var failed = new ArrayList<String>();
    for (var pod : local) {
      var ip = GatewayAgent.address(pod);
      if (ip == null || pod.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      String uid = pod.getMetadata().getUid();
      seen.add(uid);
      var wanted = wanted(pod);
      if (wanted.isEmpty() && !configured.containsKey(uid)) {
        continue;
      }
      var path = configured.get(uid);
      if (path != null && !Files.exists(path)) {
        // the pod's sandbox went (its devices and rules with it) or was made again: look again
        configured.remove(uid);
        path = null;
      }
      if (path == null) {
        path = netns.find(ip).orElse(null);
      }
      if (path == null) {
        LOG.fine("egress pod skipped pod=" + key(pod) + " reason=netns-not-found");
        continue;
      }
      var genl = new GenericNetlink[1]; // opened only for FoU
      try (var ns = Netns.open(path);
          var nl = Netlink.open(ns)) {
        ClientTunnels.apply(
            nl,
            () -> genl[0] != null ? genl[0] : (genl[0] = GenericNetlink.open(ns)),
            ip,
            uplink,
            wanted);
      } catch (RuntimeException e) {
        // one pod's failure holds back no other pod; the pass is run again
        failed.add(key(pod) + ": " + e.getMessage());
        continue;
      } finally {
        if (genl[0] != null) {
          genl[0].close();
        }
      }
      if (wanted.isEmpty()) {
        configured.remove(uid);
        LOG.info("egress client cleared pod=" + key(pod));
      } else if (configured.put(uid, path) == null) {
        LOG.info("egress client set up pod=" + key(pod) + " egresses=" + wanted.size());
      }
    }
    configured.keySet().retainAll(seen); // a deleted pod's namespace went with it
    routes(local);
    if (!failed.isEmpty()) {
      throw new IllegalStateException("egress clients not set up: " + String.join("; ", failed));
    }
  }

  /** The Egresses' modes their pods report (the {@link Sart#EGRESS_TUNNEL_LABEL} label). */
  private Map<String, TunnelMode> reported = Map.of();

  /**
   * Per Egress ({@code namespace/name}), the mode its pods run: FoU when any of them labels itself
   * so, VXLAN when they say vxlan (from {@code sartd egress --tunnel auto}).
   */
  static Map<String, TunnelMode> reported(List<Pod> pods) {
    var out = new HashMap<String, TunnelMode>();
    for (var p : pods) {
      var labels = p.getMetadata().getLabels();
      if (labels == null
          || !labels.containsKey(Sart.EGRESS_NAME_LABEL)
          || !labels.containsKey(Sart.EGRESS_TUNNEL_LABEL)) {
        continue;
      }
      var key = p.getMetadata().getNamespace() + "/" + labels.get(Sart.EGRESS_NAME_LABEL);
      var mode =
          "fou".equals(labels.get(Sart.EGRESS_TUNNEL_LABEL)) ? TunnelMode.FOU : TunnelMode.VXLAN;
      out.merge(key, mode, (a, b) -> a == TunnelMode.FOU ? a : b);
    }
    return out;
  }

  /**
   * The mode the client end of {@code egress} uses: its {@code spec.tunnel}, else what its pods
   * chose ({@link #reported}), else VXLAN (pods that could not label themselves).
   */
  static TunnelMode mode(Egress egress, Map<String, TunnelMode> reported) {
    if (egress.getSpec().tunnel() != null) {
      return egress.getSpec().tunnel();
    }
    var key = egress.getMetadata().getNamespace() + "/" + egress.getMetadata().getName();
    return reported.getOrDefault(key, TunnelMode.VXLAN);
  }

  private List<ClientEgress> wanted(Pod pod) {
    var out = new ArrayList<ClientEgress>();
    for (var ref : EgressRef.of(pod)) {
      var egress = egresses.getStore().getByKey(ref.toString());
      var service = services.getStore().getByKey(ref.toString());
      if (egress == null
          || egress.getSpec() == null
          || egress.getMetadata().getDeletionTimestamp() != null
          || service == null
          || service.getSpec().getClusterIP() == null
          || "None".equals(service.getSpec().getClusterIP())) {
        continue;
      }
      var destinations = new ArrayList<IpPrefix>();
      for (var d : egress.getSpec().destinations()) {
        destinations.add(IpPrefix.parse(d));
      }
      out.add(
          new ClientEgress(
              ref.namespace(),
              ref.name(),
              Ip.parse(service.getSpec().getClusterIP()),
              service.getSpec().getPorts().getFirst().getPort(),
              destinations,
              mode(egress, reported),
              Boolean.TRUE.equals(egress.getSpec().fouSourcePortAuto())));
    }
    return out;
  }

  /** The static addresses of the Egresses whose gateway runs here, routed to their gateway pod. */
  private void routes(List<Pod> local) {
    var wanted = new HashMap<IpPrefix, InetAddress>();
    for (var egress : egresses.getStore().list()) {
      var status = egress.getStatus();
      if (status == null
          || status.sourceAddress() == null
          || status.gateway() == null
          || !node.equals(status.gatewayNode())) {
        continue;
      }
      var gateway =
          local.stream()
              .filter(
                  p -> egress.getMetadata().getNamespace().equals(p.getMetadata().getNamespace()))
              .filter(p -> status.gateway().equals(p.getMetadata().getName()))
              .findFirst();
      var address = Ip.parse(status.sourceAddress());
      var podIp =
          address instanceof Inet4Address
              ? gateway.map(GatewayAgent::address).orElse(null)
              : gateway.flatMap(p -> GatewayAgent.ipv6(p).stream().findFirst()).orElse(null);
      if (podIp == null) {
        continue;
      }
      wanted.put(new IpPrefix(address, address instanceof Inet4Address ? 32 : 128), podIp);
    }
    var have = new HashSet<IpPrefix>();
    for (var r : host.routes().list(RouteFilter.ALL.table(table).protocol(EgressIds.PROTOCOL))) {
      var via = r.nextHops().isEmpty() ? null : r.nextHops().getFirst().gateway();
      if (!wanted.containsKey(r.destination()) || !wanted.get(r.destination()).equals(via)) {
        ClientTunnels.deleteQuietly(() -> host.routes().delete(r));
        LOG.info("egress address route removed address=" + r.destination());
      } else {
        have.add(r.destination());
      }
    }
    for (var e : wanted.entrySet()) {
      if (have.contains(e.getKey())) {
        continue;
      }
      host.routes()
          .replace(
              Route.of(e.getKey())
                  .table(table)
                  .protocol(EgressIds.PROTOCOL)
                  .nextHop(new NextHop(e.getValue(), 0, 1, Set.of()))
                  .build());
      LOG.info(
          "egress address route added address="
              + e.getKey()
              + " via="
              + e.getValue().getHostAddress());
    }
  }

  private static String key(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }

  @Override
  public void close() {
    passes.close();
    pods.close();
    egresses.close();
    services.close();
  }
}
