package dev.sart.controller.bench;

import dev.sart.controller.ControllerConfig;
import dev.sart.controller.MockCluster;
import dev.sart.controller.Mode;
import dev.sart.controller.SartController;
import dev.sart.controller.runtime.Metrics;
import dev.sart.crds.AddressPool;
import dev.sart.crds.AddressPoolSpec;
import dev.sart.crds.AddressType;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Benchmark program (not a test): N LoadBalancer Services in one pool against fabric8's mock API
 * server (CRUD mode, same JVM), the controller in lb mode. Measures, per Service, the time from the
 * create call to the watch event that shows its address in status:
 * <ol>
 *   <li>bulk: N Services created back to back (throughput and queueing);</li>
 *   <li>at N existing Services: M more created one at a time (latency of one allocation).</li>
 * </ol>
 * Also the controller's retained heap: heap after GC with the controller running minus heap after
 * GC once it is closed (the mock server's own copy of the objects cancels out). Every address is
 * checked to be unique. Args: {@code [N=10000] [M=500]}.
 */
public final class LbBenchmark {
  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int m = args.length > 1 ? Integer.parseInt(args[1]) : 500;
    Logger.getLogger("").setLevel(Level.WARNING);
    Arrays.stream(Logger.getLogger("").getHandlers()).forEach(h -> h.setLevel(Level.WARNING));

    var server = MockCluster.server();
    var client = server.createClient();
    // the mock server has one event loop: under load a request can take long; do not give up on it
    var observer = new io.fabric8.kubernetes.client.KubernetesClientBuilder()
        .withConfig(new io.fabric8.kubernetes.client.ConfigBuilder(server.createClient().getConfiguration())
            .withRequestTimeout(300_000).withRequestRetryBackoffLimit(0).build())
        .build();
    client.resource(new AddressPool("bench", new AddressPoolSpec("10.64.0.0/16", AddressType.SERVICE, null, true))).create();

    var created = new ConcurrentHashMap<String, Long>();
    var latency = new ConcurrentHashMap<String, Long>();
    var addresses = new ConcurrentHashMap<String, String>();
    var latches = new ConcurrentHashMap<String, CountDownLatch>();
    var watch = observer.services().inNamespace("bench").watch(new Watcher<Service>() {
      @Override
      public void eventReceived(Action action, Service service) {
        long now = System.nanoTime();
        var ingress = MockCluster.ingressOf(service);
        var name = service.getMetadata().getName();
        if (!ingress.isEmpty() && addresses.putIfAbsent(name, ingress.getFirst()) == null) {
          var start = created.get(name);
          if (start != null) {
            latency.put(name, now - start);
          }
          var latch = latches.remove(name);
          if (latch != null) {
            latch.countDown();
          }
        }
      }

      @Override
      public void onClose(WatcherException cause) {}
    });

    var config = ControllerConfig.defaults("bench").withMode(Mode.LB);
    config = new ControllerConfig(config.mode(), config.loadBalancerClass(), false, config.leaseNamespace(), config.leaseName(),
        config.identity(), config.leaseDuration(), config.renewDeadline(), config.retryPeriod());
    var controller = new SartController(client, config, new Metrics());
    if (args.length > 2 && args[2].equals("mock-only")) {
      // the mock server's own share: the same creates with no controller, then create → ADDED watch event
      long t = System.nanoTime();
      for (int i = 0; i < n; i++) {
        create(observer, MockCluster.lbService("bench", "svc-" + i, Map.of()).build());
        if ((i + 1) % (n / 4) == 0) {
          System.out.printf("mock only: %d creates in %.1f s%n", i + 1, (System.nanoTime() - t) / 1e9);
        }
      }
      var seen = new ConcurrentHashMap<String, Long>();
      var added = observer.services().inNamespace("bench").watch(new Watcher<Service>() {
        @Override
        public void eventReceived(Action action, Service service) {
          seen.putIfAbsent(service.getMetadata().getName(), System.nanoTime());
        }

        @Override
        public void onClose(WatcherException cause) {}
      });
      var round = new long[m];
      for (int i = 0; i < m; i++) {
        var name = "one-" + i;
        long start = System.nanoTime();
        create(observer, MockCluster.lbService("bench", name, Map.of()).build());
        while (!seen.containsKey(name)) {
          Thread.onSpinWait();
        }
        round[i] = seen.get(name) - start;
      }
      Arrays.sort(round);
      report("mock only, at " + n + " Services: create → watch event", round, m);
      added.close();
      System.exit(0);
    }
    controller.start();

    long bulkStart = System.nanoTime();
    for (int i = 0; i < n; i++) {
      var name = "svc-" + i;
      var service = MockCluster.lbService("bench", name, Map.of()).build();
      created.put(name, System.nanoTime());
      create(observer, service);
    }
    System.out.printf("bulk: %d creates took %.1f s%n", n, (System.nanoTime() - bulkStart) / 1e9);
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    while (addresses.size() < n && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    long bulkNanos = System.nanoTime() - bulkStart;
    var bulk = latency.values().stream().mapToLong(Long::longValue).sorted().toArray();
    report("bulk: " + n + " Services created back to back", bulk, n);
    System.out.printf("bulk: all %d addressed in %.1f s (%.0f Services/s)%n", addresses.size(), bulkNanos / 1e9,
        addresses.size() / (bulkNanos / 1e9));

    var single = new long[m];
    for (int i = 0; i < m; i++) {
      var name = "one-" + i;
      var latch = new CountDownLatch(1);
      latches.put(name, latch);
      created.put(name, System.nanoTime());
      create(observer, MockCluster.lbService("bench", name, Map.of()).build());
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException(name + " got no address");
      }
      single[i] = latency.get(name);
    }
    Arrays.sort(single);
    report("at " + n + " existing Services: " + m + " created one at a time", single, m);

    var unique = new HashSet<>(addresses.values());
    System.out.printf("addresses: %d Services, %d distinct addresses%s%n", addresses.size(), unique.size(),
        unique.size() == addresses.size() ? "" : "  DUPLICATES!");

    long withController = usedAfterGc();
    controller.close();
    Thread.sleep(500);
    long without = usedAfterGc();
    System.out.printf("controller heap (retained, after GC): %.1f MiB for %d Services (%.2f KiB per Service); JVM heap in use with mock server: %.1f MiB%n",
        (withController - without) / 1048576.0, addresses.size(), (withController - without) / 1024.0 / addresses.size(),
        withController / 1048576.0);
    watch.close();
    observer.close();
    client.close();
    server.destroy();
    System.exit(unique.size() == addresses.size() ? 0 : 1);
  }

  private static void create(io.fabric8.kubernetes.client.KubernetesClient client, Service service) {
    try {
      client.resource(service).create();
    } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e; // 409: an earlier attempt of this create went through
      }
    }
  }

  private static void report(String what, long[] sortedNanos, int expected) {
    if (sortedNanos.length == 0) {
      System.out.println(what + ": no samples");
      return;
    }
    System.out.printf("%s: n=%d p50=%.1f ms p90=%.1f ms p99=%.1f ms max=%.1f ms%s%n", what, sortedNanos.length,
        pct(sortedNanos, 50), pct(sortedNanos, 90), pct(sortedNanos, 99), sortedNanos[sortedNanos.length - 1] / 1e6,
        sortedNanos.length == expected ? "" : " (missing " + (expected - sortedNanos.length) + ")");
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
