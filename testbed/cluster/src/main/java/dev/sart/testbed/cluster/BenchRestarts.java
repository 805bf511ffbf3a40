package dev.sart.testbed.cluster;

import static dev.sart.testbed.cluster.BenchOutput.load;
import static dev.sart.testbed.cluster.BenchOutput.row;
import static dev.sart.testbed.cluster.BenchOutput.say;
import static dev.sart.testbed.cluster.BenchOutput.secs;
import static dev.sart.testbed.cluster.BenchOutput.step;
import static org.awaitility.Awaitility.await;

import dev.sart.testbed.Frr;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * ClusterBench's restart phase: {@code sartd node} on node1 killed (SIGKILL) and started again
 * while the ToRs run graceful restart (RFC 4724): what a user gets is the route never leaving the
 * ToRs' kernels (FRR keeps node1's path, stale, through the restart), and how long the ToRs take to
 * see the new session's OPEN, the route refreshed by an UPDATE, the End-of-RIB (RFC 4724 §2), and
 * the stale flag gone from node1's path ({@code show bgp ipv4 unicast PREFIX json}, polled: its
 * granularity is one vtysh call).
 */
final class BenchRestarts {
  private static final Duration BACK = Duration.ofSeconds(120);

  private BenchRestarts() {}

  static void run(
      Cluster cluster,
      BenchSettings s,
      String ip,
      RouteWatch w1,
      RouteWatch w2,
      RouteWatch u1,
      RouteWatch u2,
      Supplier<Map<String, String>> addresses) {
    step(
        "%d times: sartd node on node1 killed (SIGKILL) and started again (graceful restart)",
        s.restarts());
    ClusterNode n1 = cluster.nodes().get(0);
    Frr tor1 = cluster.tors().get(0);
    Frr tor2 = cluster.tors().get(1);
    String prefix = ip + "/32";
    List<Long> toOpen = new ArrayList<>();
    List<Long> openToUpdate = new ArrayList<>();
    List<Long> openToEor = new ArrayList<>();
    List<Long> toFresh = new ArrayList<>();
    int removed = 0;
    for (int i = 0; i < s.restarts(); i++) {
      Map<String, String> before = addresses.get();
      w1.clear();
      w2.clear();
      u1.clear();
      u2.clear();
      long t0 = System.nanoTime();
      ProcessHandle.of(n1.process().pid()).ifPresent(ProcessHandle::destroyForcibly);
      await("sartd node gone").atMost(Duration.ofSeconds(30)).until(() -> !n1.process().isAlive());
      // FRR marks node1's path stale once the session is gone (the kernel closed its socket)
      var fresh1 = CompletableFuture.supplyAsync(() -> freshAt(tor1, prefix, n1.internalIp()));
      var fresh2 = CompletableFuture.supplyAsync(() -> freshAt(tor2, prefix, n1.addressB()));
      cluster.startSartd(n1, "sartd-node-bench-" + i);
      OptionalLong o1 = u1.await("OPEN " + n1.internalIp(), false, t0, BACK);
      OptionalLong o2 = u2.await("OPEN " + n1.addressB(), false, t0, BACK);
      OptionalLong x1 = u1.await(ip, false, t0, BACK);
      OptionalLong x2 = u2.await(ip, false, t0, BACK);
      OptionalLong e1 = u1.await("EOR " + n1.internalIp(), false, t0, BACK);
      OptionalLong e2 = u2.await("EOR " + n1.addressB(), false, t0, BACK);
      long f1 = fresh1.join();
      long f2 = fresh2.join();
      // every kernel event for the prefix since the kill is in the watches by now
      boolean kept =
          w1.await(ip, true, t0, Duration.ZERO).isEmpty()
              && w2.await(ip, true, t0, Duration.ZERO).isEmpty()
              && TorRoutes.fibNextHops(tor1, prefix).contains(n1.internalIp())
              && TorRoutes.fibNextHops(tor2, prefix).contains(n1.addressB());
      if (!kept) {
        removed++;
      }
      long open = 0;
      if (o1.isPresent() && o2.isPresent()) {
        open = Math.max(o1.getAsLong(), o2.getAsLong());
        toOpen.add(open - t0);
        if (x1.isPresent() && x2.isPresent()) {
          openToUpdate.add(Math.max(x1.getAsLong(), x2.getAsLong()) - open);
        }
        if (e1.isPresent() && e2.isPresent()) {
          openToEor.add(Math.max(e1.getAsLong(), e2.getAsLong()) - open);
        }
      }
      if (f1 > 0 && f2 > 0) {
        toFresh.add(Math.max(f1, f2) - t0);
      }
      Map<String, String> after = addresses.get();
      say(
          "  restart %d: route %s both ToRs' kernels; OPEN %s, UPDATE %s, End-of-RIB %s, stale"
              + " flag %s; addresses %s",
          i,
          kept ? "stayed in" : "LEFT one of",
          seen(o1, o2),
          seen(x1, x2),
          seen(e1, e2),
          f1 > 0 && f2 > 0
              ? "cleared after " + secsOf(Math.max(f1, f2) - t0)
              : "NOT seen set and cleared",
          after.equals(before)
              ? "unchanged (" + after.size() + ")"
              : "CHANGED " + before + " → " + after);
    }
    row(
        "sartd node killed → its new OPEN received by both ToRs (JVM start, agent, speaker)",
        toOpen);
    row("  OPEN → UPDATE refreshing the route received by both ToRs", openToUpdate);
    row("  OPEN → End-of-RIB received by both ToRs", openToEor);
    row("**sartd node killed → node1's path no longer stale on both ToRs (FRR)**", toFresh);
    say(
        "  the route left a ToR's kernel in %d of %d restarts (graceful restart keeps it); load %s",
        removed, s.restarts(), load());
  }

  private static String seen(OptionalLong a, OptionalLong b) {
    return a.isPresent() && b.isPresent() ? "seen" : "MISSING";
  }

  private static String secsOf(long nanos) {
    return String.format("%.2f s", secs(nanos));
  }

  /**
   * When the ToR's path for {@code prefix} from {@code peer} was first seen without FRR's stale
   * flag after having been seen with it (polled); 0 when not within {@link #BACK}.
   */
  private static long freshAt(Frr tor, String prefix, String peer) {
    long deadline = System.nanoTime() + BACK.toNanos();
    boolean wasStale = false;
    while (System.nanoTime() < deadline) {
      Boolean stale = TorRoutes.stale(tor, prefix, peer);
      if (Boolean.TRUE.equals(stale)) {
        wasStale = true;
      } else if (wasStale && Boolean.FALSE.equals(stale)) {
        return System.nanoTime();
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return 0;
      }
    }
    return 0;
  }
}
