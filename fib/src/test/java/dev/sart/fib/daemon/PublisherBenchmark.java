package dev.sart.fib.daemon;

import dev.sart.fib.netlink.Address;
import dev.sart.fib.netlink.Family;
import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.Netns;
import dev.sart.fib.netlink.NextHop;
import dev.sart.fib.netlink.RouteFilter;
import dev.sart.fib.netlink.Rtnl;
import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import dev.sart.testbed.Node;
import dev.sart.testbed.Shell;
import dev.sart.testbed.Topology;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The daemon's install path against {@code ip -batch}: a {@link KernelPublisher} installs then
 * deletes 100,000 IPv4 routes and 10,000 ECMP routes (four next hops) in a fresh namespace, as a
 * channel's changes (one {@code apply} with every change), and {@code ip -batch} does the same with
 * {@code route replace} / {@code route del} lines, in the same run. Not a test: a program (see
 * fib/README.md).
 *
 * <p>A channel holds one route per destination, and only 1,533 IPv4 prefixes fit in the
 * documentation ranges (every prefix of length 24..32 of the three /24s), so the publisher writes
 * them into as many tables as it takes (66 tables for 100,000 routes, 7 for 10,000).
 *
 * <pre>
 * ./mvnw -B -q -pl fib -am -Pbench -DskipTests test       (as root; runs RouteBenchmark too)
 * </pre>
 */
public final class PublisherBenchmark {
  private static final String[] GATEWAYS = {"192.0.2.1", "192.0.2.2", "192.0.2.3", "192.0.2.4"};
  private static final int FIRST_TABLE = 1000;

  /** Held so that its level is not lost with a collected logger. */
  private static final java.util.logging.Logger QUIET =
      java.util.logging.Logger.getLogger("dev.sart.fib.daemon");

  private PublisherBenchmark() {}

  static List<IpPrefix> prefixes() {
    List<IpPrefix> out = new ArrayList<>();
    for (String base : List.of("192.0.2.", "198.51.100.", "203.0.113.")) {
      for (int len = 24; len <= 32; len++) {
        for (int host = 0; host < 256; host += 1 << (32 - len)) {
          out.add(IpPrefix.parse(base + host + "/" + len));
        }
      }
    }
    return out;
  }

  private record Case(String name, int tables, Map<IpPrefix, ChannelRoute> routes, int firstTable) {
    int count() {
      return tables * routes.size();
    }

    List<Integer> tableIds() {
      List<Integer> t = new ArrayList<>();
      for (int i = 0; i < tables; i++) {
        t.add(firstTable + i);
      }
      return t;
    }
  }

  public static void main(String[] args) throws Exception {
    int plain = Integer.getInteger("bench.routes", 100_000);
    int ecmp = Integer.getInteger("bench.ecmp", 10_000);
    int rounds = Integer.getInteger("bench.rounds", 3);
    // one "reconciled" line per table and round would drown the figures
    QUIET.setLevel(java.util.logging.Level.WARNING);
    List<IpPrefix> prefixes = prefixes();
    Map<IpPrefix, ChannelRoute> single = new HashMap<>();
    Map<IpPrefix, ChannelRoute> multi = new HashMap<>();
    for (int i = 0; i < prefixes.size(); i++) {
      IpPrefix p = prefixes.get(i);
      single.put(
          p,
          new ChannelRoute(
              p, List.of(NextHop.via(GATEWAYS[i % 4])), Distance.EBGP, Rtnl.RTPROT_BGP, "bench"));
      multi.put(
          p,
          new ChannelRoute(
              p,
              List.of(GATEWAYS).stream().map(NextHop::via).toList(),
              Distance.EBGP,
              Rtnl.RTPROT_BGP,
              "bench"));
    }
    int tablesOne = (plain + prefixes.size() - 1) / prefixes.size();
    int tablesMany = (ecmp + prefixes.size() - 1) / prefixes.size();
    Case one = new Case(tablesOne * prefixes.size() + " routes", tablesOne, single, FIRST_TABLE);
    Case many =
        new Case(
            tablesMany * prefixes.size() + " ECMP routes", tablesMany, multi, FIRST_TABLE + 500);
    try (Topology t = Topology.create("publisher-benchmark")) {
      Node node = t.node("bench");
      try (Netns ns = Netns.named(node.netns());
          Netlink nl = Netlink.open(ns)) {
        nl.links().addVeth("v0", "v1");
        nl.links().setUp("v0");
        nl.links().setUp("v1");
        nl.addresses().add(Address.of(nl.links().get("v0").index(), "192.0.2.254/24"));
        System.out.printf(
            Locale.ROOT,
            "publisher benchmark: %d routes in %d tables, %d ECMP routes (4 next hops) in %d "
                + "tables, %d rounds, JDK %s, kernel %s%n",
            one.count(),
            one.tables(),
            many.count(),
            many.tables(),
            rounds,
            Runtime.version(),
            System.getProperty("os.version"));
        Map<String, List<double[]>> times = new java.util.LinkedHashMap<>();
        // warm-up round, not counted
        for (int round = 0; round <= rounds; round++) {
          for (Case c : List.of(one, many)) {
            double[] ip = runIp(node, nl, t.dir(), c);
            double[] daemon = runPublisher(nl, c);
            if (round > 0) {
              times
                  .computeIfAbsent(c.name() + ": install", k -> new ArrayList<>())
                  .add(new double[] {ip[0], daemon[0]});
              times
                  .computeIfAbsent(c.name() + ": delete", k -> new ArrayList<>())
                  .add(new double[] {ip[1], daemon[1]});
            }
          }
        }
        System.out.printf(
            Locale.ROOT,
            "%-28s %14s %14s %8s%n",
            "phase (median of rounds)",
            "ip -batch ms",
            "daemon ms",
            "ratio");
        double ipTotal = 0;
        double dTotal = 0;
        for (Map.Entry<String, List<double[]>> e : times.entrySet()) {
          double ip = median(e.getValue(), 0);
          double d = median(e.getValue(), 1);
          ipTotal += ip;
          dTotal += d;
          System.out.printf(Locale.ROOT, "%-28s %14.0f %14.0f %8.2f%n", e.getKey(), ip, d, d / ip);
        }
        System.out.printf(
            Locale.ROOT,
            "%-28s %14.0f %14.0f %8.2f   (daemon / ip -batch; target <= 1.20)%n",
            "total",
            ipTotal,
            dTotal,
            dTotal / ipTotal);
      }
    }
  }

  private static double median(List<double[]> xs, int i) {
    double[] a = xs.stream().mapToDouble(x -> x[i]).sorted().toArray();
    return a[a.length / 2];
  }

  /** Install then delete through a publisher; returns the two times in ms. */
  private static double[] runPublisher(Netlink nl, Case c) {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    KernelPublisher p =
        new KernelPublisher(
            "bench",
            Set.of(Family.INET),
            c.tableIds(),
            Rtnl.RTPROT_BGP,
            nl,
            new FibMetrics(registry));
    List<ChannelRib.Change> add = new ArrayList<>();
    List<ChannelRib.Change> del = new ArrayList<>();
    c.routes()
        .forEach(
            (prefix, r) -> {
              add.add(new ChannelRib.Change(prefix, r));
              del.add(new ChannelRib.Change(prefix, null));
            });
    p.reconcile(Map.of()); // the start-up reconcile of an empty channel (dumps the empty tables)
    long start = System.nanoTime();
    p.apply(add);
    double install = (System.nanoTime() - start) / 1e6;
    check(nl, c, c.routes().size(), "daemon install", p);
    start = System.nanoTime();
    p.apply(del);
    double delete = (System.nanoTime() - start) / 1e6;
    check(nl, c, 0, "daemon delete", p);
    return new double[] {install, delete};
  }

  private static double[] runIp(Node node, Netlink nl, Path dir, Case c) throws IOException {
    StringBuilder add = new StringBuilder();
    StringBuilder del = new StringBuilder();
    for (int table : c.tableIds()) {
      for (ChannelRoute r : c.routes().values()) {
        String head =
            " " + r.destination() + " table " + table + " proto 186 metric " + r.distance();
        StringBuilder hops = new StringBuilder();
        if (r.nextHops().size() == 1) {
          hops.append(" via ").append(Ip.format(r.nextHops().getFirst().gateway()));
        } else {
          r.nextHops().forEach(h -> hops.append(" nexthop via ").append(Ip.format(h.gateway())));
        }
        add.append("route replace").append(head).append(hops).append('\n');
        del.append("route del").append(head).append(hops).append('\n');
      }
    }
    Path addFile = Files.writeString(dir.resolve("add.batch"), add);
    Path delFile = Files.writeString(dir.resolve("del.batch"), del);
    long start = System.nanoTime();
    Shell.run("ip", "-n", node.netns(), "-batch", addFile.toString());
    double install = (System.nanoTime() - start) / 1e6;
    check(nl, c, c.routes().size(), "ip -batch install", null);
    start = System.nanoTime();
    Shell.run("ip", "-n", node.netns(), "-batch", delFile.toString());
    double delete = (System.nanoTime() - start) / 1e6;
    check(nl, c, 0, "ip -batch delete", null);
    return new double[] {install, delete};
  }

  private static void check(Netlink nl, Case c, int perTable, String what, KernelPublisher p) {
    for (int table : c.tableIds()) {
      int n =
          nl.routes()
              .list(RouteFilter.ALL.family(Family.INET).table(table).protocol(Rtnl.RTPROT_BGP))
              .size();
      if (n != perTable) {
        throw new IllegalStateException(
            what + ": table " + table + " holds " + n + " routes, expected " + perTable);
      }
    }
    if (p != null && p.needsReconcile()) {
      throw new IllegalStateException(what + ": the publisher saw netlink errors");
    }
  }
}
