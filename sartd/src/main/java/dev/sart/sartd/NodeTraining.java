package dev.sart.sartd;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The training run of {@code sartd node}'s AOT cache ({@code target/sartd-node.aot}, {@link
 * Training} for the rest): {@code sartd node} — speaker, FIB and agent — against fabric8's mock API
 * server in CRUD mode, which a process of its own runs with sartd's test class path ({@code
 * dev.sart.sartd.TrainingCluster}, so that neither the mock server's classes nor the client that
 * plays the controller end up in the cache). That process applies sart's CRDs, creates the node's
 * NodeBGP, a BGPPeer and a BGPAdvertisement, waits until the agent reported the peer's state,
 * deletes the advertisement, and says {@code TRAINED}; this JVM then scrapes the speaker's and the
 * agent's {@code /metrics} and exits, and the JVM writes the cache.
 *
 * <p>Nothing leaves the loopback interface and nothing is written to the kernel: the peer's address
 * is a loopback one nobody listens on (so the session stays in Connect/Active, as in {@link
 * Training}), no route is received, and the FIB's table is one no one uses ({@link #FIB_TABLE}),
 * which it only dumps. No CNI server: a node of deploy/lb runs none.
 */
final class NodeTraining {
  /** An unused kernel routing table: the FIB finds it empty and has nothing to install. */
  static final int FIB_TABLE = 4_242_001;

  private NodeTraining() {}

  /**
   * @param java the {@code java} launcher for the cluster process
   * @param clusterClassPath the class path of {@code TrainingCluster} (sartd's test class path)
   */
  static void run(String java, String clusterClassPath) throws Exception {
    int[] ports = Training.freePorts(6);
    int apiPort = ports[0];
    int bgpPort = ports[1];
    int bgpMetrics = ports[2];
    int agentMetrics = ports[3];
    int fibEndpoint = ports[4];
    int fibMetrics = ports[5];
    String host = "127.0.0.1:";
    Path dir = Files.createTempDirectory("sartd-node-training");
    Process cluster =
        new ProcessBuilder(
                java,
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                clusterClassPath,
                "dev.sart.sartd.TrainingCluster",
                dir.toString(),
                host + apiPort)
            .redirectError(dir.resolve("cluster.log").toFile())
            .start();
    // however this JVM ends (a part of the node that exits it, an error, a signal), not without it
    Runtime.getRuntime()
        .addShutdownHook(new Thread(cluster::destroyForcibly, "training-cluster-end"));
    BlockingQueue<String> said = new ArrayBlockingQueue<>(16);
    Thread.ofPlatform()
        .daemon()
        .name("training-cluster-out")
        .start(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(cluster.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null; ) {
                  said.put(l);
                }
                said.put("EOF");
              } catch (IOException | InterruptedException e) {
                said.offer("EOF " + e);
              }
            });
    String kubeconfig = expect(said, "KUBECONFIG ", cluster, dir, null).substring(11);
    StringWriter daemonErr = new StringWriter();
    Thread daemon =
        Thread.ofPlatform()
            .daemon()
            .name("training-sartd-node")
            .start(
                () ->
                    Sartd.run(
                        new String[] {
                          "node",
                          "--kubeconfig",
                          kubeconfig,
                          "--node-name",
                          "training",
                          "--api",
                          host + apiPort,
                          "--port",
                          Integer.toString(bgpPort),
                          "--bgp-metrics-address",
                          host + bgpMetrics,
                          "--agent-metrics-address",
                          host + agentMetrics,
                          "--fib-endpoint",
                          host + fibEndpoint,
                          "--fib-metrics",
                          host + fibMetrics,
                          "--fib-table",
                          Integer.toString(FIB_TABLE),
                          "--resync",
                          "1",
                          "-l",
                          "warn"
                        },
                        new PrintWriter(System.out, true),
                        new PrintWriter(daemonErr, true)));
    expect(said, "TRAINED", cluster, dir, () -> daemon.isAlive() ? "" : daemonErr.toString());
    Training.scrape(bgpMetrics, "sart_bgp_session_up");
    Training.scrape(agentMetrics, "");
    Training.scrape(fibMetrics, "");
    cluster.getOutputStream().close();
    if (cluster.waitFor(10, TimeUnit.SECONDS)) {
      // the cluster's kubeconfig and log; a training that failed keeps them
      Files.delete(Path.of(kubeconfig));
      Files.delete(dir.resolve("cluster.log"));
      Files.delete(dir);
    }
    // the JVM writes the AOT cache at exit (the daemon's shutdown hook stops it first)
    System.exit(0);
  }

  private static String expect(
      BlockingQueue<String> said,
      String prefix,
      Process cluster,
      Path dir,
      java.util.function.Supplier<String> daemonDied)
      throws Exception {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
    while (System.nanoTime() < end) {
      String l = said.poll(200, TimeUnit.MILLISECONDS);
      if (l != null && l.startsWith(prefix)) {
        return l;
      }
      String died = daemonDied == null ? "" : daemonDied.get();
      if ((l != null && l.startsWith("EOF")) || !died.isEmpty()) {
        cluster.destroyForcibly();
        throw new IllegalStateException(
            "training: no '"
                + prefix.strip()
                + "' ("
                + died.strip()
                + "); the cluster's log: "
                + Files.readString(dir.resolve("cluster.log")));
      }
    }
    cluster.destroyForcibly();
    throw new IllegalStateException(
        "training: no '"
            + prefix.strip()
            + "' after 180 s; the cluster's log: "
            + Files.readString(dir.resolve("cluster.log")));
  }
}
