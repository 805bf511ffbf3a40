package dev.sart.fib.netlink;

import dev.sart.net.Ip;
import dev.sart.net.IpPrefix;
import dev.sart.testbed.Node;
import dev.sart.testbed.Shell;
import dev.sart.testbed.Topology;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * Installs then deletes 100,000 IPv4 routes and 10,000 IPv4 ECMP routes (four weighted next hops)
 * in a fresh namespace, with this library's batches and with {@code ip -batch}, in the same run,
 * and prints the times and their ratio. Not a test: a program (see fib/README.md).
 *
 * <p>Only documentation prefixes are used: every prefix of length 24 to 32 inside 192.0.2.0/24,
 * 198.51.100.0/24 and 203.0.113.0/24 (1,533 of them), each with as many metrics as it takes to
 * reach the count, in one table.
 *
 * <pre>
 * ./mvnw -B -q -pl fib -am -Pbench -DskipTests test       (as root)
 * options: -Dbench.routes=100000 -Dbench.ecmp=10000 -Dbench.rounds=3 -Dbench.warmup=true
 * </pre>
 */
public final class RouteBenchmark {
  private static final int TABLE = 100;
  private static final int ECMP_TABLE = 101;
  private static final String[] GATEWAYS = {"192.0.2.1", "192.0.2.2", "192.0.2.3", "192.0.2.4"};

  private RouteBenchmark() {}

  /** One phase's timings, in milliseconds per round. */
  private record Phase(String name, List<Double> ip, List<Double> lib) {
    double median(List<Double> xs) {
      double[] a = xs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
      return a[a.length / 2];
    }
  }

  public static void main(String[] args) throws Exception {
    int plain = Integer.getInteger("bench.routes", 100_000);
    int ecmp = Integer.getInteger("bench.ecmp", 10_000);
    int rounds = Integer.getInteger("bench.rounds", 3);
    boolean warmup = !"false".equals(System.getProperty("bench.warmup"));
    try (Topology t = Topology.create("route-benchmark")) {
      Node node = t.node("bench");
      try (Netns ns = Netns.named(node.netns());
          Netlink nl = Netlink.open(ns)) {
        nl.links().addVeth("v0", "v1");
        nl.links().setUp("v0");
        nl.links().setUp("v1");
        int v0 = nl.links().get("v0").index();
        nl.addresses().add(Address.of(v0, "192.0.2.254/24"));

        List<Route> single = routes(plain, TABLE, i -> List.of(NextHop.via(GATEWAYS[i % 4], v0)));
        List<Route> multi =
            routes(
                ecmp,
                ECMP_TABLE,
                i ->
                    List.of(
                        NextHop.via(GATEWAYS[0], v0).withWeight(1),
                        NextHop.via(GATEWAYS[1], v0).withWeight(2),
                        NextHop.via(GATEWAYS[2], v0).withWeight(3),
                        NextHop.via(GATEWAYS[3], v0).withWeight(4)));
        Path singleAdd = ipBatch(t.dir(), "single-add", single, "add");
        Path singleDel = ipBatch(t.dir(), "single-del", single, "del");
        Path multiAdd = ipBatch(t.dir(), "ecmp-add", multi, "add");
        Path multiDel = ipBatch(t.dir(), "ecmp-del", multi, "del");

        System.out.printf(
            Locale.ROOT,
            "route benchmark: %d routes, %d ECMP routes (4 next hops), %d rounds%s, JDK %s, kernel %s%n",
            plain,
            ecmp,
            rounds,
            warmup ? "" : ", no warm-up",
            Runtime.version(),
            System.getProperty("os.version"));
        // warm-up (not counted): the JIT compiles the codec as a long-running daemon would have
        if (warmup) {
          runLibrary(nl, single, TABLE, true);
          runLibrary(nl, single, TABLE, false);
        }

        List<Phase> phases =
            List.of(
                new Phase(plain + " routes: install", new ArrayList<>(), new ArrayList<>()),
                new Phase(plain + " routes: delete", new ArrayList<>(), new ArrayList<>()),
                new Phase(ecmp + " ECMP routes: install", new ArrayList<>(), new ArrayList<>()),
                new Phase(ecmp + " ECMP routes: delete", new ArrayList<>(), new ArrayList<>()));
        for (int round = 1; round <= rounds; round++) {
          phases.get(0).ip().add(runIp(node, nl, singleAdd, TABLE, plain));
          phases.get(1).ip().add(runIp(node, nl, singleDel, TABLE, 0));
          phases.get(0).lib().add(runLibrary(nl, single, TABLE, true));
          phases.get(1).lib().add(runLibrary(nl, single, TABLE, false));
          phases.get(2).ip().add(runIp(node, nl, multiAdd, ECMP_TABLE, ecmp));
          phases.get(3).ip().add(runIp(node, nl, multiDel, ECMP_TABLE, 0));
          phases.get(2).lib().add(runLibrary(nl, multi, ECMP_TABLE, true));
          phases.get(3).lib().add(runLibrary(nl, multi, ECMP_TABLE, false));
        }

        System.out.printf(
            Locale.ROOT,
            "%-28s %14s %14s %8s%n",
            "phase (median of rounds)",
            "ip -batch ms",
            "library ms",
            "ratio");
        double ipTotal = 0;
        double libTotal = 0;
        for (Phase p : phases) {
          double ip = p.median(p.ip());
          double lib = p.median(p.lib());
          ipTotal += ip;
          libTotal += lib;
          System.out.printf(
              Locale.ROOT, "%-28s %14.0f %14.0f %8.2f%n", p.name(), ip, lib, lib / ip);
        }
        System.out.printf(
            Locale.ROOT,
            "%-28s %14.0f %14.0f %8.2f   (library / ip -batch; target <= 1.20)%n",
            "total",
            ipTotal,
            libTotal,
            libTotal / ipTotal);
      }
    }
  }

  /**
   * {@code n} routes in {@code table}: every prefix of length 24..32 in the three documentation
   * /24s, with metrics 1, 2, ... until there are enough.
   */
  static List<Route> routes(int n, int table, Function<Integer, List<NextHop>> hops) {
    List<IpPrefix> prefixes = DocumentationPrefixes.ipv4();
    List<Route> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int metric = 1 + i / prefixes.size();
      out.add(
          Route.of(prefixes.get(i % prefixes.size()))
              .table(table)
              .protocol(Rtnl.RTPROT_BGP)
              .metric(metric)
              .nextHops(hops.apply(i))
              .build());
    }
    return out;
  }

  /** The same routes as {@code ip -batch} lines. */
  private static Path ipBatch(Path dir, String name, List<Route> routes, String verb)
      throws IOException {
    StringBuilder sb = new StringBuilder();
    for (Route r : routes) {
      sb.append("route ")
          .append(verb)
          .append(' ')
          .append(r.destination())
          .append(" table ")
          .append(r.table())
          .append(" proto ")
          .append(r.protocol())
          .append(" metric ")
          .append(r.metric());
      if (r.nextHops().size() == 1) {
        sb.append(" via ").append(Ip.format(r.nextHops().getFirst().gateway())).append(" dev v0");
      } else {
        for (NextHop h : r.nextHops()) {
          sb.append(" nexthop via ")
              .append(Ip.format(h.gateway()))
              .append(" dev v0 weight ")
              .append(h.weight());
        }
      }
      sb.append('\n');
    }
    Path file = dir.resolve(name + ".batch");
    Files.writeString(file, sb);
    return file;
  }

  private static double runIp(Node node, Netlink nl, Path batch, int table, int expected) {
    long start = System.nanoTime();
    Shell.run("ip", "-n", node.netns(), "-batch", batch.toString());
    double ms = (System.nanoTime() - start) / 1e6;
    check(nl, table, expected, "ip -batch " + batch.getFileName());
    return ms;
  }

  private static double runLibrary(Netlink nl, List<Route> routes, int table, boolean install) {
    long start = System.nanoTime();
    Batch b = nl.batch();
    for (Route r : routes) {
      if (install) {
        b.addRoute(r);
      } else {
        b.deleteRoute(r);
      }
    }
    b.execute().throwIfFailed();
    double ms = (System.nanoTime() - start) / 1e6;
    check(nl, table, install ? routes.size() : 0, "library " + (install ? "install" : "delete"));
    return ms;
  }

  private static void check(Netlink nl, int table, int expected, String what) {
    int n = nl.routes().list(table).size();
    if (n != expected) {
      throw new IllegalStateException(
          what + ": table " + table + " holds " + n + " routes, expected " + expected);
    }
  }
}
