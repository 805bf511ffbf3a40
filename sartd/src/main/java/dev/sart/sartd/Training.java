package dev.sart.sartd;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;

/**
 * The training run of sartd's JDK 25 AOT cache (JEP 483, 514, 515), run once at build time with
 * {@code -XX:AOTCacheOutput} ({@code src/build/aot.sh}): the classes it loads and links, and the
 * method profiles it gathers, are in the cache, so a sartd started with {@code -XX:AOTCache} finds
 * them loaded and linked.
 *
 * <p>It runs {@code sartd bgp} as a user would — picocli, the YAML file with a neighbour and a
 * path, the warm-up over the route path (codec, RIB, best path, Adj-RIB-Out, packer, with
 * announcements and withdrawals), the BGP listener, the gRPC API (one connection) and {@code
 * /metrics} (two scrapes) — on loopback ports that were free ({@link #freePorts}), then exits, and
 * the JVM writes the cache. Deliberately no more than that: the JVM loads every class of the cache
 * at start, so a class only a training needs (a gRPC client, a second speaker) would cost every
 * start memory and time (sartd/README.md, "Footprint and start-up"). The neighbour's address is a
 * port nobody listens on; nothing leaves the loopback interface.
 */
final class Training {
  private static final Duration WAIT = Duration.ofSeconds(120);

  private Training() {}

  /**
   * No arguments: {@code sartd bgp}'s training; {@code node JAVA CLASSPATH}: {@code sartd node}'s
   * ({@link NodeTraining}).
   */
  public static void main(String[] args) {
    try {
      if (args.length == 3 && args[0].equals("node")) {
        NodeTraining.run(args[1], args[2]);
      } else if (args.length == 0) {
        bgp();
      } else {
        throw new IllegalArgumentException("usage: Training [node JAVA CLASSPATH]");
      }
    } catch (Exception e) {
      // sartd's threads would keep this JVM alive; the exit ends the node training's cluster too
      e.printStackTrace();
      System.exit(1);
    }
  }

  private static void bgp() throws Exception {
    int[] ports = freePorts(4);
    int bgpPort = ports[0];
    int peerPort = ports[1];
    int apiPort = ports[2];
    int metricsPort = ports[3];
    Path dir = Files.createTempDirectory("sartd-training");
    Path conf = dir.resolve("sartd.yaml");
    Files.writeString(
        conf,
        """
        asn: 65001
        router_id: 192.0.2.1
        neighbors:
          - name: training
            asn: 65002
            address: 127.0.0.1
            port: %d
            hold_time: 30
            connect_retry_time: 1
        paths:
          - prefixes: [203.0.113.0/24]
            attributes: {origin: 0, med: 10}
        """
            .formatted(peerPort));
    StringWriter daemonErr = new StringWriter();
    Thread daemon =
        Thread.ofPlatform()
            .daemon()
            .name("training-sartd")
            .start(
                () ->
                    Sartd.run(
                        new String[] {
                          "bgp",
                          "-f",
                          conf.toString(),
                          "--api",
                          "127.0.0.1:" + apiPort,
                          "--port",
                          Integer.toString(bgpPort),
                          "--metrics-address",
                          "127.0.0.1:" + metricsPort,
                          "-l",
                          "warn"
                        },
                        new PrintWriter(System.out, true),
                        new PrintWriter(daemonErr, true)));
    // the API listens after the warm-up and the listener
    long end = System.nanoTime() + WAIT.toNanos();
    while (!accepts(apiPort)) {
      if (!daemon.isAlive() || System.nanoTime() > end) {
        throw new IllegalStateException(
            "training: sartd's API did not come up (" + daemonErr.toString().strip() + ")");
      }
      Thread.sleep(20);
    }
    // sartd read its file at start and does not watch it: nothing of the run is left in /tmp
    Files.delete(conf);
    Files.delete(dir);
    scrape(metricsPort, "sart_bgp_session_up");
    Thread.sleep(1500);
    scrape(metricsPort, "sart_bgp_session_up");
    // the JVM writes the AOT cache at exit (the daemon's shutdown hook stops it first)
    System.exit(0);
  }

  private static boolean accepts(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** One HTTP/1.0 GET of /metrics over a plain socket (no HTTP client to load into the cache). */
  static void scrape(int port, String holding) throws IOException {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      s.getOutputStream()
          .write("GET /metrics HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
      if (!answer.startsWith("HTTP/1.1 200") || !answer.contains(holding)) {
        throw new IllegalStateException(
            "training: /metrics answered " + answer.lines().findFirst().orElse(""));
      }
    }
  }

  /**
   * {@code n} different ports, each free on every address when chosen, none of them in the kernel's
   * ephemeral range: a connection's source port comes from that range, so a port chosen free there
   * could be taken before the server that it is for listens ("Address already in use"), and the BGP
   * listener takes its port on every address. Where that range leaves no room below it, ports the
   * kernel picks (bind to port 0), as before.
   */
  static int[] freePorts(int n) throws IOException {
    int below = 32768;
    try {
      below =
          Integer.parseInt(
              Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))
                  .getFirst()
                  .split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      // not Linux: its default
    }
    int from = Math.max(1024, below - 12288);
    boolean roomBelow = below - from >= 1024;
    ServerSocket[] held = new ServerSocket[n];
    try {
      int[] ports = new int[n];
      var random = new Random();
      for (int i = 0, tries = 0; i < n; tries++) {
        if (tries > 1000) {
          throw new IOException("no free port in " + from + ".." + (below - 1));
        }
        int port = roomBelow ? from + random.nextInt(below - from) : 0;
        try {
          held[i] = new ServerSocket(port, 1);
          ports[i] = held[i].getLocalPort();
          i++;
        } catch (IOException taken) {
          // in use; another
        }
      }
      return ports;
    } finally {
      for (ServerSocket s : held) {
        if (s != null) {
          s.close();
        }
      }
    }
  }
}
