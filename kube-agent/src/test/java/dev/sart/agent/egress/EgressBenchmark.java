package dev.sart.agent.egress;

import static dev.sart.agent.egress.EgressTopology.*;

import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.Netns;
import dev.sart.testbed.Node;
import dev.sart.testbed.Topology;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * The egress data path's cost, measured (a program, not a test; as root): the same TCP traffic from
 * a pod through the gateway (VXLAN to the egress pod, SNAT to the static address) and from a pod
 * that goes direct, to the same server, in one run:
 *
 * <ul>
 *   <li>throughput: {@code bench.megabytes} MiB written in 64 KiB chunks, {@code bench.rounds}
 *       rounds alternating the two paths; the medians and their ratio;
 *   <li>latency: {@code bench.pings} 1-byte request/response exchanges on one connection; p50 and
 *       p99 of each path and the added latency;
 *   <li>tunnel set-up per client pod: {@link ClientTunnels#apply} into {@code bench.pods} fresh pod
 *       namespaces, and the gateway's per-client entries ({@link GatewayTunnel#clients}).
 * </ul>
 *
 * <pre>
 * ./mvnw -B -o -pl kube-agent -am -Pegress-bench -DskipTests verify
 * </pre>
 */
public final class EgressBenchmark {
  private EgressBenchmark() {}

  private static final int MIB = 1 << 20;

  public static void main(String[] args) throws Exception {
    int megabytes = Integer.getInteger("bench.megabytes", 256);
    int rounds = Integer.getInteger("bench.rounds", 5);
    int pings = Integer.getInteger("bench.pings", 10_000);
    int pods = Integer.getInteger("bench.pods", 20);
    System.out.println("load before: " + load());
    try (var t = Topology.create("egress-bench");
        var x = new EgressTopology(t)) {
      x.kubeProxy(GW1);
      x.node.exec("ip", "route", "replace", STATIC + "/32", "via", GW1);
      var gwNs = Netns.named(x.gw1.netns());
      var gwNl = Netlink.open(gwNs);
      var tunnel = new GatewayTunnel(gwNl, UPLINK, VNI, 4789);
      gwNs.run(
          () -> {
            tunnel.setUp();
            return null;
          });
      tunnel.clients(Set.of(InetAddress.getByName(CLIENT)));
      EgressTopology.nat(x.gw1).apply(UPLINK, InetAddress.getByName(STATIC), List.of());
      var clientNs = Netns.named(x.client.netns());
      try (var nl = Netlink.open(clientNs)) {
        ClientTunnels.apply(
            nl,
            InetAddress.getByName(CLIENT),
            UPLINK,
            egressVia(EGRESS_CLUSTER_IP, List.of(DESTINATIONS)));
      }
      try (var sink = sink(x.server.netns(), 7100);
          var echo = echo(x.server.netns(), 7101)) {
        // warm-up: JIT and conntrack on both paths
        throughput(x.client.netns(), 32);
        throughput(x.plain.netns(), 32);
        latencies(x.client.netns(), 2000);
        latencies(x.plain.netns(), 2000);

        double[] via = new double[rounds];
        double[] direct = new double[rounds];
        for (int i = 0; i < rounds; i++) {
          via[i] = throughput(x.client.netns(), megabytes);
          direct[i] = throughput(x.plain.netns(), megabytes);
        }
        double viaMbs = median(via);
        double directMbs = median(direct);
        System.out.printf(
            "throughput (%d MiB x %d rounds, median): through the gateway %.0f MiB/s, direct %.0f"
                + " MiB/s, ratio %.2f%n",
            megabytes, rounds, viaMbs, directMbs, viaMbs / directMbs);

        long[] lv = latencies(x.client.netns(), pings);
        long[] ld = latencies(x.plain.netns(), pings);
        System.out.printf(
            "round trip (%d exchanges): through the gateway p50 %d us p99 %d us; direct p50 %d us"
                + " p99 %d us; added p50 %d us p99 %d us%n",
            pings,
            pct(lv, 50),
            pct(lv, 99),
            pct(ld, 50),
            pct(ld, 99),
            pct(lv, 50) - pct(ld, 50),
            pct(lv, 99) - pct(ld, 99));
      }

      // tunnel set-up per client pod
      long[] setup = new long[pods];
      long[] gateway = new long[pods];
      var clients = new java.util.HashSet<InetAddress>(Set.of(InetAddress.getByName(CLIENT)));
      for (int i = 0; i < pods; i++) {
        String address = "203.0.113." + (40 + i);
        Node pod = x.pod("bp" + i, address);
        try (var ns = Netns.named(pod.netns());
            var nl = Netlink.open(ns)) {
          var egresses = egressVia(EGRESS_CLUSTER_IP, List.of(DESTINATIONS));
          long t0 = System.nanoTime();
          ClientTunnels.apply(nl, InetAddress.getByName(address), UPLINK, egresses);
          setup[i] = (System.nanoTime() - t0) / 1000;
        }
        clients.add(InetAddress.getByName(address));
        long t1 = System.nanoTime();
        tunnel.clients(clients);
        gateway[i] = (System.nanoTime() - t1) / 1000;
      }
      System.out.printf(
          "tunnel set-up per client pod (%d pods): client end p50 %d us max %d us; gateway's"
              + " per-client entries (a pass over all clients) p50 %d us max %d us%n",
          pods,
          pct(setup, 50),
          Arrays.stream(setup).max().orElse(0),
          pct(gateway, 50),
          Arrays.stream(gateway).max().orElse(0));
      gwNl.close();
      gwNs.close();
      clientNs.close();
    }
    System.out.println("load after: " + load());
  }

  private static String load() throws IOException {
    return Files.readString(Path.of("/proc/loadavg")).strip();
  }

  private static double median(double[] v) {
    var c = v.clone();
    Arrays.sort(c);
    return c[c.length / 2];
  }

  private static long pct(long[] v, int p) {
    var c = v.clone();
    Arrays.sort(c);
    return c[Math.min(c.length - 1, (int) Math.ceil(p / 100.0 * c.length) - 1)];
  }

  private static Socket connect(String netns, int port) throws IOException {
    try (var ns = Netns.named(netns)) {
      return ns.run(
          () -> {
            var s = new Socket();
            s.connect(new InetSocketAddress(InetAddress.getByName(SERVER), port), 5000);
            s.setTcpNoDelay(true);
            return s;
          });
    }
  }

  /** MiB/s writing {@code megabytes} MiB to the sink, until the sink confirms it read them. */
  private static double throughput(String netns, int megabytes) throws IOException {
    var buf = new byte[64 * 1024];
    try (var s = connect(netns, 7100)) {
      OutputStream out = s.getOutputStream();
      long t0 = System.nanoTime();
      long total = (long) megabytes * MIB;
      for (long sent = 0; sent < total; sent += buf.length) {
        out.write(buf);
      }
      s.shutdownOutput();
      s.getInputStream().read(); // the sink's one-byte acknowledgement after EOF
      return megabytes / ((System.nanoTime() - t0) / 1e9);
    }
  }

  private static long[] latencies(String netns, int n) throws IOException {
    var out = new long[n];
    try (var s = connect(netns, 7101)) {
      InputStream in = s.getInputStream();
      OutputStream o = s.getOutputStream();
      for (int i = 0; i < n; i++) {
        long t0 = System.nanoTime();
        o.write(1);
        o.flush();
        if (in.read() < 0) {
          throw new IOException("echo closed");
        }
        out[i] = (System.nanoTime() - t0) / 1000;
      }
    }
    return out;
  }

  private static AutoCloseable sink(String netns, int port) throws IOException {
    return serve(
        netns,
        port,
        c -> {
          var buf = new byte[256 * 1024];
          var in = c.getInputStream();
          while (in.read(buf) >= 0) {
            // discard
          }
          c.getOutputStream().write(1);
        });
  }

  private static AutoCloseable echo(String netns, int port) throws IOException {
    return serve(
        netns,
        port,
        c -> {
          c.setTcpNoDelay(true);
          var in = c.getInputStream();
          var out = c.getOutputStream();
          int b;
          while ((b = in.read()) >= 0) {
            out.write(b);
            out.flush();
          }
        });
  }

  interface Handler {
    void handle(Socket c) throws IOException;
  }

  private static AutoCloseable serve(String netns, int port, Handler h) throws IOException {
    ServerSocket server;
    try (var ns = Netns.named(netns)) {
      server =
          ns.run(
              () -> {
                var s = new ServerSocket();
                s.setReuseAddress(true);
                s.bind(new InetSocketAddress(InetAddress.getByName(SERVER), port));
                return s;
              });
    }
    var threads = new ArrayList<Thread>();
    threads.add(
        Thread.ofPlatform()
            .daemon()
            .start(
                () -> {
                  while (!server.isClosed()) {
                    try {
                      var c = server.accept();
                      Thread.ofPlatform()
                          .daemon()
                          .start(
                              () -> {
                                try (c) {
                                  h.handle(c);
                                } catch (IOException e) {
                                  // done
                                }
                              });
                    } catch (IOException e) {
                      return;
                    }
                  }
                }));
    return server::close;
  }
}
