package dev.sart.testbed.cluster;

import dev.sart.crds.BGPPeer;
import dev.sart.testbed.Frr;
import dev.sart.testbed.Shell;
import dev.sart.testbed.Topology;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * The main job (bin/demo): the cluster on one machine, and what a user would look at. An
 * AddressPool and a ClusterBGP are applied, pods start on two nodes behind a LoadBalancer Service;
 * then the Service with its address, FRR's route with its ECMP next hops, the client's requests
 * answered by different pods, a pod on one node pinging a pod on another, the {@code sart} CLI's
 * view of a node's speaker; then a pod moves under {@code externalTrafficPolicy: Local} and the
 * route follows. {@code --keep} waits for Enter before cleaning up and says how to reach the API
 * server, the ToRs and the speakers meanwhile.
 */
public final class ClusterDemo {
  private ClusterDemo() {}

  private static final String NS = "default";

  /**
   * Loggers made quieter, held here: java.util.logging keeps loggers weakly, and one collected
   * comes back at the default level (the stand-ins' pod lines used to reappear mid-demo).
   */
  private static final List<java.util.logging.Logger> QUIET =
      List.of(
          java.util.logging.Logger.getLogger("dev.sart.testbed.cluster"),
          java.util.logging.Logger.getLogger(
              "io.fabric8.kubernetes.client.dsl.internal.VersionUsageUtils"));

  public static void main(String[] args) throws Exception {
    boolean keep = List.of(args).contains("--keep");
    // the stand-ins log each pod at INFO, fabric8 warns of each v1alpha2 kind: the demo prints
    // what matters itself
    QUIET.forEach(l -> l.setLevel(java.util.logging.Level.WARNING));
    QUIET.getLast().setLevel(java.util.logging.Level.SEVERE);
    long t0 = System.nanoTime();
    try (Topology t = Topology.create("demo");
        Cluster cluster = Cluster.start(t, Cluster.Options.defaults())) {
      KubernetesClient k = cluster.client();
      Frr tor1 = cluster.tors().get(0);
      ClusterNode n1 = cluster.nodes().get(0);
      ClusterNode n2 = cluster.nodes().get(1);
      ClusterNode n3 = cluster.nodes().get(2);
      say(
          "cluster on one machine: API server %s (%s), controllers in %s, nodes %s, ToRs %s, client %s",
          k.getConfiguration().getMasterUrl(),
          cluster.api().isReal() ? "real" : "fabric8's mock server, the one part that is not real",
          cluster.controllers().size() + " namespaces",
          cluster.nodes(),
          cluster.tors().stream().map(f -> f.node().netns()).toList(),
          cluster.clientNode().netns());

      step("kubectl apply: peer templates, ClusterBGP, AddressPools");
      Manifests.apply(
          k, Scenarios.CLUSTER_BGP + "---\n" + Scenarios.LB_POOL + "---\n" + Scenarios.POD_POOL);
      Scenarios.awaitPeersEstablished(cluster);
      for (BGPPeer p : k.resources(BGPPeer.class).list().getItems()) {
        say(
            "  BGPPeer %-28s node %-6s peer %-11s %s",
            p.getMetadata().getName(),
            p.getSpec().nodeBGPRef(),
            p.getSpec().addr(),
            p.getStatus().conditions().getLast().status());
      }

      step("pods web-1 on node1, web-2 on node2; Service web (LoadBalancer, Cluster)");
      Map<String, String> web = Map.of("app", "web");
      k.resource(Manifests.pod(NS, "web-1", n1.name(), web, 0)).create();
      k.resource(Manifests.pod(NS, "web-2", n2.name(), web, 0)).create();
      k.resource(Manifests.loadBalancer(NS, "web", web, "Cluster", Map.of())).create();
      Scenarios.awaitPodsReady(cluster, NS, web, 2)
          .forEach(
              p ->
                  say(
                      "  pod %s on %s: %s",
                      p.getMetadata().getName(),
                      p.getSpec().getNodeName(),
                      p.getStatus().getPodIP()));
      String vip = Scenarios.awaitAddress(cluster, NS, "web");
      Service svc = k.services().inNamespace(NS).withName("web").get();
      say(
          "  Service web: type %s, externalTrafficPolicy %s, status.loadBalancer.ingress %s",
          svc.getSpec().getType(), svc.getSpec().getExternalTrafficPolicy(), vip);
      Scenarios.awaitNextHops(cluster, vip + "/32", cluster.nodes());

      step("tor1: vtysh -c 'show ip route " + vip + "/32' (ECMP over the three nodes)");
      System.out.print(indent(tor1.vtysh("show ip route " + vip + "/32")));

      step("the client (" + Cluster.CLIENT_ADDRESS + ") sends 12 requests to http://" + vip + "/");
      say("  answered by: %s", Scenarios.requests(cluster, vip, 80, 12));

      String ip2 = k.pods().inNamespace(NS).withName("web-2").get().getStatus().getPodIP();
      step("pod web-1 (node1) pings pod web-2 (node2, " + ip2 + ")");
      Shell.Result ping =
          cluster
              .pod(NS, "web-1")
              .orElseThrow()
              .netns()
              .tryExec("ping", "-n", "-c", "3", "-i", "0.2", ip2);
      System.out.print(indent(ping.stdout()));

      step("sart CLI on node1: bgp neighbor list, bgp global rib get");
      System.out.print(indent(n1.sart("bgp", "neighbor", "list").stdout()));
      System.out.print(indent(n1.sart("bgp", "global", "rib", "get").stdout()));

      step("Service web-local (Local) with pod local-1 on node1; then the pod moves to node3");
      Map<String, String> local = Map.of("app", "web-local");
      k.resource(Manifests.pod(NS, "local-1", n1.name(), local, 0)).create();
      k.resource(Manifests.loadBalancer(NS, "web-local", local, "Local", Map.of())).create();
      Scenarios.awaitPodsReady(cluster, NS, local, 1);
      String lvip = Scenarios.awaitAddress(cluster, NS, "web-local");
      Scenarios.awaitNextHops(cluster, lvip + "/32", List.of(n1));
      System.out.print(indent(tor1.vtysh("show ip route " + lvip + "/32")));
      say("  answered by: %s", Scenarios.requests(cluster, lvip, 80, 4));
      k.resource(Manifests.pod(NS, "local-3", n3.name(), local, 0)).create();
      Scenarios.awaitPodsReady(cluster, NS, local, 2);
      k.pods().inNamespace(NS).withName("local-1").delete();
      Scenarios.awaitNextHops(cluster, lvip + "/32", List.of(n3));
      say("  local-1 deleted, local-3 on node3 ready: the route moved");
      System.out.print(indent(tor1.vtysh("show ip route " + lvip + "/32")));
      say("  answered by: %s", Scenarios.requests(cluster, lvip, 80, 4));

      say("%ndemo done in %.0f s", (System.nanoTime() - t0) / 1e9);
      if (keep) {
        step("--keep: the cluster runs until you press Enter. Try (as root):");
        say(
            "  kubectl --kubeconfig %s get svc,bgpadvertisements -A -o yaml",
            cluster.api().kubeconfig());
        say(
            "  ip netns exec %s vtysh --vty_socket %s -c 'show bgp ipv4 unicast'",
            tor1.node().netns(), tor1.node().dir().resolve("frr"));
        say(
            "  ip netns exec %s bin/sart bgp neighbor list      # node1's speaker",
            n1.netns().netns());
        say(
            "  ip netns exec %s bin/sart explain service %s/web --kubeconfig %s",
            n1.netns().netns(), NS, n1.netns().dir().resolve("kubeconfig"));
        say(
            "  ip netns exec %s curl -s http://%s/             # the client",
            cluster.clientNode().netns(), vip);
        say("  logs and configs: %s", t.dir());
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
      }
    }
    say("cleaned up");
  }

  private static void step(String what) {
    System.out.println("\n== " + what);
  }

  private static void say(String format, Object... args) {
    System.out.println(String.format(format, args));
  }

  private static String indent(String text) {
    StringBuilder sb = new StringBuilder();
    text.lines().forEach(l -> sb.append("    ").append(l).append('\n'));
    return sb.toString();
  }
}
