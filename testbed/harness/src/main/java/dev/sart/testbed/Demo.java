package dev.sart.testbed;

import dev.sart.net.Ip;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The main job (bin/demo): an FRR top-of-rack router and a node running {@code sartd bgp}, each in
 * its network namespace, peering over IPv4 and IPv6. The node announces service addresses with the
 * {@code sart} CLI; FRR's own CLI shows them, sart's RIB shows FRR's routes, {@code sartd fib}
 * installs them into a kernel table of the node (shown by {@code ip route} and {@code sart fib}), a
 * withdrawal disappears from FRR. {@code --keep} waits for Enter before cleaning up.
 *
 * <p>Needs {@code -Dsart.bin=<repo>/bin} (bin/demo sets it) to find bin/sartd and bin/sart.
 */
public final class Demo {
  private Demo() {}

  public static void main(String[] args) throws Exception {
    boolean keep = List.of(args).contains("--keep");
    Path bin = Path.of(System.getProperty("sart.bin", "bin")).toAbsolutePath();
    try (Topology t = Topology.create("demo")) {
      Node tor = t.node("tor");
      Node node = t.node("node");
      t.link(tor, node)
          .addresses("192.0.2.1/24", "192.0.2.2/24")
          .addresses("2001:db8::1/64", "2001:db8::2/64");
      say(
          "topology %s: %s (ToR: FRR, AS 65000, 192.0.2.1) <-> %s (node: sartd, AS 65001, 192.0.2.2)",
          t.id(), tor.netns(), node.netns());

      Frr frr =
          (Frr)
              RouterKind.FRR
                  .create(
                      tor,
                      RouterConfig.of(65000, "192.0.2.1")
                          .neighbor(Neighbor.of("192.0.2.2", 65001))
                          .neighbor(Neighbor.of("2001:db8::2", 65001))
                          .originate("198.51.100.0/24"))
                  .start();

      Path config = node.dir().resolve("sartd.yaml");
      Files.writeString(
          config,
          """
          asn: 65001
          router_id: 192.0.2.2
          neighbors:
            - name: tor-v4
              asn: 65000
              address: 192.0.2.1
              connect_retry_time: 1
            - name: tor-v6
              asn: 65000
              address: "2001:db8::1"
              connect_retry_time: 1
          """,
          StandardCharsets.UTF_8);
      ManagedProcess sartd =
          node.spawn(
              "sartd", List.of(bin.resolve("sartd").toString(), "bgp", "-f", config.toString()));
      say("started sartd bgp (pid %d) in %s with %s", sartd.pid(), node.netns(), config);
      Path fibConfig = node.dir().resolve("fib.yaml");
      Files.writeString(
          fibConfig,
          """
          endpoint: 127.0.0.1:5001
          channels:
            - name: bgp-to-kernel
              subscribers: [{protocol: bgp, endpoint: "127.0.0.1:5000"}]
              publishers: [{protocol: kernel, tables: [120]}]
          """,
          StandardCharsets.UTF_8);
      ManagedProcess fib =
          node.spawn(
              "sartd-fib",
              List.of(bin.resolve("sartd").toString(), "fib", "-f", fibConfig.toString()));
      say("started sartd fib (pid %d): the speaker's best paths go to kernel table 120", fib.pid());

      frr.awaitSessionState("192.0.2.2", SessionState.ESTABLISHED, Duration.ofSeconds(60));
      frr.awaitEstablished("2001:db8::2");
      sart(node, bin, "bgp", "neighbor", "list");

      say("node announces service addresses with the sart CLI");
      sart(
          node, bin, "bgp", "global", "rib", "add", "203.0.113.10/32", "-t", "community=65001:100");
      sart(node, bin, "bgp", "global", "rib", "-a", "ipv6", "add", "2001:db8:100::10/128");
      Route r = frr.awaitRoute("203.0.113.10/32");
      Route r6 = frr.awaitRoute("2001:db8:100::10/128");
      say(
          "FRR learned %s via %s, AS path %s, communities %s",
          r.prefix(), Ip.format(r.nextHop()), r.asPath(), r.communities());
      say("FRR learned %s via %s, AS path %s", r6.prefix(), Ip.format(r6.nextHop()), r6.asPath());
      say(
          "FRR's own CLI (vtysh -c 'show bgp ipv4 unicast 203.0.113.10/32'):%n%s",
          frr.vtysh("show bgp ipv4 unicast 203.0.113.10/32"));

      say("sart's RIB holds FRR's route too (sart bgp global rib get):");
      sart(node, bin, "bgp", "global", "rib", "get");
      awaitKernelRoute(node, "198.51.100.0/24");
      say("sartd fib installed it into the node's kernel (ip route show table 120):");
      System.out.print(node.exec("ip", "route", "show", "table", "120"));
      sart(node, bin, "fib", "channel", "route", "bgp-to-kernel");

      sart(node, bin, "bgp", "global", "rib", "del", "203.0.113.10/32");
      frr.awaitNoRoute("203.0.113.10/32");
      say("node withdrew 203.0.113.10/32; FRR no longer has it");

      if (keep) {
        say(
            "--keep: try `ip netns exec %s %s bgp neighbor list` or `ip netns exec %s vtysh --vty_socket %s`;"
                + " press Enter to clean up",
            node.netns(), bin.resolve("sart"), tor.netns(), tor.dir().resolve("frr"));
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
      }
    }
    say("cleaned up: namespaces removed, daemons stopped");
  }

  private static void awaitKernelRoute(Node node, String prefix) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!node.exec("ip", "route", "show", "table", "120", prefix)
        .contains(prefix.replace("/32", ""))) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            prefix + " never reached kernel table 120 of " + node.netns());
      }
      Thread.sleep(200);
    }
  }

  private static void sart(Node node, Path bin, String... args) {
    List<String> argv = new ArrayList<>(List.of(bin.resolve("sart").toString()));
    argv.addAll(List.of(args));
    System.out.println("$ sart " + String.join(" ", args));
    System.out.print(node.exec(argv.toArray(String[]::new)));
  }

  private static void say(String format, Object... args) {
    System.out.println("demo: " + String.format(format, args));
  }
}
