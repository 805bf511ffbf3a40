package dev.sart.agent.egress;

import dev.sart.crds.Egress;
import dev.sart.net.Ip;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * What {@code sartd egress} runs in an egress pod: watches the client pods that opted into its
 * Egress (any namespace) and the Egress itself, and keeps the tunnel end's ({@link GatewayEnd})
 * per-client entries and {@link GatewayNat}'s table in step: SNAT to the static address while this
 * pod is the Egress's gateway ({@code status.gateway}), masquerade otherwise; the reverse-path
 * ports to their Services' ClusterIPs on the gateway only.
 */
public final class GatewayAgent implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(GatewayAgent.class.getName());

  private final String namespace;
  private final String name;
  private final String podName;
  private final String uplink;
  private final GatewayEnd tunnel;
  private final GatewayNat nat;
  private final EgressRef me;
  private final SharedIndexInformer<Pod> pods;
  private final SharedIndexInformer<Egress> egresses;
  private final SharedIndexInformer<Service> services;
  private final Passes passes;
  private String applied;

  public GatewayAgent(
      KubernetesClient client,
      String namespace,
      String name,
      String podName,
      String uplink,
      GatewayEnd tunnel,
      GatewayNat nat) {
    this.namespace = namespace;
    this.name = name;
    this.podName = podName;
    this.uplink = uplink;
    this.tunnel = tunnel;
    this.nat = nat;
    this.me = new EgressRef(namespace, name);
    this.pods = client.pods().inAnyNamespace().runnableInformer(0);
    this.egresses = client.resources(Egress.class).inNamespace(namespace).runnableInformer(0);
    this.services = client.services().inNamespace(namespace).runnableInformer(0);
    this.passes = new Passes("egress-gateway", this::pass, 30);
    for (var informer : List.of(pods, egresses, services)) {
      informer.addEventHandler(new Wake<>(passes));
    }
  }

  /** Calls {@link Passes#request} on every event. */
  static final class Wake<T> implements ResourceEventHandler<T> {
    private final Passes passes;

    Wake(Passes passes) {
      this.passes = passes;
    }

    @Override
    public void onAdd(T obj) {
      passes.request();
    }

    @Override
    public void onUpdate(T old, T now) {
      passes.request();
    }

    @Override
    public void onDelete(T obj, boolean unknown) {
      passes.request();
    }
  }

  public void start() throws Exception {
    for (var informer : List.of(pods, egresses, services)) {
      informer.start().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
    passes.request();
  }

  private void pass() {
    var clients = new java.util.HashMap<InetAddress, List<InetAddress>>();
    for (var pod : pods.getStore().list()) {
      var ip = address(pod);
      if (ip != null && EgressRef.of(pod).contains(me)) {
        clients.put(ip, ipv6(pod));
      }
    }
    tunnel.clients(clients);

    var egress = egresses.getStore().getByKey(namespace + "/" + name);
    InetAddress source = null;
    var forwards = new ArrayList<GatewayNat.Forward>();
    if (egress != null
        && egress.getStatus() != null
        && egress.getStatus().sourceAddress() != null
        && podName.equals(egress.getStatus().gateway())) {
      source = Ip.parse(egress.getStatus().sourceAddress());
      var claim = egress.getSpec().sourceAddress();
      for (var port : claim == null ? List.<dev.sart.crds.EgressPort>of() : claim.portsOrEmpty()) {
        var service = services.getStore().getByKey(namespace + "/" + port.service());
        if (service == null
            || service.getSpec().getClusterIP() == null
            || "None".equals(service.getSpec().getClusterIP())) {
          LOG.warning(
              "egress reverse port skipped port="
                  + port.port()
                  + " service="
                  + port.service()
                  + " reason=no-cluster-ip");
          continue;
        }
        forwards.add(
            new GatewayNat.Forward(
                port.protocolOrTcp(),
                port.port(),
                Ip.parse(service.getSpec().getClusterIP()),
                port.servicePortOrPort()));
      }
    }
    String wanted = GatewayNat.ruleset(uplink, source, forwards);
    if (!Objects.equals(wanted, applied)) {
      nat.apply(uplink, source, forwards);
      applied = wanted;
      LOG.info(
          "egress nat applied source="
              + (source == null ? "masquerade" : source.getHostAddress())
              + " forwards="
              + forwards.size()
              + " clients="
              + clients.size());
    }
  }

  /**
   * The pod's tunnel address while it runs: its IPv4 address, or an IPv6-only pod's IPv6 one (null
   * when it has none, or is done).
   */
  static InetAddress address(Pod pod) {
    var status = pod.getStatus();
    if (status == null
        || status.getPodIP() == null
        || "Succeeded".equals(status.getPhase())
        || "Failed".equals(status.getPhase())) {
      return null;
    }
    var ip = Ip.parse(status.getPodIP());
    if (ip instanceof Inet4Address || status.getPodIPs() == null) {
      return ip;
    }
    for (var p : status.getPodIPs()) {
      if (p.getIp() != null && Ip.parse(p.getIp()) instanceof Inet4Address v4) {
        return v4; // dual-stack, IPv6 first: the IPv4 address carries both
      }
    }
    return ip;
  }

  /** The pod's IPv6 addresses ({@code status.podIPs}), carried in its IPv4 tunnel. */
  static List<InetAddress> ipv6(Pod pod) {
    var out = new ArrayList<InetAddress>();
    if (pod.getStatus() != null && pod.getStatus().getPodIPs() != null) {
      for (var p : pod.getStatus().getPodIPs()) {
        if (p.getIp() != null && Ip.parse(p.getIp()) instanceof java.net.Inet6Address a) {
          out.add(a);
        }
      }
    }
    return out;
  }

  /** The clients now configured (for tests). */
  Set<InetAddress> clients() {
    var out = new HashSet<InetAddress>();
    for (var pod : pods.getStore().list()) {
      var ip = address(pod);
      if (ip != null && EgressRef.of(pod).contains(me)) {
        out.add(ip);
      }
    }
    return out;
  }

  @Override
  public void close() {
    passes.close();
    pods.close();
    egresses.close();
    services.close();
  }
}
