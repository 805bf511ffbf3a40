package dev.sart.testbed.cluster;

import static dev.sart.testbed.cluster.BenchOutput.load;
import static dev.sart.testbed.cluster.BenchOutput.ms;
import static dev.sart.testbed.cluster.BenchOutput.row;
import static dev.sart.testbed.cluster.BenchOutput.say;
import static dev.sart.testbed.cluster.BenchOutput.secs;
import static dev.sart.testbed.cluster.BenchOutput.step;
import static org.awaitility.Awaitility.await;

import dev.sart.crds.BGPAdvertisement;
import dev.sart.testbed.Topology;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The benchmark figures of the cluster on one machine (testbed/cluster/README.md "Figures"):
 *
 * <ol>
 *   <li>Service create → address in its status → route in both ToRs' kernels, with {@code
 *       --present} LoadBalancer Services already there; the API server's own floor (ConfigMap
 *       create + get) in the same run;
 *   <li>the one endpoint of an {@code externalTrafficPolicy: Local} Service goes not-ready → the
 *       route leaves both ToRs (and back);
 *   <li>{@code --pods} pods created at once on one node → all Ready, sart-cni vs the reference
 *       {@code ptp} + {@code host-local} plugins, the same kubelet stand-in;
 *   <li>{@code sartd node} killed and started again: its Service route kept by the ToRs (graceful
 *       restart), the new session's OPEN, UPDATE and End-of-RIB, the stale flag cleared; addresses
 *       unchanged ({@link BenchRestarts}).
 * </ol>
 *
 * The ToRs are observed with {@link RouteWatch} (rtnetlink events, no polling); its own lag is
 * reported. {@code --quick} runs small counts.
 */
public final class ClusterBench {
  private ClusterBench() {}

  private static final String NS = "bench";
  private static final Duration WAIT = Duration.ofSeconds(60);

  public static void main(String[] args) throws Exception {
    BenchSettings s;
    try {
      s = BenchSettings.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("cluster bench: " + e.getMessage());
      System.exit(2);
      return;
    }
    java.util.logging.Logger.getLogger("dev.sart.testbed.cluster")
        .setLevel(java.util.logging.Level.WARNING);
    say("cluster bench %s, %s, load %s", Instant.now(), s, load());
    long t0 = System.nanoTime();
    try (Topology t = Topology.create("bench");
        Cluster cluster = Cluster.start(t, Cluster.Options.defaults());
        RouteWatch w1 = RouteWatch.open(cluster.tors().get(0).node());
        RouteWatch w2 = RouteWatch.open(cluster.tors().get(1).node());
        RouteWatch u1 = RouteWatch.openWire(cluster.tors().get(0).node(), Cluster.TOR1_ADDRESS);
        RouteWatch u2 = RouteWatch.openWire(cluster.tors().get(1).node(), Cluster.TOR2_ADDRESS)) {
      if (s.logs() != null) {
        t.preserveFilesIn(s.logs());
        say("the run's files will be kept in %s", s.logs());
      }
      KubernetesClient k = cluster.client();
      Manifests.apply(
          k,
          Scenarios.CLUSTER_BGP
              + "---\n"
              + Scenarios.LB_POOL
              + "---\n"
              + Scenarios.POD_POOL
              + "---\n"
              + BenchPresent.POOL);
      cluster.ensureNamespace(NS, Map.of());
      cluster.ensureNamespace(BenchPresent.NS, Map.of());
      Scenarios.awaitPeersEstablished(cluster);
      say("cluster up and peered in %.0f s, load %s", secs(System.nanoTime() - t0), load());
      ClusterBench.Run run = new Run(cluster, w1, w2, u1, u2, s, t.dir().resolve("bench"));
      run.all();
      say("\nbench done in %.0f s, load %s", secs(System.nanoTime() - t0), load());
    }
  }

  /** One run's state. */
  static final class Run {
    private final Cluster cluster;
    private final KubernetesClient k;
    private final RouteWatch w1;
    private final RouteWatch w2;
    private final RouteWatch u1;
    private final RouteWatch u2;
    private final Map<String, Long> advertSeen = new ConcurrentHashMap<>();
    private final Map<String, Long> advertPeers = new ConcurrentHashMap<>();
    private final Map<String, Long> sliceAt = new ConcurrentHashMap<>();
    private final BenchSettings s;
    private final Path dir;
    private final Map<String, Long> statusAt = new ConcurrentHashMap<>();
    private final Map<String, String> addressOf = new ConcurrentHashMap<>();
    private final List<long[]> sliceReady =
        java.util.Collections.synchronizedList(new ArrayList<>());

    Run(
        Cluster cluster,
        RouteWatch w1,
        RouteWatch w2,
        RouteWatch u1,
        RouteWatch u2,
        BenchSettings s,
        Path dir) {
      this.u1 = u1;
      this.u2 = u2;
      this.cluster = cluster;
      this.k = cluster.client();
      this.w1 = w1;
      this.w2 = w2;
      this.s = s;
      this.dir = dir;
    }

    void all() throws Exception {
      SharedIndexInformer<Service> services =
          k.services().inNamespace(NS).inform(handler(this::serviceSeen));
      SharedIndexInformer<EndpointSlice> slices =
          k.discovery().v1().endpointSlices().inNamespace(NS).inform(handler(this::sliceSeen));
      SharedIndexInformer<BGPAdvertisement> adverts =
          k.resources(BGPAdvertisement.class).inNamespace(NS).inform(handler(this::advertSeen));
      try {
        BenchPresent.run(k, s);
        creates();
        withdraws();
        restarts();
        pods();
        List<Long> lags = new ArrayList<>(w1.lagNanos());
        lags.addAll(w2.lagNanos());
        step("the observers' own lag");
        row("ip monitor route: its stamp → read here (every event)", lags);
        List<Long> wlags = new ArrayList<>(u1.lagNanos());
        wlags.addAll(u2.lagNanos());
        row("tcpdump: capture stamp → read here (every packet)", wlags);
      } finally {
        services.close();
        slices.close();
        adverts.close();
      }
    }

    private void serviceSeen(Service svc) {
      var st = svc.getStatus();
      if (st != null
          && st.getLoadBalancer() != null
          && st.getLoadBalancer().getIngress() != null
          && !st.getLoadBalancer().getIngress().isEmpty()) {
        String name = svc.getMetadata().getName();
        long now = System.nanoTime();
        // the address before the time: the sampling thread reads the address once it sees the
        // time (in the other order it could read no address, await "null" on the ToRs for 2 × 60 s
        // and count the sample as never routed)
        addressOf.putIfAbsent(name, st.getLoadBalancer().getIngress().getFirst().getIp());
        statusAt.putIfAbsent(name, now);
      }
    }

    private void advertSeen(BGPAdvertisement a) {
      long now = System.nanoTime();
      String cidr = a.getSpec() == null ? null : a.getSpec().cidr();
      if (cidr == null) {
        return;
      }
      String ip = cidr.replaceAll("/(32|128)$", "");
      advertSeen.putIfAbsent(ip, now);
      if (a.getStatus() != null
          && a.getStatus().peers() != null
          && !a.getStatus().peers().isEmpty()) {
        advertPeers.putIfAbsent(ip, now);
      }
    }

    private void sliceSeen(EndpointSlice slice) {
      String service = slice.getMetadata().getLabels().get("kubernetes.io/service-name");
      if (service != null
          && service.startsWith("s-")
          && slice.getEndpoints() != null
          && !slice.getEndpoints().isEmpty()) {
        sliceAt.putIfAbsent(service, System.nanoTime());
      }
      if (!"local".equals(service)) {
        return;
      }
      long ready =
          slice.getEndpoints() == null
              ? 0
              : slice.getEndpoints().stream()
                  .filter(
                      e ->
                          e.getConditions() != null
                              && Boolean.TRUE.equals(e.getConditions().getReady()))
                  .count();
      sliceReady.add(new long[] {System.nanoTime(), ready});
    }

    // ---- 1: create → status → ToRs, with the API floor interleaved

    private void creates() {
      step("%d Services created one at a time (Cluster policy, pod on node1)", s.samples());
      ClusterNode n1 = cluster.nodes().get(0);
      k.resource(Manifests.pod(NS, "bench-1", n1.name(), Map.of("app", "bench"), 0)).create();
      Scenarios.awaitPodsReady(cluster, NS, Map.of("app", "bench"), 1);
      List<Long> floor = new ArrayList<>();
      List<Long> toStatus = new ArrayList<>();
      List<Long> toAdvert = new ArrayList<>();
      List<Long> toSlice = new ArrayList<>();
      List<Long> toPeers = new ArrayList<>();
      List<Long> peersToWire = new ArrayList<>();
      List<Long> wireToKernel = new ArrayList<>();
      List<Long> toTors = new ArrayList<>();
      List<Long> deleteToGone = new ArrayList<>();
      int missed = 0;
      for (int i = 0; i < s.samples(); i++) {
        // the API server's floor: a create and a get, nothing watching for them
        long a = System.nanoTime();
        k.configMaps()
            .inNamespace(NS)
            .resource(
                new ConfigMapBuilder()
                    .withNewMetadata()
                    .withName("floor-" + i)
                    .endMetadata()
                    .addToData("k", "v")
                    .build())
            .create();
        k.configMaps().inNamespace(NS).withName("floor-" + i).get();
        floor.add(System.nanoTime() - a);
        k.configMaps().inNamespace(NS).withName("floor-" + i).delete();

        String name = "s-" + i;
        long t0 = System.nanoTime();
        k.resource(Manifests.loadBalancer(NS, name, Map.of("app", "bench"), "Cluster", Map.of()))
            .create();
        long tStatus =
            await(name + " status")
                .atMost(WAIT)
                .pollInterval(Duration.ofMillis(1))
                .until(() -> statusAt.getOrDefault(name, 0L), v -> v != 0L);
        String ip = addressOf.get(name);
        OptionalLong r1 = w1.await(ip, false, t0, WAIT);
        OptionalLong r2 = w2.await(ip, false, t0, WAIT);
        if (r1.isEmpty() || r2.isEmpty()) {
          missed++;
        } else {
          long both = Math.max(r1.getAsLong(), r2.getAsLong());
          toStatus.add(tStatus - t0);
          toTors.add(both - t0);
          Long adv = advertSeen.get(ip);
          Long listed = advertPeers.get(ip);
          Long slice = sliceAt.get(name);
          OptionalLong x1 = u1.await(ip, false, t0, Duration.ofSeconds(1));
          OptionalLong x2 = u2.await(ip, false, t0, Duration.ofSeconds(1));
          if (adv != null) {
            toAdvert.add(adv - t0);
          }
          if (slice != null) {
            toSlice.add(slice - t0);
          }
          if (listed != null) {
            toPeers.add(listed - t0);
          }
          if (x1.isPresent() && x2.isPresent()) {
            long wire = Math.max(x1.getAsLong(), x2.getAsLong());
            if (listed != null) {
              peersToWire.add(wire - listed);
            }
            wireToKernel.add(both - wire);
          }
        }
        long d = System.nanoTime();
        k.services().inNamespace(NS).withName(name).delete();
        OptionalLong g1 = w1.await(ip, true, d, WAIT);
        OptionalLong g2 = w2.await(ip, true, d, WAIT);
        if (g1.isPresent() && g2.isPresent()) {
          deleteToGone.add(Math.max(g1.getAsLong(), g2.getAsLong()) - d);
        }
        w1.clear();
        w2.clear();
        u1.clear();
        u2.clear();
      }
      row("API server floor: ConfigMap create + get", floor);
      row("Service create → address in status (controller)", toStatus);
      row("Service create → BGPAdvertisement seen (controller)", toAdvert);
      row("Service create → EndpointSlice with its endpoint seen (the stand-in)", toSlice);
      row("Service create → BGPAdvertisement lists its peers (controller)", toPeers);
      row("  peers listed → UPDATE received by both ToRs (agents, speakers)", peersToWire);
      row("  UPDATE received → route in both ToRs' kernels (FRR bgpd, zebra)", wireToKernel);
      row("**Service create → route on both ToRs**", toTors);
      row("Service delete → route gone from both ToRs", deleteToGone);
      if (missed > 0) {
        say("  %d samples never reached both ToRs within %s", missed, WAIT);
      }
      say("  load %s", load());
    }

    // ---- 2: Local endpoint not ready → withdraw

    private void withdraws() {
      step("%d times: the only endpoint of a Local Service not ready, then ready", s.withdraws());
      ClusterNode n1 = cluster.nodes().get(0);
      k.resource(Manifests.pod(NS, "local-1", n1.name(), Map.of("app", "bench-local"), 0)).create();
      k.resource(
              Manifests.loadBalancer(NS, "local", Map.of("app", "bench-local"), "Local", Map.of()))
          .create();
      Scenarios.awaitPodsReady(cluster, NS, Map.of("app", "bench-local"), 1);
      String ip = Scenarios.awaitAddress(cluster, NS, "local");
      Scenarios.awaitNextHops(cluster, ip + "/32", List.of(n1));
      List<Long> toSlice = new ArrayList<>();
      List<Long> sliceToGone = new ArrayList<>();
      List<Long> toGone = new ArrayList<>();
      List<Long> readyToRoute = new ArrayList<>();
      List<Long> sliceToWire = new ArrayList<>();
      List<Long> wireToGone = new ArrayList<>();
      for (int i = 0; i < s.withdraws(); i++) {
        w1.clear();
        w2.clear();
        u1.clear();
        u2.clear();
        long t0 = System.nanoTime();
        podReady("local-1", false);
        OptionalLong g1 = w1.await(ip, true, t0, WAIT);
        OptionalLong g2 = w2.await(ip, true, t0, WAIT);
        if (g1.isPresent() && g2.isPresent()) {
          long gone = Math.max(g1.getAsLong(), g2.getAsLong());
          toGone.add(gone - t0);
          long slice = firstSlice(t0, 0);
          if (slice > 0) {
            toSlice.add(slice - t0);
            sliceToGone.add(gone - slice);
            OptionalLong x1 = u1.await(ip, true, t0, Duration.ofSeconds(1));
            OptionalLong x2 = u2.await(ip, true, t0, Duration.ofSeconds(1));
            if (x1.isPresent() && x2.isPresent()) {
              long wire = Math.max(x1.getAsLong(), x2.getAsLong());
              sliceToWire.add(wire - slice);
              wireToGone.add(gone - wire);
            }
          }
        } else {
          // where the chain stopped: the stand-in's slice (as this bench's own watch saw it), the
          // advertisement's peer map (as the API server has it now)
          long slice = firstSlice(t0, 0);
          say(
              "  sample %d: no withdrawal seen on both ToRs within %s (tor1 %s, tor2 %s;"
                  + " WITHDRAW on the wire: tor1 %s, tor2 %s);"
                  + " EndpointSlice not ready %s; advertisement status now %s; load %s",
              i,
              WAIT,
              g1.isPresent() ? "withdrew" : "kept it",
              g2.isPresent() ? "withdrew" : "kept it",
              u1.await(ip, true, t0, Duration.ZERO).isPresent() ? "yes" : "no",
              u2.await(ip, true, t0, Duration.ZERO).isPresent() ? "yes" : "no",
              slice > 0 ? "seen after " + ms(slice - t0) : "never seen",
              advertStatus(ip),
              load());
        }
        long t1 = System.nanoTime();
        podReady("local-1", true);
        OptionalLong b1 = w1.await(ip, false, t1, WAIT);
        OptionalLong b2 = w2.await(ip, false, t1, WAIT);
        if (b1.isPresent() && b2.isPresent()) {
          readyToRoute.add(Math.max(b1.getAsLong(), b2.getAsLong()) - t1);
        }
      }
      row("Pod not ready → EndpointSlice not ready (the stand-in)", toSlice);
      row("EndpointSlice not ready → route gone from both ToRs", sliceToGone);
      row(
          "  EndpointSlice not ready → WITHDRAW received by both ToRs (agent, speaker)",
          sliceToWire);
      row("  WITHDRAW received → route gone from both ToRs' kernels (FRR)", wireToGone);
      row("**Pod not ready → route gone from both ToRs (WITHDRAW)**", toGone);
      row("Pod ready again → route on both ToRs", readyToRoute);
      say("  load %s", load());
    }

    private long firstSlice(long since, long ready) {
      long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
      while (System.nanoTime() < deadline) {
        synchronized (sliceReady) {
          for (long[] e : sliceReady) {
            if (e[0] >= since && e[1] == ready) {
              return e[0];
            }
          }
        }
        sleep(5);
      }
      return -1;
    }

    /** The peer map of the advertisement of {@code ip} in NS, read from the API server. */
    private String advertStatus(String ip) {
      return k.resources(BGPAdvertisement.class).inNamespace(NS).list().getItems().stream()
          .filter(a -> a.getSpec() != null && a.getSpec().cidr().startsWith(ip + "/"))
          .map(
              a ->
                  a.getMetadata().getName()
                      + " rv "
                      + a.getMetadata().getResourceVersion()
                      + " "
                      + (a.getStatus() == null ? "{}" : a.getStatus().peers()))
          .toList()
          .toString();
    }

    /** What a kubelet writes when a readiness probe fails (or passes again). */
    private void podReady(String name, boolean ready) {
      String status = ready ? "True" : "False";
      k.pods()
          .inNamespace(NS)
          .withName(name)
          .editStatus(
              p -> {
                for (var c : p.getStatus().getConditions()) {
                  if (c.getType().equals("Ready") || c.getType().equals("ContainersReady")) {
                    c.setStatus(status);
                    c.setLastTransitionTime(Instant.now().toString());
                  }
                }
                return p;
              });
    }

    // ---- 4: sartd node restart (graceful restart: the ToRs keep the route)

    private void restarts() {
      BenchRestarts.run(cluster, s, addressOf.get("local"), w1, w2, u1, u2, this::addresses);
    }

    /** Services' and pods' addresses in the bench namespace. */
    private Map<String, String> addresses() {
      Map<String, String> m = new java.util.TreeMap<>();
      for (Service svc : k.services().inNamespace(NS).list().getItems()) {
        var st = svc.getStatus();
        if (st != null
            && st.getLoadBalancer() != null
            && st.getLoadBalancer().getIngress() != null) {
          m.put("svc/" + svc.getMetadata().getName(), st.getLoadBalancer().getIngress().toString());
        }
      }
      for (Pod p : k.pods().inNamespace(NS).list().getItems()) {
        m.put("pod/" + p.getMetadata().getName(), String.valueOf(p.getStatus().getPodIP()));
      }
      return m;
    }

    // ---- 3: pods at once, sart-cni vs ptp + host-local

    private void pods() throws IOException {
      BenchPods.run(cluster, s, dir);
    }
  }

  // ---- output

  private static <T> ResourceEventHandler<T> handler(java.util.function.Consumer<T> seen) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T obj) {
        seen.accept(obj);
      }

      @Override
      public void onUpdate(T oldObj, T newObj) {
        seen.accept(newObj);
      }

      @Override
      public void onDelete(T obj, boolean deletedFinalStateUnknown) {}
    };
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
