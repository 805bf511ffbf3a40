package dev.sart.controller.bench;

import dev.sart.controller.MockCluster;
import dev.sart.controller.advert.AdvertisementReconciler;
import dev.sart.controller.bgp.ClusterBgpReconciler;
import dev.sart.controller.ipam.PoolReconciler;
import dev.sart.controller.lb.ServiceReconciler;
import dev.sart.controller.runtime.Events;
import dev.sart.controller.runtime.Informers;
import dev.sart.controller.runtime.Metrics;
import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressPoolSpec;
import dev.sart.crds.AddressType;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.Sart;
import dev.sart.crds.testing.KubeObjects;
import dev.sart.testbed.Programs;
import dev.sart.testbed.mockapi.MockApiProcess;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Benchmark program (not a test): N LoadBalancer Services in one pool against fabric8's mock API
 * server (CRUD mode), the controller's lb reconcilers (Service, BGPAdvertisement, pool, ClusterBGP,
 * as {@code sartd controller --mode lb} runs them, without leader election). Measures, per Service,
 * the time from the create call to the watch event that shows its address in status:
 *
 * <ol>
 *   <li>bulk: N Services created back to back (throughput and queueing);
 *   <li>at N existing Services: M more created one at a time (latency of one allocation), each
 *       split into create → the controller's informer hands the event to the Service reconciler
 *       (API server and watch delivery), the controller's own share (event → status PATCH sent:
 *       queue wait plus allocation), the PATCH round trip, and PATCH acknowledged → the benchmark's
 *       watch sees it.
 * </ol>
 *
 * Also the controller's retained heap (heap after GC with the controller running minus after it is
 * closed). Every address is checked to be unique.
 *
 * <p>Args: {@code [N=10000] [M=500] [flag...]}; flags: {@code mock-only} (no controller: create →
 * ADDED event only), {@code no-adverts} (the BGPAdvertisement reconciler off), {@code drain}
 * (before the one-at-a-time phase, wait until the controller's queues and Event writes are empty),
 * {@code mock-jvm} (the mock server in a JVM of its own instead of this one).
 */
public final class LbBenchmark {
  public static void main(String[] args) throws Exception {
    try {
      run(args);
    } catch (Throwable e) {
      e.printStackTrace();
      System.exit(2);
    }
  }

  private static void run(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int m = args.length > 1 ? Integer.parseInt(args[1]) : 500;
    Set<String> flags =
        new HashSet<>(Arrays.asList(args).subList(Math.min(2, args.length), args.length));
    for (var flag : flags) {
      if (!Set.of("mock-only", "no-adverts", "drain", "mock-jvm").contains(flag)) {
        throw new IllegalArgumentException(
            "unknown flag " + flag + " (mock-only, no-adverts, drain, mock-jvm)");
      }
    }
    Logger.getLogger("").setLevel(Level.WARNING);
    Arrays.stream(Logger.getLogger("").getHandlers()).forEach(h -> h.setLevel(Level.WARNING));
    System.out.printf(
        "LbBenchmark N=%d M=%d flags=%s cores=%d load average=%.2f%n",
        n,
        m,
        flags,
        Runtime.getRuntime().availableProcessors(),
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());

    Process mockProcess = null;
    io.fabric8.kubernetes.client.server.mock.KubernetesMockServer server = null;
    Config base;
    if (flags.contains("mock-jvm")) {
      mockProcess =
          Programs.processBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-Xmx2g",
                  "-XX:+UseG1GC",
                  "-cp",
                  System.getProperty("java.class.path"),
                  MockApiProcess.class.getName(),
                  "crds")
              .redirectError(ProcessBuilder.Redirect.INHERIT)
              .start();
      var out = new BufferedReader(new InputStreamReader(mockProcess.getInputStream()));
      var announced =
          MockApiProcess.Announced.read(out, line -> System.out.println("mock: " + line));
      base =
          new ConfigBuilder(Config.empty())
              .withMasterUrl(announced.url())
              .withCaCertData(announced.caCertData())
              .withNamespace("test")
              .build();
      var process = mockProcess;
      Runtime.getRuntime().addShutdownHook(new Thread(process::destroy));
    } else {
      server = MockCluster.server();
      base = server.createClient().getConfiguration();
    }
    var client = new KubernetesClientBuilder().withConfig(base).build();
    // under load a request can take long; do not give up on it
    var observer =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder(base)
                    .withRequestTimeout(300_000)
                    .withRequestRetryBackoffLimit(0)
                    .build())
            .build();
    client
        .resource(
            new AddressPool(
                "bench", new AddressPoolSpec("10.64.0.0/16", AddressType.SERVICE, null, true)))
        .create();

    if (flags.contains("mock-only")) {
      mockOnly(observer, n, m);
      System.exit(0);
    }

    var created = new ConcurrentHashMap<String, Long>();
    var acked = new ConcurrentHashMap<String, Long>();
    var seenAt = new ConcurrentHashMap<String, Long>();
    var addresses = new ConcurrentHashMap<String, String>();
    var latches = new ConcurrentHashMap<String, CountDownLatch>();
    var watch =
        observer
            .services()
            .inNamespace("bench")
            .watch(
                new Watcher<Service>() {
                  @Override
                  public void eventReceived(Action action, Service service) {
                    long now = System.nanoTime();
                    var ingress = MockCluster.ingressOf(service);
                    var name = service.getMetadata().getName();
                    if (!ingress.isEmpty()
                        && addresses.putIfAbsent(name, ingress.getFirst()) == null) {
                      seenAt.put(name, now);
                      var latch = latches.remove(name);
                      if (latch != null) {
                        latch.countDown();
                      }
                    }
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                });

    var metrics = new Metrics();
    var writes = new ConcurrentHashMap<String, Metrics.StatusWrite>();
    metrics.onServiceStatusWritten(
        w -> writes.putIfAbsent(w.key().substring(w.key().indexOf('/') + 1), w));
    var controller = new Controller(client, metrics, !flags.contains("no-adverts"));
    controller.start();

    long bulkStart = System.nanoTime();
    for (int i = 0; i < n; i++) {
      var name = "svc-" + i;
      created.put(name, System.nanoTime());
      create(observer, KubeObjects.lbService("bench", name, Map.of()).build());
      acked.put(name, System.nanoTime());
    }
    System.out.printf("bulk: %d creates took %.1f s%n", n, (System.nanoTime() - bulkStart) / 1e9);
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    while (addresses.size() < n && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    long bulkNanos = System.nanoTime() - bulkStart;
    var bulkNames = new ArrayList<>(seenAt.keySet());
    report(
        "bulk: " + n + " Services created back to back, create → address seen",
        bulkNames,
        k -> seenAt.get(k) - created.get(k),
        n);
    reportController("bulk", bulkNames, writes, n);
    System.out.printf(
        "bulk: all %d addressed in %.1f s (%.0f Services/s)%n",
        addresses.size(), bulkNanos / 1e9, addresses.size() / (bulkNanos / 1e9));

    if (flags.contains("drain")) {
      long drainStart = System.nanoTime();
      while (System.nanoTime() < deadline && !controller.drained(n)) {
        Thread.sleep(100);
      }
      Thread.sleep(1000);
      System.out.printf(
          "drain: controller queues and Event writes empty after %.1f s more%n",
          (System.nanoTime() - drainStart) / 1e9);
    }

    var single = new ArrayList<String>();
    for (int i = 0; i < m; i++) {
      var name = "one-" + i;
      var latch = new CountDownLatch(1);
      latches.put(name, latch);
      created.put(name, System.nanoTime());
      create(observer, KubeObjects.lbService("bench", name, Map.of()).build());
      acked.put(name, System.nanoTime());
      if (!latch.await(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException(name + " got no address");
      }
      single.add(name);
    }
    // the benchmark's watch can see a status before the controller has read the PATCH's response
    long settle = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!writes.keySet().containsAll(single) && System.nanoTime() < settle) {
      Thread.sleep(10);
    }
    String at = "at " + n + " existing Services, " + m + " created one at a time: ";
    report(
        at + "end to end (create → address seen)", single, k -> seenAt.get(k) - created.get(k), m);
    report(at + "  create call round trip", single, k -> acked.get(k) - created.get(k), m);
    var timed =
        single.stream()
            .filter(k -> writes.containsKey(k) && writes.get(k).receivedNanos() != 0)
            .toList();
    report(
        at + "  create → event at the Service reconciler",
        timed,
        k -> writes.get(k).receivedNanos() - created.get(k),
        m);
    reportController(at + " ", single, writes, m);
    report(
        at
            + "  PATCH acknowledged → benchmark's watch sees it (negative: seen before the controller read the response)",
        timed,
        k -> seenAt.get(k) - writes.get(k).ackedNanos(),
        m);

    var unique = new HashSet<>(addresses.values());
    System.out.printf(
        "addresses: %d Services, %d distinct addresses%s%n",
        addresses.size(), unique.size(), unique.size() == addresses.size() ? "" : "  DUPLICATES!");

    long withController = usedAfterGc();
    controller.close();
    controller = null; // its caches must be unreachable for the second measurement
    Thread.sleep(500);
    long without = usedAfterGc();
    System.out.printf(
        "controller heap (retained, after GC): %.1f MiB for %d Services (%.2f KiB per Service); JVM heap in use%s: %.1f MiB%n",
        (withController - without) / 1048576.0,
        addresses.size(),
        (withController - without) / 1024.0 / addresses.size(),
        server != null ? " with mock server" : "",
        withController / 1048576.0);
    System.out.printf(
        "load average at the end: %.2f%n",
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    watch.close();
    observer.close();
    client.close();
    if (server != null) {
      try {
        server.destroy();
      } catch (IllegalStateException e) {
        System.out.println(
            "mock server shutdown: "
                + e.getMessage()); // its watch threads are slow to stop; the figures stand
      }
    }
    if (mockProcess != null) {
      mockProcess.destroy();
    }
    System.exit(unique.size() == addresses.size() ? 0 : 1);
  }

  /**
   * The lb-mode reconcilers as {@code Reconcilers} wires them, with the advertisement reconciler
   * optional.
   */
  private static final class Controller implements AutoCloseable {
    final Informers informers;
    final Events events;
    final ClusterBgpReconciler bgp;
    final PoolReconciler pools;
    final ServiceReconciler services;
    final AdvertisementReconciler adverts;

    Controller(KubernetesClient client, Metrics metrics, boolean withAdverts) {
      informers = new Informers(client);
      events = new Events(client);
      bgp = new ClusterBgpReconciler(informers, events, metrics);
      services = new ServiceReconciler(informers, Sart.LOAD_BALANCER_CLASS, events, metrics);
      adverts =
          withAdverts
              ? new AdvertisementReconciler(
                  informers, Sart.LOAD_BALANCER_CLASS, metrics, events, services.decisions())
              : null;
      pools = new PoolReconciler(informers, events, metrics);
    }

    void start() throws Exception {
      informers.start();
      bgp.start();
      pools.start();
      services.start();
      if (adverts != null) {
        adverts.start();
      }
    }

    /** Nothing queued, no Event unsent, and (with advertisements) one per Service. */
    boolean drained(int n) {
      return services.pending() == 0
          && events.pending() == 0
          && (adverts == null
              || (adverts.pending() == 0 && informers.list(BGPAdvertisement.class).size() >= n));
    }

    @Override
    public void close() {
      if (adverts != null) {
        adverts.close();
      }
      services.close();
      pools.close();
      bgp.close();
      events.close();
      informers.close();
    }
  }

  private static void mockOnly(KubernetesClient observer, int n, int m) {
    // the mock server's own share: the same creates with no controller, then create → ADDED watch
    // event
    long t = System.nanoTime();
    for (int i = 0; i < n; i++) {
      create(observer, KubeObjects.lbService("bench", "svc-" + i, Map.of()).build());
      if ((i + 1) % Math.max(1, n / 4) == 0) {
        System.out.printf(
            "mock only: %d creates in %.1f s%n", i + 1, (System.nanoTime() - t) / 1e9);
      }
    }
    var seen = new ConcurrentHashMap<String, Long>();
    var added =
        observer
            .services()
            .inNamespace("bench")
            .watch(
                new Watcher<Service>() {
                  @Override
                  public void eventReceived(Action action, Service service) {
                    seen.putIfAbsent(service.getMetadata().getName(), System.nanoTime());
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                });
    var start = new ConcurrentHashMap<String, Long>();
    var names = new ArrayList<String>();
    for (int i = 0; i < m; i++) {
      var name = "one-" + i;
      start.put(name, System.nanoTime());
      create(observer, KubeObjects.lbService("bench", name, Map.of()).build());
      while (!seen.containsKey(name)) {
        Thread.onSpinWait();
      }
      names.add(name);
    }
    report(
        "mock only, at " + n + " Services: create → watch event",
        names,
        k -> seen.get(k) - start.get(k),
        m);
    added.close();
  }

  private static void create(KubernetesClient client, Service service) {
    try {
      client.resource(service).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e; // 409: an earlier attempt of this create went through
      }
    }
  }

  /**
   * The controller's share per Service: queue wait, allocation, event → PATCH sent, PATCH round
   * trip.
   */
  private static void reportController(
      String what, List<String> names, Map<String, Metrics.StatusWrite> writes, int expected) {
    var with =
        names.stream()
            .filter(k -> writes.containsKey(k) && writes.get(k).receivedNanos() != 0)
            .toList();
    report(
        what + " controller: event → reconcile start (queue wait)",
        with,
        k -> writes.get(k).startNanos() - writes.get(k).receivedNanos(),
        expected);
    report(
        what + " controller: reconcile start → PATCH sent (allocation, wait for a write slot)",
        with,
        k -> writes.get(k).sentNanos() - writes.get(k).startNanos(),
        expected);
    report(
        what + " controller's own: event → PATCH sent",
        with,
        k -> writes.get(k).sentNanos() - writes.get(k).receivedNanos(),
        expected);
    report(
        what + " controller: PATCH round trip",
        with,
        k -> writes.get(k).ackedNanos() - writes.get(k).sentNanos(),
        expected);
    report(
        what + " controller: event → PATCH acknowledged",
        with,
        k -> writes.get(k).ackedNanos() - writes.get(k).receivedNanos(),
        expected);
  }

  private static void report(
      String what, List<String> names, ToLongFunction<String> nanos, int expected) {
    var sorted = names.stream().mapToLong(nanos).sorted().toArray();
    if (sorted.length == 0) {
      System.out.println(what + ": no samples");
      return;
    }
    System.out.printf(
        "%s: n=%d p50=%.2f ms p90=%.2f ms p99=%.2f ms max=%.2f ms%s%n",
        what,
        sorted.length,
        pct(sorted, 50),
        pct(sorted, 90),
        pct(sorted, 99),
        sorted[sorted.length - 1] / 1e6,
        sorted.length == expected ? "" : " (missing " + (expected - sorted.length) + ")");
  }

  private static double pct(long[] sorted, int p) {
    int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e6;
  }

  private static long usedAfterGc() throws InterruptedException {
    var memory = ManagementFactory.getMemoryMXBean();
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(200);
    }
    return memory.getHeapMemoryUsage().getUsed();
  }
}
