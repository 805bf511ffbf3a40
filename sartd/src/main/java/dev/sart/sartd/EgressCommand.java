package dev.sart.sartd;

import dev.sart.agent.egress.EgressIds;
import dev.sart.agent.egress.FouGatewayTunnel;
import dev.sart.agent.egress.GatewayAgent;
import dev.sart.agent.egress.GatewayEnd;
import dev.sart.agent.egress.GatewayNat;
import dev.sart.agent.egress.GatewayTunnel;
import dev.sart.agent.egress.TunnelProbe;
import dev.sart.crds.Sart;
import dev.sart.crds.TunnelMode;
import dev.sart.fib.netlink.GenericNetlink;
import dev.sart.fib.netlink.Netlink;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Logger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code sartd egress}: the gateway end of an Egress, run by the controller in each egress pod
 * (coil's {@code coil-egress}): the tunnel end (a VXLAN device, or FoU receivers and links), the
 * per-client entries of the client pods that opted in, and the nftables SNAT to the Egress's static
 * address (or the pod's own address). Every flag is checked and the kernel probed for the tunnel
 * mode before anything is made.
 */
@Command(
    name = "egress",
    mixinStandardHelpOptions = true,
    description = "Run an egress NAT gateway (inside an egress pod)")
final class EgressCommand implements java.util.concurrent.Callable<Integer> {
  private static final Logger LOG = Logger.getLogger(EgressCommand.class.getName());

  @Option(
      names = "--kubeconfig",
      description = "kubeconfig file (default: in-cluster, then $KUBECONFIG, then ~/.kube/config)")
  Path kubeconfig;

  @Option(names = "--egress", description = "the Egress this pod serves (its name)")
  String egress;

  @Option(names = "--namespace", description = "the Egress's namespace (default: $POD_NAMESPACE)")
  String namespace;

  @Option(names = "--pod-name", description = "this pod's name (default: $POD_NAME, $HOSTNAME)")
  String podName;

  @Option(
      names = "--tunnel",
      description =
          "auto (default: FoU when the kernel has its modules, else VXLAN),"
              + " vxlan or fou: what the client pods' agents set up")
  String tunnel = "auto";

  @Option(names = "--port", description = "the tunnel's UDP port (default 4789 vxlan, 5555 fou)")
  Integer port;

  @Option(
      names = "--fou-source-port-auto",
      description = "FoU: the outer source port from the flow's hash (coil's fouSourcePortAuto)")
  boolean fouSourcePortAuto;

  @Option(names = "--interface", description = "the pod's uplink (default eth0)")
  String uplink = "eth0";

  @Option(names = "--nft", description = "the nft program (default nft, from PATH)")
  String nft = "nft";

  @Mixin LogOptions log;

  /** What the flags and the environment say, checked. */
  record Settings(
      String namespace,
      String egress,
      String pod,
      TunnelMode mode,
      int port,
      String uplink,
      String reason) {}

  Settings settings(TunnelProbe probe) {
    if (egress == null || egress.isBlank()) {
      throw new UsageException("--egress: the Egress's name is required");
    }
    String ns = namespace != null ? namespace : System.getenv("POD_NAMESPACE");
    if (ns == null || ns.isBlank()) {
      throw new UsageException("--namespace: unknown; set it or POD_NAMESPACE");
    }
    String pod = podName != null ? podName : System.getenv("POD_NAME");
    if (pod == null || pod.isBlank()) {
      pod = System.getenv("HOSTNAME");
    }
    if (pod == null || pod.isBlank()) {
      throw new UsageException("--pod-name: unknown; set it or POD_NAME");
    }
    String reason = "requested";
    TunnelMode mode;
    switch (tunnel) {
      case "vxlan" -> mode = TunnelMode.VXLAN;
      case "fou" -> mode = TunnelMode.FOU;
      case "auto" -> {
        try {
          var choice = probe.choose();
          mode = choice.mode();
          reason = "auto: " + choice.reason();
        } catch (IllegalStateException e) {
          throw new UsageException("--tunnel auto: " + e.getMessage());
        }
      }
      default ->
          throw new UsageException("--tunnel: '" + tunnel + "' is not a mode (auto, vxlan, fou)");
    }
    int p = port != null ? port : mode == TunnelMode.FOU ? 5555 : 4789;
    if (p < 1 || p > 65535) {
      throw new UsageException("--port: " + p + " is not a UDP port (1..65535)");
    }
    var missing = probe.missing(mode);
    if (!missing.isEmpty()) {
      throw new UsageException(
          "--tunnel "
              + tunnel
              + ": this kernel has no "
              + String.join(", ", missing)
              + " module"
              + (missing.size() > 1 ? "s" : "")
              + " (neither in /sys/module nor in /lib/modules);"
              + (mode == TunnelMode.FOU
                  ? " use tunnel: vxlan in the Egress, or a kernel with fou and ipip"
                  : " this kernel cannot run an egress gateway"));
    }
    return new Settings(ns, egress, pod, mode, p, uplink, reason);
  }

  static String modeName(TunnelMode mode) {
    return mode == TunnelMode.FOU ? "fou" : "vxlan";
  }

  /** Labels this pod with the mode it runs, for the client pods' agents ({@link Sart}). */
  static void label(KubernetesClient client, Settings s) {
    try {
      client
          .pods()
          .inNamespace(s.namespace())
          .withName(s.pod())
          .edit(
              p ->
                  new io.fabric8.kubernetes.api.model.PodBuilder(p)
                      .editMetadata()
                      .addToLabels(Sart.EGRESS_TUNNEL_LABEL, modeName(s.mode()))
                      .endMetadata()
                      .build());
    } catch (KubernetesClientException e) {
      // clients then fall back to vxlan, which auto chose unless the kernel had FoU
      LOG.warning(
          "event=egress-tunnel-label-failed pod="
              + s.namespace()
              + "/"
              + s.pod()
              + " code="
              + e.getCode()
              + " (grant patch on pods to the egress pods' ServiceAccount)");
    }
  }

  @Override
  public Integer call() throws Exception {
    HeapBound.install();
    log.install();
    Settings s = settings(TunnelProbe.ofRunningKernel());
    LOG.info(
        "event=egress-tunnel mode="
            + modeName(s.mode())
            + " requested="
            + tunnel
            + " reason=\""
            + s.reason()
            + "\"");
    try (KubernetesClient client = AgentCommand.client(kubeconfig);
        Netlink netlink = Netlink.open();
        GenericNetlink genl = GenericNetlink.open()) {
      label(client, s);
      GatewayEnd tunnelEnd =
          s.mode() == TunnelMode.FOU
              ? new FouGatewayTunnel(netlink, genl, s.uplink(), s.port(), fouSourcePortAuto)
              : new GatewayTunnel(
                  netlink, s.uplink(), EgressIds.vni(s.namespace(), s.egress()), s.port());
      tunnelEnd.setUp();
      var nat = new GatewayNat(List.of(nft));
      try (var agent =
          new GatewayAgent(
              client, s.namespace(), s.egress(), s.pod(), s.uplink(), tunnelEnd, nat)) {
        agent.start();
        LOG.info(
            "event=egress-started egress="
                + s.namespace()
                + "/"
                + s.egress()
                + " pod="
                + s.pod()
                + " tunnel="
                + modeName(s.mode())
                + " port="
                + s.port());
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
        stop.await();
      } finally {
        nat.remove();
        tunnelEnd.tearDown();
      }
    }
    return 0;
  }
}
