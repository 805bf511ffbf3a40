package dev.sart.testbed.cluster;

import static dev.sart.testbed.cluster.BenchOutput.load;
import static dev.sart.testbed.cluster.BenchOutput.median;
import static dev.sart.testbed.cluster.BenchOutput.row;
import static dev.sart.testbed.cluster.BenchOutput.say;
import static dev.sart.testbed.cluster.BenchOutput.secs;
import static dev.sart.testbed.cluster.BenchOutput.step;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * ClusterBench's pod phase: {@code --pods} pods created at once on node1 → all Ready, then all
 * deleted, with sart-cni and with the reference {@code ptp} + {@code host-local} plugins driven by
 * the same kubelet stand-in, alternating which goes first per round.
 */
final class BenchPods {
  private static final String NS = "bench";

  private BenchPods() {}

  static void run(Cluster cluster, BenchSettings s, Path dir) throws IOException {
    KubernetesClient k = cluster.client();
    // node1: its block has room already, and the pool's other 7 blocks hold the rest
    ClusterNode n2 = cluster.nodes().get(0);
    KubeletStandIn kubelet = cluster.kubelet(n2.name());
    KubeletStandIn.Network reference = referenceNetwork(dir, n2);
    step(
        "%d pods created at once on %s, %d round(s): sart-cni vs ptp + host-local (%s)",
        s.pods(), n2.name(), s.rounds(), reference.conflist());
    Map<String, List<Long>> ready = new LinkedHashMap<>();
    Map<String, List<Long>> adds = new LinkedHashMap<>();
    Map<String, List<Long>> gone = new LinkedHashMap<>();
    for (int r = 0; r < s.rounds(); r++) {
      List<String> order =
          r % 2 == 0
              ? List.of("sart-cni", "ptp+host-local")
              : List.of("ptp+host-local", "sart-cni");
      for (String net : order) {
        kubelet.useNetwork(net.equals("sart-cni") ? null : reference);
        kubelet.drainAddTimes();
        String batch = "b" + r + "-" + (net.equals("sart-cni") ? "sart" : "ref");
        Map<String, String> labels = Map.of("batch", batch);
        long t0 = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        for (int i = 0; i < s.pods(); i++) {
          String name = batch + "-" + i;
          pool.execute(() -> k.resource(Manifests.pod(NS, name, n2.name(), labels, 0)).create());
        }
        pool.shutdown();
        try {
          pool.awaitTermination(5, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        await(batch + " all Ready")
            .atMost(Duration.ofMinutes(10))
            .pollInterval(Duration.ofMillis(100))
            .until(
                () ->
                    k.pods().inNamespace(NS).withLabels(labels).list().getItems().stream()
                            .filter(Scenarios::ready)
                            .count()
                        == s.pods());
        long allReady = System.nanoTime() - t0;
        ready.computeIfAbsent(net, x -> new ArrayList<>()).add(allReady);
        adds.computeIfAbsent(net, x -> new ArrayList<>()).addAll(kubelet.drainAddTimes());
        long d = System.nanoTime();
        k.pods().inNamespace(NS).withLabels(labels).delete();
        await(batch + " all gone")
            .atMost(Duration.ofMinutes(10))
            .pollInterval(Duration.ofMillis(100))
            .until(() -> k.pods().inNamespace(NS).withLabels(labels).list().getItems().isEmpty());
        gone.computeIfAbsent(net, x -> new ArrayList<>()).add(System.nanoTime() - d);
        say(
            "  round %d %s: all %d Ready in %.2f s, load %s",
            r, net, s.pods(), secs(allReady), load());
      }
    }
    kubelet.useNetwork(null);
    for (String net : ready.keySet()) {
      row("**" + s.pods() + " pods → all Ready, " + net + "**", ready.get(net));
      row("  CNI ADD per pod (the whole conflist), " + net, adds.get(net));
      row("  " + s.pods() + " pods deleted → all gone, " + net, gone.get(net));
    }
    double ratio = median(ready.get("sart-cni")) / median(ready.get("ptp+host-local"));
    say("  all Ready, sart-cni / ptp+host-local: %.2f", ratio);
  }

  /** A ptp + host-local conflist for the node, from 192.0.2.128/25 (no other use there). */
  private static KubeletStandIn.Network referenceNetwork(Path dir, ClusterNode n)
      throws IOException {
    Path d = dir.resolve(n.name());
    Files.createDirectories(d.resolve("host-local"));
    Path conflist = d.resolve("10-ptp.conflist");
    Files.writeString(
        conflist,
        """
        {"cniVersion":"1.0.0","name":"bench-ptp","plugins":[{"type":"ptp","ipMasq":false,\
        "mtu":1500,"ipam":{"type":"host-local","ranges":[[{"subnet":"192.0.2.128/25"}]],\
        "routes":[{"dst":"0.0.0.0/0"}],"dataDir":"%s"}}]}
        """
            .formatted(d.resolve("host-local")));
    return new KubeletStandIn.Network(conflist, Path.of("/usr/lib/cni"));
  }
}
