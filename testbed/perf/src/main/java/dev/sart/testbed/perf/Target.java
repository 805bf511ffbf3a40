package dev.sart.testbed.perf;

import static org.awaitility.Awaitility.await;

import dev.sart.testbed.Frr;
import dev.sart.testbed.ManagedProcess;
import dev.sart.testbed.Neighbor;
import dev.sart.testbed.Node;
import dev.sart.testbed.Router;
import dev.sart.testbed.RouterConfig;
import dev.sart.testbed.RouterKind;
import dev.sart.testbed.Shell;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The daemons under test, each configured alike: one table, nothing installed in a kernel, no debug
 * logging, eBGP with every route accepted and exported to every peer (the daemons' defaults, or an
 * explicit allow-all where a daemon denies by default). The generator sessions are passive on the
 * target (the generators connect when the clock starts); the monitor session is active.
 *
 * <p>BIRD, FRR ({@code bgpd -Z -n}, no zebra), GoBGP and OpenBGPD run through the test bed's
 * drivers and are pinned after they start ({@code taskset -a -p}); sartd is started here, pinned
 * from its first instruction, with the JVM options of {@code sartd/jvm.options} (the ones {@code
 * bin/sartd} uses).
 */
public enum Target {
  SART("sart"),
  BIRD("bird"),
  FRR("frr"),
  GOBGP("gobgp"),
  OPENBGPD("openbgpd");

  static final long AS = 65000;
  static final String ROUTER_ID = "198.51.100.1";
  static final String MONITOR_SIDE = "192.0.2.1";

  private final String label;

  Target(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }

  public static Target named(String name) {
    for (Target t : values()) {
      if (t.label.equals(name.strip().toLowerCase(Locale.ROOT))) {
        return t;
      }
    }
    throw new IllegalArgumentException(
        "unknown target '" + name + "' (known: sart, bird, frr, gobgp, openbgpd)");
  }

  /** A started target: the processes whose memory and CPU are the target's. */
  record Running(Target target, List<ManagedProcess> processes) {
    List<Long> pids() {
      return processes.stream().map(ManagedProcess::pid).toList();
    }

    boolean alive() {
      return processes.stream().allMatch(ManagedProcess::isAlive);
    }

    String logTail() {
      StringBuilder sb = new StringBuilder();
      for (ManagedProcess p : processes) {
        sb.append("--- ").append(p.log()).append('\n').append(p.tail(30)).append('\n');
      }
      return sb.toString();
    }
  }

  /**
   * Starts the target in {@code node}, peering with {@code peers} generator peers (AS 65100,
   * passive) and the monitor (192.0.2.2, AS 65999), pinned to {@code cpus} (null: not pinned).
   */
  Running start(
      Node node,
      int peers,
      String monitor,
      long monitorAs,
      String cpus,
      List<String> sartdOptions,
      boolean addPath) {
    if (this == SART) {
      return startSartd(node, peers, monitor, monitorAs, cpus, sartdOptions, addPath);
    }
    if (addPath && this == OPENBGPD) {
      throw new IllegalArgumentException(
          "ADD-PATH: the test bed's OpenBGPD driver does not configure it");
    }
    RouterConfig config = RouterConfig.of(AS, ROUTER_ID);
    for (int i = 0; i < peers; i++) {
      Neighbor g = Neighbor.of(Generators.address(i), Generators.AS).asPassive();
      config = config.neighbor(addPath ? g.withAddPathReceive() : g);
    }
    Neighbor mon = Neighbor.of(monitor, monitorAs);
    config = config.neighbor(addPath ? mon.withAddPathSend() : mon);
    Router r =
        switch (this) {
          case FRR -> Frr.withoutZebra(node, config);
          case BIRD -> RouterKind.BIRD.create(node, config);
          case GOBGP -> RouterKind.GOBGP.create(node, config);
          case OPENBGPD -> RouterKind.OPENBGPD.create(node, config);
          case SART -> throw new AssertionError();
        };
    r.start();
    if (cpus != null) {
      for (ManagedProcess p : r.processes()) {
        List<Long> pids = new ArrayList<>(List.of(p.pid()));
        ProcessHandle.of(p.pid()).ifPresent(h -> h.descendants().forEach(d -> pids.add(d.pid())));
        for (long pid : pids) {
          // -a: every thread of the process; threads and children made later inherit the mask
          Shell.exec(List.of("taskset", "-a", "-p", "-c", cpus, Long.toString(pid)));
        }
      }
    }
    return new Running(this, r.processes());
  }

  /**
   * Set (by {@code --sart-advertise-peer-as}): sartd also sends the generators the routes that
   * carry their AS, as BIRD, FRR and OpenBGPD do by default (they drop them as loops); by default
   * it does not, like GoBGP and Junos.
   */
  static final String ADVERTISE_PEER_AS = "bgperf.sart.advertisePeerAs";

  /** sartd's log level (by {@code --sart-log LEVEL}); warn unless asked. */
  static final String SART_LOG = "bgperf.sart.log";

  private static Running startSartd(
      Node node,
      int peers,
      String monitor,
      long monitorAs,
      String cpus,
      List<String> extraOptions,
      boolean addPath) {
    StringBuilder y = new StringBuilder();
    y.append("asn: ").append(AS).append('\n');
    y.append("router_id: ").append(ROUTER_ID).append('\n');
    y.append("neighbors:\n");
    for (int i = 0; i < peers; i++) {
      y.append("  - address: ").append(Generators.address(i)).append('\n');
      y.append("    asn: ").append(Generators.AS).append('\n');
      y.append("    passive: true\n");
      if (Boolean.getBoolean(ADVERTISE_PEER_AS)) {
        y.append("    advertise_peer_as: true\n");
      }
      if (addPath) {
        y.append("    add_path: {receive: [ipv4]}\n");
      }
    }
    y.append("  - address: ").append(monitor).append('\n');
    y.append("    asn: ").append(monitorAs).append('\n');
    y.append("    connect_retry_time: 1\n");
    if (addPath) {
      y.append("    add_path: {send: [ipv4]}\n"); // every path (RFC 7911)
    }
    Path conf = node.dir().resolve("sartd.yaml");
    try {
      Files.writeString(conf, y);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> argv = new ArrayList<>();
    if (cpus != null) {
      argv.addAll(List.of("taskset", "-c", cpus));
    }
    argv.add(SartdLauncher.java());
    argv.addAll(SartdLauncher.jvmOptions());
    argv.addAll(extraOptions);
    argv.addAll(
        List.of(
            "-cp",
            SartdLauncher.classPath(),
            "dev.sart.sartd.Sartd",
            "bgp",
            "-f",
            conf.toString(),
            "--api",
            "127.0.0.1:5000",
            "-l",
            System.getProperty(SART_LOG, "warn")));
    ManagedProcess p = node.spawn("sartd", argv);
    // up when it listens on 179 (the monitor session then proves it speaks BGP)
    await("sartd listening")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .failFast("sartd exited:\n" + p.tail(30), () -> !p.isAlive())
        .until(() -> node.exec("ss", "-Htln", "sport = :179").contains(":179"));
    return new Running(SART, List.of(p));
  }
}
