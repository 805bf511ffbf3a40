package dev.sart.testbed.perf;

import static org.awaitility.Awaitility.await;

import dev.sart.crds.AddressType;
import dev.sart.crds.AdvertiseStatus;
import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPAdvertisementSpec;
import dev.sart.crds.BGPAdvertisementStatus;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.BGPPeerSpec;
import dev.sart.crds.NodeBGP;
import dev.sart.crds.NodeBGPSpec;
import dev.sart.crds.Protocol;
import dev.sart.crds.Sart;
import dev.sart.crds.SpeakerConfig;
import dev.sart.testbed.ManagedProcess;
import dev.sart.testbed.NamespaceThreads;
import dev.sart.testbed.Node;
import dev.sart.testbed.Topology;
import dev.sart.testbed.cluster.ApiServer;
import dev.sart.testbed.cluster.HostRelay;
import dev.sart.testbed.cluster.Launch;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code bin/soak}: {@code sartd node} over many cycles, to show that what a cycle takes it gives
 * back. Phase 1: a BIRD peer sends {@code --routes} IPv6 routes (/64s of 2001:db8::/32) and its
 * session is reset ({@code birdc disable}, then {@code enable}) {@code --resets} times; each time
 * sartd withdraws them from its RIB and the kernel (its FIB installs them in the node's main table)
 * and learns them again. Phase 2: {@code --services} times a BGPAdvertisement (what the controller
 * writes for a LoadBalancer Service) is created for this node's peer and deleted again, through the
 * agent, and each time BIRD must receive the /128 and lose it.
 *
 * <p>After the first cycle and every {@code --every} cycles, with the table loaded, a sample: the
 * heap's live bytes ({@code GC.class_histogram}: a full collection, then {@code
 * System.trim_native_heap}, over the JDK's attach API), RSS, threads, file descriptors and sockets.
 * The sample after {@code --every} cycles is the baseline; at the end the smallest of each phase's
 * last three samples must be at most 5 % over it for the heap and for the RSS with the heap counted
 * at its committed size, without the JIT's compiled code and its arenas (both after the full
 * collection; printed beside them; {@link #check}), no more threads, descriptors or sockets than
 * {@code --slack} over it, and nothing stale: with the peer disabled, no route learned from it in
 * the RIB or the kernel, and no advertisement left at the peer. Prints the curve and writes {@code
 * soak.md}; exit code 1 when a check fails.
 *
 * <pre>
 * soak [--resets 1000] [--routes 100000] [--services 1000] [--every 50] [--slack 2]
 *      [--sartd-opts 'JVM OPTIONS'] [--out testbed/results]
 * </pre>
 */
public final class Soak {
  static final String NODE = "soak";
  static final long NODE_AS = 65001;
  static final long PEER_AS = 65002;
  static final String NODE_ADDRESS = "2001:db8:ffff::2";
  static final String PEER_ADDRESS = "2001:db8:ffff::1";
  static final String PEER = NODE + "-" + PEER_AS + "-" + PEER_ADDRESS.replace(':', '-');
  private static final String COMPARED =
      "RSS after GC with the heap as committed, without compiled code and arenas";
  static final int METRICS_PORT = 7472;
  static final int FIB_METRICS_PORT = 7473;

  private static final Pattern INSTALLED =
      Pattern.compile("^sart_fib_routes_installed\\{[^}]*\\} (\\S+)$", Pattern.MULTILINE);
  private static final Pattern RECEIVED =
      Pattern.compile(
          "^sart_bgp_received_prefixes\\{[^}]*afi=\"ipv6\"[^}]*\\} (\\S+)$", Pattern.MULTILINE);

  /** What to run. */
  record Options(
      int resets, int routes, int services, int every, int slack, List<String> sartdOptions) {}

  /** One point of the curve. */
  record Sample(
      String phase,
      int cycle,
      long liveHeap,
      long rssBeforeGc,
      long rss,
      long heapRss,
      long heapCommitted,
      long code,
      long arenas,
      int threads,
      int fds,
      int sockets) {}

  /** The outcome: the curve and what failed (empty: everything held). */
  record Outcome(List<Sample> samples, List<Steps> steps, List<String> failures) {}

  /**
   * Where one reset's time went, in seconds: from {@code enable} until the RIB held the table, from
   * then until the kernel did, and from {@code disable} until both were empty.
   */
  record Steps(double up, double fib, double down) {}

  private Soak() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a =
        new java.util.HashMap<>(
            Map.of(
                "--resets", "1000",
                "--routes", "100000",
                "--services", "1000",
                "--every", "50",
                "--slack", "2",
                "--sartd-opts", "",
                "--out", SartdLauncher.repositoryRoot().resolve("testbed/results").toString()));
    for (int i = 0; i < args.length; i += 2) {
      if (i + 1 >= args.length || a.put(args[i], args[i + 1]) == null) {
        usage();
      }
    }
    String extra = a.get("--sartd-opts").strip();
    Options o =
        new Options(
            Integer.parseInt(a.get("--resets")),
            Integer.parseInt(a.get("--routes")),
            Integer.parseInt(a.get("--services")),
            Integer.parseInt(a.get("--every")),
            Integer.parseInt(a.get("--slack")),
            extra.isEmpty() ? List.of() : List.of(extra.split("\\s+")));
    Path out = Path.of(a.get("--out"));
    String load = Files.readString(Path.of("/proc/loadavg")).strip();
    long t0 = System.nanoTime();
    Outcome r = run(o);
    String report = report(o, r, load, (System.nanoTime() - t0) / 1e9);
    Files.createDirectories(out);
    Files.writeString(out.resolve("soak.md"), report);
    System.out.print(report);
    System.exit(r.failures().isEmpty() ? 0 : 1);
  }

  private static void usage() {
    System.err.println(
        "usage: soak [--resets N] [--routes N] [--services N] [--every N] [--slack N]"
            + " [--sartd-opts 'JVM OPTIONS'] [--out DIR]");
    System.exit(2);
  }

  /** Runs both phases; the topology, the API server and every process are gone when it returns. */
  static Outcome run(Options o) throws Exception {
    List<Sample> samples = new ArrayList<>();
    List<Steps> steps = new ArrayList<>();
    List<String> failures = new ArrayList<>();
    try (Topology t = Topology.create("soak");
        ApiServer api = ApiServer.startMock(t.dir().resolve("api"))) {
      Node node = t.node("node");
      Node peerNode = t.node("peer");
      t.link(node, peerNode).addresses(NODE_ADDRESS + "/64", PEER_ADDRESS + "/64");
      api.applyCrds(Launch.crdManifests());
      KubernetesClient k = api.client();
      k.resource(
              new NodeBGP(
                  NODE,
                  new NodeBGPSpec(
                      NODE_AS, "192.0.2.2", new SpeakerConfig("127.0.0.1:5000", 5L, false), null)))
          .create();
      BGPPeer peer =
          new BGPPeer(
              PEER,
              new BGPPeerSpec(
                  PEER_AS,
                  PEER_ADDRESS,
                  null,
                  null,
                  null,
                  NODE,
                  null,
                  new SpeakerConfig("unused", null, null),
                  null));
      peer.getMetadata().setLabels(Map.of(Sart.BGP_PEER_NODE_LABEL, NODE));
      k.resource(peer).create();
      BirdInstance bird =
          BirdInstance.start(peerNode, "bird", birdConfig(o.routes()), null, Duration.ofMinutes(5));
      try (HostRelay relay = HostRelay.open(node, api.address().getPort(), api.address())) {
        Path kubeconfig = api.kubeconfigThroughRelay(t.dir().resolve("kubeconfig"));
        List<String> argv = new ArrayList<>();
        argv.add(SartdLauncher.java());
        argv.addAll(SartdLauncher.jvmOptions("node"));
        // what the JIT compiled, apart from the rest of the native memory (AfterGc)
        argv.add("-XX:NativeMemoryTracking=summary");
        argv.addAll(o.sartdOptions());
        argv.addAll(List.of("-cp", SartdLauncher.classPath(), "dev.sart.sartd.Sartd"));
        argv.addAll(
            List.of(
                "node",
                "--kubeconfig",
                kubeconfig.toString(),
                "--node-name",
                NODE,
                "--fib-metrics",
                "127.0.0.1:" + FIB_METRICS_PORT,
                "-l",
                "warn"));
        ManagedProcess sartd = node.spawn("sartd", argv);
        try {
          phases(o, node, bird, sartd, k, samples, steps, failures);
        } finally {
          sartd.stop();
          bird.close();
        }
      }
    }
    return new Outcome(samples, steps, failures);
  }

  private static void phases(
      Options o,
      Node node,
      BirdInstance bird,
      ManagedProcess sartd,
      KubernetesClient k,
      List<Sample> samples,
      List<Steps> steps,
      List<String> failures)
      throws Exception {
    Duration wait = Duration.ofMinutes(5);
    // phase 1: session resets, each with the whole table
    long enabled = System.nanoTime();
    for (int cycle = 1; cycle <= o.resets(); cycle++) {
      await("table " + cycle)
          .atMost(wait)
          .pollInterval(Duration.ofMillis(50))
          .failFast("sartd exited:\n" + sartd.tail(30), () -> !sartd.isAlive())
          .ignoreExceptions()
          .until(() -> received(node) == o.routes());
      long inRib = System.nanoTime();
      // and in the kernel: the FIB follows the speaker's WatchPath stream; a cycle that did not
      // wait for it would measure the stream's backlog (LOG.md 2026-11-27, "soak"). The kernel's
      // own count is the oracle; it is read once the FIB's metric says it is done (a dump of
      // 100,000 routes by ip takes ~0.6 s of a core: polled, it slowed the FIB it waited for).
      await("table " + cycle + " in the kernel")
          .atMost(wait)
          .pollInterval(Duration.ofMillis(50))
          .ignoreExceptions()
          .until(() -> installed(node) == o.routes() && kernelRoutes(node) == o.routes());
      long inKernel = System.nanoTime();
      if (cycle == 1 || cycle % o.every() == 0 || cycle == o.resets()) {
        samples.add(sample("resets", cycle, node, sartd));
        System.out.println(line(samples.getLast()));
      }
      long disabled = System.nanoTime();
      bird.birdc("disable \"gen\"");
      await("withdrawal " + cycle)
          .atMost(wait)
          .pollInterval(Duration.ofMillis(50))
          .ignoreExceptions()
          .until(() -> received(node) == 0);
      // nothing of the peer left: not in the RIB (above), and, once the FIB has followed, not in
      // the kernel
      if (!eventually(() -> installed(node) == 0 && kernelRoutes(node) == 0)) {
        failures.add(
            "reset "
                + cycle
                + ": "
                + kernelRoutes(node)
                + " routes learned from the peer left in the kernel a minute after the reset (the"
                + " FIB counts "
                + installed(node)
                + ")");
        break;
      }
      if (cycle > 1) { // the first table came with sartd's start
        steps.add(
            new Steps(
                (inRib - enabled) / 1e9,
                (inKernel - inRib) / 1e9,
                (System.nanoTime() - disabled) / 1e9));
      }
      bird.birdc("enable \"gen\"");
      enabled = System.nanoTime();
    }
    await("table after the resets")
        .atMost(wait)
        .pollInterval(Duration.ofMillis(50))
        .ignoreExceptions()
        .until(() -> received(node) == o.routes());
    if (!eventually(() -> installed(node) == o.routes() && kernelRoutes(node) == o.routes())) {
      failures.add(
          "the kernel holds " + kernelRoutes(node) + " of the peer's " + o.routes() + " routes");
    }
    check("resets", samples, o, failures);
    // phase 2: advertisements through the agent
    int firstOfPhase = samples.size();
    for (int cycle = 1; cycle <= o.services(); cycle++) {
      String name = "soak-" + cycle;
      String cidr = String.format(Locale.ROOT, "2001:db8:5e::%x/128", cycle);
      BGPAdvertisement a =
          new BGPAdvertisement(
              "default",
              name,
              new BGPAdvertisementSpec(cidr, AddressType.SERVICE, Protocol.IPV6, null));
      k.resource(a).create();
      k.resources(BGPAdvertisement.class)
          .inNamespace("default")
          .withName(name)
          .editStatus(
              cur -> {
                cur.setStatus(
                    new BGPAdvertisementStatus(Map.of(PEER, AdvertiseStatus.NotAdvertised)));
                return cur;
              });
      await("advertisement " + cycle + " at the peer")
          .atMost(wait)
          .pollInterval(Duration.ofMillis(20))
          .failFast("sartd exited:\n" + sartd.tail(30), () -> !sartd.isAlive())
          .until(() -> bird.protocols("gen").get("gen").imported() == 1);
      k.resources(BGPAdvertisement.class).inNamespace("default").withName(name).delete();
      await("advertisement " + cycle + " withdrawn from the peer")
          .atMost(wait)
          .pollInterval(Duration.ofMillis(20))
          .until(() -> bird.protocols("gen").get("gen").imported() == 0);
      if (cycle == 1 || cycle % o.every() == 0 || cycle == o.services()) {
        samples.add(sample("services", cycle, node, sartd));
        System.out.println(line(samples.getLast()));
      }
    }
    if (o.services() > 0) {
      check("services", samples.subList(firstOfPhase, samples.size()), o, failures);
    }
  }

  /**
   * The end of a phase against its baseline: the sample after {@code --every} cycles (the first
   * cycles load classes, fill caches and let the collector size the heap; the first sample is in
   * the curve to show them). A leak only grows, so it raises each of the phase's last three
   * samples, and the smallest of them is the end; a single sample taken while something was in
   * flight does not fail the phase. The live heap is exact to a few KiB from one sample to the next
   * (the class histogram without the collector's fillers, {@link AfterGc#of}).
   *
   * <p>The RSS is compared with the heap's pages counted at the heap's committed size ({@link
   * #compared}): after a full collection the collector sizes the old generation from what is live
   * ({@code sartd/jvm.options}), but where that collection grew it, the new pages are not in the
   * RSS until used — 114–128 MiB of heap pages instead of 136.5 at 4 of 12 samples of 300 resets —
   * and a baseline caught there would make the next ordinary sample look like 8 % of growth. The
   * committed size is never below the pages, so a growing heap still raises the figure.
   *
   * <p>The RSS is also compared without the JIT's compiled code (native memory tracking's Code): it
   * grows while more of sartd gets hot, at one advertisement per cycle slowly — 13 → 27 MiB over
   * 200 cycles with the class count flat (10,271 → 10,349) and metaspace 6 → 9 MiB of method
   * profiles (testbed/perf/LOG.md, 2026-11-27, "soak") — and is bounded by the code cache's size,
   * not by what the cycles leave behind. So are the JVM's arenas (native memory tracking's Arena
   * Chunk: the chunks of every arena, in use or in the pool the JVM frees every 5 s; a C2
   * compilation takes up to ~15 MiB): the sample waits until nothing compiles, but they still held
   * 0.5–15 MiB at the samples of one run, a step in the RSS that failed CI's SoakTest with the rest
   * flat (testbed/perf/LOG.md, 2026-12-02). Threads, descriptors and sockets are exact and compared
   * at the last sample.
   */
  private static void check(String phase, List<Sample> of, Options o, List<String> failures) {
    if (of.size() < 3) {
      return;
    }
    Sample base = of.get(1);
    Sample last = of.getLast();
    List<Sample> end = of.subList(Math.max(2, of.size() - 3), of.size());
    within(phase, "live heap", base.liveHeap(), least(end, Sample::liveHeap), failures);
    within(phase, COMPARED, compared(base), least(end, Soak::compared), failures);
    atMost(phase, "threads", base.threads(), last.threads(), o.slack(), failures);
    atMost(phase, "file descriptors", base.fds(), last.fds(), o.slack(), failures);
    atMost(phase, "sockets", base.sockets(), last.sockets(), o.slack(), failures);
  }

  /**
   * The RSS the check compares: the heap's pages counted at its committed size, without compiled
   * code and arenas ({@link #check}).
   */
  static long compared(Sample s) {
    return s.rss() - s.heapRss() + s.heapCommitted() - s.code() - s.arenas();
  }

  private static long least(List<Sample> of, java.util.function.ToLongFunction<Sample> f) {
    return of.stream().mapToLong(f).min().orElseThrow();
  }

  /**
   * Growth only: an end below the baseline is memory given back, not a leak (the collector shrinks
   * its heap at a full collection; the live heap varies by a few MiB with what is in flight).
   */
  private static void within(
      String phase, String what, long base, long last, List<String> failures) {
    if (last > base * 1.05) {
      failures.add(
          String.format(
              Locale.ROOT,
              "%s: %s %.1f MiB at the end against %.1f MiB at the start (more than +5 %%)",
              phase,
              what,
              last / 1048576.0,
              base / 1048576.0));
    }
  }

  private static void atMost(
      String phase, String what, int base, int last, int slack, List<String> failures) {
    if (last > base + slack) {
      failures.add(phase + ": " + what + " " + last + " at the end against " + base);
    }
  }

  static Sample sample(String phase, int cycle, Node node, ManagedProcess sartd) throws Exception {
    // the RSS as the node sees it, with whatever garbage the collector has not yet collected
    long before = ProcStats.of(List.of(sartd.pid())).rssBytes();
    AfterGc after = AfterGc.of(sartd.pid());
    ProcStats s = ProcStats.of(List.of(sartd.pid()));
    // the part of the RSS that is the Java heap's pages (smaps, as bin/footprint splits it)
    long heapRss = Footprint.sample("soak", sartd.pid(), 0, 0).kinds().get("java heap");
    Path proc = Path.of("/proc", Long.toString(sartd.pid()));
    int threads;
    try (var l = Files.list(proc.resolve("task"))) {
      threads = (int) l.count();
    }
    int fds = 0;
    int sockets = 0;
    try (var l = Files.list(proc.resolve("fd"))) {
      for (Path fd : l.toList()) {
        fds++;
        try {
          if (Files.readSymbolicLink(fd).toString().startsWith("socket:")) {
            sockets++;
          }
        } catch (IOException e) {
          // closed meanwhile
        }
      }
    }
    return new Sample(
        phase,
        cycle,
        after.heapUsed(),
        before,
        s.rssBytes(),
        heapRss,
        after.heapCommitted(),
        after.code(),
        after.arenas(),
        threads,
        fds,
        sockets);
  }

  /** Polls for up to a minute. */
  private static boolean eventually(java.util.concurrent.Callable<Boolean> condition) {
    try {
      await()
          .atMost(Duration.ofMinutes(1))
          .pollInterval(Duration.ofMillis(50))
          .ignoreExceptions()
          .until(condition);
      return true;
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      return false;
    }
  }

  /**
   * The IPv6 prefixes sartd holds from the peer, from its metrics (inside its namespace); 0 while
   * the peer has no series.
   */
  static long received(Node node) throws Exception {
    Matcher m = RECEIVED.matcher(scrape(node, METRICS_PORT));
    return m.find() ? (long) Double.parseDouble(m.group(1)) : 0;
  }

  /**
   * The routes the FIB has installed in the node's kernel, by its own count ({@code
   * sart_fib_routes_installed}, every table of its channels).
   */
  static long installed(Node node) throws Exception {
    long n = 0;
    for (Matcher m = INSTALLED.matcher(scrape(node, FIB_METRICS_PORT)); m.find(); ) {
      n += (long) Double.parseDouble(m.group(1));
    }
    return n;
  }

  /** A {@code /metrics} of sartd's, from inside its namespace. */
  static String scrape(Node node, int port) throws Exception {
    CompletableFuture<String> body = new CompletableFuture<>();
    NamespaceThreads.factory(node, "soak-scrape")
        .newThread(
            () -> {
              try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                s.getOutputStream()
                    .write("GET /metrics HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                body.complete(
                    new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
              } catch (IOException | RuntimeException e) {
                body.completeExceptionally(e);
              }
            })
        .start();
    return body.get();
  }

  /** Routes in the node's kernel through the peer (what the FIB installed from it). */
  static long kernelRoutes(Node node) {
    return node.exec("ip", "-6", "route", "show", "via", PEER_ADDRESS).lines().count();
  }

  /** The peer: {@code routes} /64s of 2001:db8::/32 from one static protocol, session disabled. */
  static String birdConfig(int routes) {
    StringBuilder c = new StringBuilder(64 + routes * 40);
    c.append("router id 198.51.100.9;\n");
    c.append("log stderr { warning, error, fatal, bug };\n");
    c.append("protocol device { scan time 60; }\n");
    c.append("ipv6 table t;\n");
    c.append("protocol static tbl {\n  ipv6 { table t; };\n");
    for (int i = 0; i < routes; i++) {
      c.append(
          String.format(
              Locale.ROOT,
              "  route 2001:db8:%x:%x::/64 blackhole;\n",
              0x100 + (i >>> 16),
              i & 0xffff));
    }
    c.append("}\n");
    c.append("protocol bgp gen {\n");
    c.append("  local ").append(PEER_ADDRESS).append(" as ").append(PEER_AS).append(";\n");
    c.append("  neighbor ").append(NODE_ADDRESS).append(" as ").append(NODE_AS).append(";\n");
    c.append("  connect delay time 1;\n  connect retry time 1;\n  error wait time 1, 5;\n");
    c.append(
        "  ipv6 {\n    table t;\n    import all;\n    export where proto = \"tbl\";\n  };\n}\n");
    return c.toString();
  }

  private static double mean(List<Steps> of, java.util.function.ToDoubleFunction<Steps> f) {
    return of.stream().mapToDouble(f).average().orElse(0);
  }

  static String line(Sample s) {
    return String.format(
        Locale.ROOT,
        "%-8s %5d  live heap %6.1f MiB  RSS before GC %6.1f, after %6.1f MiB (heap %6.1f of"
            + " %6.1f committed, code %5.1f, arenas %5.1f, rest %6.1f)  compared %6.1f  threads"
            + " %3d  fds %3d  sockets %3d",
        s.phase(),
        s.cycle(),
        s.liveHeap() / 1048576.0,
        s.rssBeforeGc() / 1048576.0,
        s.rss() / 1048576.0,
        s.heapRss() / 1048576.0,
        s.heapCommitted() / 1048576.0,
        s.code() / 1048576.0,
        s.arenas() / 1048576.0,
        (s.rss() - s.heapRss() - s.code() - s.arenas()) / 1048576.0,
        compared(s) / 1048576.0,
        s.threads(),
        s.fds(),
        s.sockets());
  }

  static String report(Options o, Outcome r, String load, double seconds) {
    StringBuilder b = new StringBuilder();
    b.append("# soak\n\n");
    b.append(
        String.format(
            Locale.ROOT,
            "%d session resets × %,d routes, %d advertisements created and deleted; samples every"
                + " %d cycles; load average before: %s; took %.0f s%s\n\n",
            o.resets(),
            o.routes(),
            o.services(),
            o.every(),
            load,
            seconds,
            o.sartdOptions().isEmpty()
                ? ""
                : "; extra JVM options: `" + String.join(" ", o.sartdOptions()) + "`"));
    b.append(
        "| phase | cycle | live heap (MiB) | RSS before GC (MiB) | RSS after GC (MiB) | of it"
            + " the heap's pages | the heap committed | of it compiled code | of it arenas |"
            + " compared¹ | threads | fds | sockets |\n");
    b.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Sample s : r.samples()) {
      b.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %d | %d | %d |\n",
              s.phase(),
              s.cycle(),
              s.liveHeap() / 1048576.0,
              s.rssBeforeGc() / 1048576.0,
              s.rss() / 1048576.0,
              s.heapRss() / 1048576.0,
              s.heapCommitted() / 1048576.0,
              s.code() / 1048576.0,
              s.arenas() / 1048576.0,
              compared(s) / 1048576.0,
              s.threads(),
              s.fds(),
              s.sockets()));
    }
    b.append(
        "\n¹ RSS after GC with the heap's pages counted at the heap's committed size, without"
            + " compiled code and arenas: what the check compares.\n\n");
    if (!r.steps().isEmpty()) {
      b.append(
          String.format(
              Locale.ROOT,
              "A reset (mean of %d, seconds): the table in sartd's RIB %.2f after `enable`, in the"
                  + " kernel %.2f after that, gone from both %.2f after `disable`; in all %.2f"
                  + " (slowest %.2f), without the samples.\n\n",
              r.steps().size(),
              mean(r.steps(), Steps::up),
              mean(r.steps(), Steps::fib),
              mean(r.steps(), Steps::down),
              mean(r.steps(), x -> x.up() + x.fib() + x.down()),
              r.steps().stream().mapToDouble(x -> x.up() + x.fib() + x.down()).max().orElse(0)));
    }
    if (r.failures().isEmpty()) {
      b.append(
              "**held**: live heap and the compared RSS¹ (the"
                  + " smallest of the last three samples) at most 5 % over the baseline (cycle "
                  + o.every()
                  + ") of each phase, no"
                  + " thread, descriptor or socket more than ")
          .append(o.slack())
          .append(" over it, nothing stale in the RIB, the kernel or at the peer.\n");
    } else {
      b.append("**failed**:\n");
      r.failures().forEach(f -> b.append("- ").append(f).append('\n'));
    }
    return b.toString();
  }
}
