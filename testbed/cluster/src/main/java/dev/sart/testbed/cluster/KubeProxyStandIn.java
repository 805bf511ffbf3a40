package dev.sart.testbed.cluster;

import dev.sart.testbed.Shell;
import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Stand-in for kube-proxy in nftables mode (not sart's), one table per node namespace: TCP/UDP to a
 * Service's LoadBalancer addresses ({@code status.loadBalancer.ingress}) and its ClusterIP is
 * DNATed to an endpoint chosen at random among the ready ones of its EndpointSlices (the serving
 * terminating ones when none is ready, as kube-proxy does). For {@code externalTrafficPolicy:
 * Local} a LoadBalancer address goes only to the endpoints on this node (dropped when there is none
 * here), and keeps the client's address; with {@code Cluster} it may go to any node's endpoint and
 * is masqueraded (the reply must come back through this node), as kube-proxy marks external
 * traffic; a pod reaching itself through a Service (hairpin) is masqueraded too. The whole table is
 * replaced in one {@code nft -f} transaction when what it should hold changes. IPv4 and IPv6 each
 * have a table ({@code ip}, {@code ip6}) fed from the EndpointSlices of their address type.
 */
public final class KubeProxyStandIn implements AutoCloseable {
  public static final String TABLE = "sart-kube-proxy-standin";
  private static final Logger LOG = Logger.getLogger(KubeProxyStandIn.class.getName());

  private final List<ClusterNode> nodes;
  private final SharedIndexInformer<Service> services;
  private final SharedIndexInformer<EndpointSlice> slices;
  private final Map<String, String> applied = new HashMap<>();
  private final ExecutorService worker =
      Executors.newSingleThreadExecutor(
          r -> Thread.ofPlatform().daemon().name("kube-proxy-stand-in").unstarted(r));
  private final AtomicBoolean dirty = new AtomicBoolean();

  KubeProxyStandIn(
      List<ClusterNode> nodes,
      SharedIndexInformer<Service> services,
      SharedIndexInformer<EndpointSlice> slices) {
    this.nodes = List.copyOf(nodes);
    this.services = services;
    this.slices = slices;
    changed();
  }

  void changed() {
    if (dirty.compareAndSet(false, true)) {
      worker.execute(
          () -> {
            dirty.set(false);
            for (ClusterNode n : nodes) {
              try {
                String rules = ruleset(n.name(), false) + ruleset(n.name(), true);
                if (!rules.equals(applied.get(n.name()))) {
                  Shell.Result r = Shell.exec(n.netns().inNetns(List.of("nft", "-f", "-")), rules);
                  if (!r.ok()) {
                    throw new IllegalStateException("nft: " + r.stderr() + "\n" + rules);
                  }
                  applied.put(n.name(), rules);
                }
              } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "kube-proxy stand-in on " + n.name() + ": " + e, e);
                retryLater();
              }
            }
          });
    }
  }

  private void retryLater() {
    Thread.ofVirtual()
        .start(
            () -> {
              try {
                Thread.sleep(1_000);
                changed();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
  }

  /** The table of one family ({@code ip} or {@code ip6}) this node should hold now. */
  String ruleset(String node, boolean v6) {
    String table = v6 ? "ip6" : "ip";
    String daddr = v6 ? "    ip6 daddr " : "    ip daddr ";
    StringBuilder services = new StringBuilder();
    StringBuilder chains = new StringBuilder();
    int[] ids = {0, 0};
    List<Service> sorted =
        this.services.getStore().list().stream()
            .sorted(
                Comparator.comparing(
                    (Service s) ->
                        s.getMetadata().getNamespace() + "/" + s.getMetadata().getName()))
            .toList();
    // this family's slices by namespace/service, looked up once per Service
    Map<String, List<EndpointSlice>> byService = new HashMap<>();
    for (EndpointSlice slice : slices.getStore().list()) {
      var labels = slice.getMetadata().getLabels();
      String name = labels == null ? null : labels.get("kubernetes.io/service-name");
      if (name != null && (v6 ? "IPv6" : "IPv4").equals(slice.getAddressType())) {
        byService
            .computeIfAbsent(
                slice.getMetadata().getNamespace() + "/" + name, k -> new ArrayList<>())
            .add(slice);
      }
    }
    for (Service svc : sorted) {
      List<EndpointSlice> mine =
          byService.getOrDefault(
              svc.getMetadata().getNamespace() + "/" + svc.getMetadata().getName(), List.of());
      if (mine.stream().allMatch(x -> x.getEndpoints() == null || x.getEndpoints().isEmpty())) {
        // no endpoint anywhere: nothing to DNAT to (the address leads nowhere either way); a
        // thousand such Services would otherwise make every table a thousand drop chains long
        continue;
      }
      boolean local = "Local".equals(svc.getSpec().getExternalTrafficPolicy());
      List<String> external = new ArrayList<>();
      if (svc.getStatus() != null
          && svc.getStatus().getLoadBalancer() != null
          && svc.getStatus().getLoadBalancer().getIngress() != null) {
        for (LoadBalancerIngress i : svc.getStatus().getLoadBalancer().getIngress()) {
          if (i.getIp() != null && i.getIp().contains(":") == v6) {
            external.add(i.getIp());
          }
        }
      }
      String clusterIp = null;
      List<String> clusterIps =
          svc.getSpec().getClusterIPs() != null && !svc.getSpec().getClusterIPs().isEmpty()
              ? svc.getSpec().getClusterIPs()
              : svc.getSpec().getClusterIP() == null
                  ? List.of()
                  : List.of(svc.getSpec().getClusterIP());
      for (String ip : clusterIps) {
        if (ip != null && !ip.equals("None") && ip.contains(":") == v6) {
          clusterIp = ip;
        }
      }
      for (ServicePort port : svc.getSpec().getPorts()) {
        String proto = port.getProtocol() == null ? "tcp" : port.getProtocol().toLowerCase();
        if (!proto.equals("tcp") && !proto.equals("udp")) {
          continue;
        }
        List<String> all = endpoints(mine, port, null);
        if (clusterIp != null) {
          String chain = "svc" + ids[0]++;
          services
              .append(daddr)
              .append(clusterIp)
              .append(' ')
              .append(proto)
              .append(" dport ")
              .append(port.getPort())
              .append(" goto ")
              .append(chain)
              .append('\n');
          chains.append(serviceChain(chain, proto, all, false, ids, v6));
        }
        if (!external.isEmpty()) {
          String chain = "svc" + ids[0]++;
          for (String ip : external) {
            services
                .append(daddr)
                .append(ip)
                .append(' ')
                .append(proto)
                .append(" dport ")
                .append(port.getPort())
                .append(" goto ")
                .append(chain)
                .append('\n');
          }
          chains.append(
              serviceChain(
                  chain, proto, local ? endpoints(mine, port, node) : all, !local, ids, v6));
        }
      }
    }
    return "table "
        + table
        + " "
        + TABLE
        + "\ndelete table "
        + table
        + " "
        + TABLE
        + "\ntable "
        + table
        + " "
        + TABLE
        + " {\n"
        + "  chain prerouting {\n    type nat hook prerouting priority dstnat; policy accept;\n"
        + "    jump services\n  }\n"
        + "  chain output {\n    type nat hook output priority -100; policy accept;\n"
        + "    jump services\n  }\n"
        + "  chain services {\n"
        + services
        + "  }\n"
        + chains
        + "  chain postrouting {\n    type nat hook postrouting priority srcnat; policy accept;\n"
        + "    meta mark & 0x4000 == 0x4000 masquerade\n  }\n"
        + "}\n";
  }

  private static String serviceChain(
      String chain,
      String proto,
      List<String> endpoints,
      boolean masquerade,
      int[] ids,
      boolean v6) {
    StringBuilder c = new StringBuilder("  chain ").append(chain).append(" {\n");
    if (endpoints.isEmpty()) {
      c.append("    drop\n  }\n");
      return c.toString();
    }
    if (masquerade) {
      c.append("    meta mark set meta mark | 0x4000\n");
    }
    StringBuilder eps = new StringBuilder();
    List<String> map = new ArrayList<>();
    for (int i = 0; i < endpoints.size(); i++) {
      String ep = "ep" + ids[1]++;
      map.add(i + " : goto " + ep);
      String endpoint = endpoints.get(i);
      String address =
          v6
              ? endpoint.substring(1, endpoint.lastIndexOf(']'))
              : endpoint.substring(0, endpoint.lastIndexOf(':'));
      // hairpin: a pod reaching itself through the Service is masqueraded (as kube-proxy does),
      // else its reply would go to itself directly and never be translated back
      eps.append("  chain ")
          .append(ep)
          .append(" {\n    ")
          .append(v6 ? "ip6" : "ip")
          .append(" saddr ")
          .append(address)
          .append(" meta mark set meta mark | 0x4000\n    meta l4proto ")
          .append(proto)
          .append(v6 ? " dnat ip6 to " : " dnat ip to ")
          .append(endpoints.get(i))
          .append("\n  }\n");
    }
    c.append("    numgen random mod ")
        .append(endpoints.size())
        .append(" vmap { ")
        .append(String.join(", ", map))
        .append(" }\n  }\n");
    return c.append(eps).toString();
  }

  /**
   * "address:port" of the endpoints for this Service port: ready ones, else serving terminating
   * ones; only those on {@code node} when it is not null.
   */
  private static List<String> endpoints(List<EndpointSlice> slices, ServicePort port, String node) {
    List<String> ready = new ArrayList<>();
    List<String> terminating = new ArrayList<>();
    for (EndpointSlice s : slices) {
      Integer target = null;
      if (s.getPorts() != null) {
        for (EndpointPort p : s.getPorts()) {
          if (Objects.equals(emptyToNull(p.getName()), emptyToNull(port.getName()))) {
            target = p.getPort();
          }
        }
      }
      if (target == null || s.getEndpoints() == null) {
        continue;
      }
      for (Endpoint e : s.getEndpoints()) {
        if (node != null && !node.equals(e.getNodeName())) {
          continue;
        }
        var c = e.getConditions();
        boolean isReady = c == null || !Boolean.FALSE.equals(c.getReady());
        boolean serving = c == null || !Boolean.FALSE.equals(c.getServing());
        boolean term = c != null && Boolean.TRUE.equals(c.getTerminating());
        for (String a : e.getAddresses()) {
          String ep = (a.contains(":") ? "[" + a + "]" : a) + ":" + target;
          if (isReady && !term) {
            ready.add(ep);
          } else if (serving && term) {
            terminating.add(ep);
          }
        }
      }
    }
    List<String> out = ready.isEmpty() ? terminating : ready;
    out.sort(null);
    return out;
  }

  private static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }

  @Override
  public void close() {
    worker.shutdownNow();
  }
}
