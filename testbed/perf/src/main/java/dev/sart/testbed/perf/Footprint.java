package dev.sart.testbed.perf;

import dev.sart.crds.BGPAdvertisement;
import dev.sart.crds.BGPPeer;
import dev.sart.crds.NodeBGP;
import dev.sart.testbed.ManagedProcess;
import dev.sart.testbed.Node;
import dev.sart.testbed.Topology;
import dev.sart.testbed.cluster.ApiServer;
import dev.sart.testbed.cluster.HostRelay;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code bin/footprint}: the idle memory and the start-up of {@code sartd bgp} and {@code sartd
 * node}, each started as {@code bin/sartd} starts it ({@link SartdLauncher}) in a network namespace
 * of its own, and of a JVM that runs nothing ({@link Floor}) with the same options, as the floor.
 *
 * <p>Per run: <b>ready</b> is the time from the start of the process until its log says the API
 * serves ({@code event=api-listening}; for {@code node}, the agent connected to the API server and
 * started, {@code event=agent-started}) and <b>CPU to ready</b> its CPU seconds then; after {@code
 * --idle} seconds more, the RSS by kind of mapping ({@code /proc/PID/smaps}: the Java heap, the
 * CDS/AOT archive, libjvm and the other files, and the other anonymous memory: metaspace, code
 * cache, thread stacks, malloc), private dirty memory, threads and file descriptors. {@code sartd
 * node} runs the speaker, the FIB (into the namespace's kernel) and the agent, connected to
 * fabric8's mock API server (a process of its own, through a relay into the namespace).
 *
 * <pre>
 * footprint [--targets floor,bgp,node] [--runs 3] [--idle 10] [--sartd-opts 'JVM OPTIONS'] [--out testbed/results]
 * </pre>
 *
 * Writes {@code footprint.md} into the output directory; every run, then the median per target.
 */
public final class Footprint {
  private Footprint() {}

  /** Rounds of {@link #warm}: enough for the mock's handshakes and lists to be compiled. */
  private static final int WARM_ROUNDS = Integer.getInteger("footprint.warm", 20);

  /**
   * {@code sartd node} finds its API server as in a pod of the DaemonSet (deploy/base/node.yaml: no
   * {@code --kubeconfig}), unless {@code -Dfootprint.kubeconfig=true}: with a kubeconfig, as the
   * cluster on one machine starts it, the agent also reads the kubeconfig's YAML at start.
   */
  private static final boolean IN_CLUSTER = !Boolean.getBoolean("footprint.kubeconfig");

  /** fabric8's warning that sart's CRDs are v1alpha2, once per client of {@link #warm}. */
  private static final java.util.logging.Logger VERSION_WARNINGS =
      java.util.logging.Logger.getLogger(
          "io.fabric8.kubernetes.client.dsl.internal.VersionUsageUtils");

  /** One sample of one process. */
  record Sample(
      String target,
      double readySeconds,
      double cpuToReady,
      long rss,
      long privateDirty,
      Map<String, Long> kinds,
      int threads,
      int fds,
      List<StartupTimeline.Step> timeline,
      Map<String, Double> cpuByThread) {}

  public static void main(String[] args) throws Exception {
    List<String> targets = List.of("floor", "bgp", "node");
    int runs = 3;
    int idle = 10;
    List<String> extra = List.of();
    Path out = SartdLauncher.repositoryRoot().resolve("testbed/results");
    for (int i = 0; i < args.length; i++) {
      String v = i + 1 < args.length ? args[i + 1] : null;
      switch (args[i]) {
        case "--targets" -> targets = List.of(need(args[i], v).split(","));
        case "--runs" -> runs = Integer.parseInt(need(args[i], v));
        case "--idle" -> idle = Integer.parseInt(need(args[i], v));
        case "--sartd-opts" -> extra = List.of(need(args[i], v).strip().split("\\s+"));
        case "--out" -> out = Path.of(need(args[i], v));
        default -> {
          System.err.println(
              "usage: footprint [--targets floor,bgp,node] [--runs N] [--idle S]"
                  + " [--sartd-opts 'JVM OPTIONS'] [--out DIR]");
          System.exit(2);
        }
      }
      i++;
    }
    String load = Files.readString(Path.of("/proc/loadavg")).strip();
    List<Sample> samples = new ArrayList<>();
    for (int r = 1; r <= runs; r++) {
      for (String t : targets) {
        Sample s = run(t, extra, idle);
        System.out.println(line(r, s));
        samples.add(s);
      }
    }
    String report = report(samples, targets, extra, idle, load);
    Files.createDirectories(out);
    Files.writeString(out.resolve("footprint.md"), report);
    System.out.println();
    System.out.print(report);
  }

  static Sample run(String target, List<String> extra, int idleSeconds) throws Exception {
    try (Topology t = Topology.create("footprint-" + target)) {
      Node n = t.node("n");
      List<String> argv = new ArrayList<>();
      argv.add(SartdLauncher.java());
      // the floor without sartd's AOT cache: it would map the whole cache for the JDK's classes
      argv.addAll(
          SartdLauncher.jvmOptions(target).stream()
              .filter(o -> !target.equals("floor") || !o.startsWith("-XX:AOTCache"))
              .toList());
      argv.addAll(extra);
      String readyLine;
      Map<String, String> env = Map.of();
      ApiServer api = null;
      HostRelay relay = null;
      try {
        switch (target) {
          case "floor" -> {
            argv.addAll(
                List.of("-cp", System.getProperty("java.class.path"), Floor.class.getName()));
            readyLine = Floor.READY;
          }
          case "bgp" -> {
            argv.addAll(List.of("-cp", SartdLauncher.classPath(), "dev.sart.sartd.Sartd"));
            argv.addAll(List.of("bgp", "--as", "65001", "--router-id", "192.0.2.1"));
            readyLine = "event=api-listening";
          }
          case "node" -> {
            api = ApiServer.startMock(t.dir().resolve("api"));
            warm(api);
            relay = HostRelay.open(n, api.address().getPort(), api.address());
            Path kubeconfig = api.kubeconfigThroughRelay(t.dir().resolve("kubeconfig"));
            argv.addAll(List.of("-cp", SartdLauncher.classPath(), "dev.sart.sartd.Sartd"));
            argv.addAll(List.of("node", "--node-name", "footprint"));
            if (IN_CLUSTER) {
              env = inCluster(kubeconfig, t.dir().resolve("serviceaccount"));
            } else {
              argv.addAll(List.of("--kubeconfig", kubeconfig.toString()));
            }
            readyLine = "event=agent-started";
          }
          default -> throw new IllegalArgumentException("unknown target " + target);
        }
        java.time.Instant exec = java.time.Instant.now();
        long t0 = System.nanoTime();
        ManagedProcess p = n.spawn("sartd-" + target, argv, env);
        double ready = awaitLine(p, readyLine, t0);
        double cpu = ProcStats.of(List.of(p.pid())).cpuSeconds();
        Map<String, Double> byThread = ProcStats.byThread(p.pid());
        List<StartupTimeline.Step> timeline =
            StartupTimeline.of(Files.readString(p.log()), exec, readyLine);
        Thread.sleep(idleSeconds * 1000L);
        if (!p.isAlive()) {
          throw new IllegalStateException(target + " exited:\n" + p.tail(30));
        }
        Sample s = sample(target, p.pid(), ready, cpu, timeline, byThread);
        p.stop();
        return s;
      } finally {
        if (relay != null) {
          relay.close();
        }
        if (api != null) {
          api.close();
        }
      }
    }
  }

  /**
   * The environment of a pod for the API server of {@code kubeconfig}: {@code
   * KUBERNETES_SERVICE_HOST} and {@code _PORT} as the kubelet sets them, the service account's
   * token and CA certificate as files in {@code dir} (a pod has them under {@code
   * /var/run/secrets/kubernetes.io/serviceaccount}; fabric8 reads another place when told by {@code
   * KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN} and {@code KUBERNETES_CERTS_CA_FILE}), and no kubeconfig
   * to find ({@code KUBERNETES_AUTH_TRYKUBECONFIG=false}: a pod has none; root here may have one).
   */
  static Map<String, String> inCluster(Path kubeconfig, Path dir) throws IOException {
    io.fabric8.kubernetes.client.Config c =
        io.fabric8.kubernetes.client.Config.fromKubeconfig(Files.readString(kubeconfig));
    java.net.URI server = java.net.URI.create(c.getMasterUrl());
    Files.createDirectories(dir);
    Path ca = dir.resolve("ca.crt");
    Files.write(ca, java.util.Base64.getDecoder().decode(c.getCaCertData()));
    Path token = dir.resolve("token");
    Files.writeString(token, c.getAutoOAuthToken());
    return Map.of(
        "KUBERNETES_SERVICE_HOST", server.getHost(),
        "KUBERNETES_SERVICE_PORT", Integer.toString(server.getPort()),
        "KUBERNETES_CERTS_CA_FILE", ca.toString(),
        "KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN", token.toString(),
        "KUBERNETES_AUTH_TRYKUBECONFIG", "false");
  }

  /**
   * A real API server is warm when a node starts; the mock is a JVM just started, whose first TLS
   * handshakes and lists run in its interpreter. The agent's three lists, each on a connection of
   * its own, a few times, before the node is started (none of it is measured).
   */
  static void warm(ApiServer api) {
    VERSION_WARNINGS.setLevel(java.util.logging.Level.SEVERE);
    for (int i = 0; i < WARM_ROUNDS; i++) {
      try (KubernetesClient c = api.newClient()) {
        c.resources(NodeBGP.class).list();
        c.resources(BGPPeer.class).list();
        c.resources(BGPAdvertisement.class).inAnyNamespace().list();
      }
    }
  }

  private static double awaitLine(ManagedProcess p, String line, long t0)
      throws InterruptedException, IOException {
    long end = t0 + 120_000_000_000L;
    while (System.nanoTime() < end) {
      if (Files.readString(p.log()).contains(line)) {
        return (System.nanoTime() - t0) / 1e9;
      }
      if (!p.isAlive()) {
        throw new IllegalStateException(p.name() + " exited:\n" + p.tail(30));
      }
      Thread.sleep(10);
    }
    throw new IllegalStateException(p.name() + ": no '" + line + "' after 120 s:\n" + p.tail(30));
  }

  /**
   * RSS by kind of mapping. The Java heap is the anonymous memory below 32 GiB (compressed oops put
   * the heap there, and the class space and the archive at 32 GiB and above).
   */
  static Sample sample(String target, long pid, double ready, double cpu) throws IOException {
    return sample(target, pid, ready, cpu, List.of(), Map.of());
  }

  static Sample sample(
      String target,
      long pid,
      double ready,
      double cpu,
      List<StartupTimeline.Step> timeline,
      Map<String, Double> cpuByThread)
      throws IOException {
    Map<String, Long> kinds = new LinkedHashMap<>();
    for (String k : List.of("java heap", "CDS/AOT archive", "libjvm.so", "other files", "native")) {
      kinds.put(k, 0L);
    }
    String kind = null;
    long privateDirty = 0;
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "smaps"))) {
      if (Character.isDigit(line.charAt(0)) || (line.charAt(0) >= 'a' && line.charAt(0) <= 'f')) {
        String[] f = line.split("\\s+", 6);
        if (f.length >= 5 && f[0].contains("-") && f[0].matches("[0-9a-f]+-[0-9a-f]+")) {
          long start = Long.parseUnsignedLong(f[0].substring(0, f[0].indexOf('-')), 16);
          String name = f.length == 6 ? f[5].strip() : "";
          if (name.endsWith(".jsa") || name.endsWith(".aot")) {
            kind = "CDS/AOT archive";
          } else if (name.endsWith("libjvm.so")) {
            kind = "libjvm.so";
          } else if (name.startsWith("/")) {
            kind = "other files";
          } else if (name.isEmpty() && start < (32L << 30)) {
            kind = "java heap";
          } else {
            kind = "native";
          }
          continue;
        }
      }
      if (line.startsWith("Rss:") && kind != null) {
        kinds.merge(kind, kib(line), Long::sum);
      } else if (line.startsWith("Private_Dirty:")) {
        privateDirty += kib(line);
      }
    }
    long rss = kinds.values().stream().mapToLong(Long::longValue).sum();
    int threads = count(Path.of("/proc", Long.toString(pid), "task"));
    int fds = count(Path.of("/proc", Long.toString(pid), "fd"));
    return new Sample(
        target, ready, cpu, rss, privateDirty, kinds, threads, fds, timeline, cpuByThread);
  }

  private static long kib(String line) {
    return Long.parseLong(line.split("\\s+")[1]) * 1024;
  }

  private static int count(Path dir) throws IOException {
    try (var s = Files.list(dir)) {
      return (int) s.count();
    }
  }

  private static String line(int run, Sample s) {
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            "run %d %-5s ready %.2f s, CPU %.2f s, RSS %.1f MiB (private dirty %.1f):",
            run,
            s.target(),
            s.readySeconds(),
            s.cpuToReady(),
            mib(s.rss()),
            mib(s.privateDirty())));
    s.kinds().forEach((k, v) -> b.append(String.format(Locale.ROOT, " %s %.1f", k, mib(v))));
    b.append(String.format(Locale.ROOT, "; threads %d, fds %d", s.threads(), s.fds()));
    s.timeline()
        .forEach(st -> b.append(String.format(Locale.ROOT, "%n  %6d ms %s", st.ms(), st.name())));
    if (!s.cpuByThread().isEmpty()) {
      b.append("\n  CPU to ready by thread (s):");
      s.cpuByThread().entrySet().stream()
          .filter(e -> e.getValue() > 0)
          .limit(12)
          .forEach(
              e -> b.append(String.format(Locale.ROOT, " %s %.2f;", e.getKey(), e.getValue())));
    }
    return b.toString();
  }

  static String report(
      List<Sample> samples, List<String> targets, List<String> extra, int idle, String load) {
    StringBuilder b = new StringBuilder();
    b.append("# footprint\n\n");
    b.append("load average before: ").append(load).append("; idle ").append(idle).append(" s");
    if (!extra.isEmpty()) {
      b.append("; extra JVM options: `").append(String.join(" ", extra)).append('`');
    }
    b.append("\n\nmedian of ")
        .append(samples.size() / Math.max(1, targets.size()))
        .append(" runs (MiB, s)\n\n");
    b.append("| target | ready | CPU to ready | RSS | private dirty |");
    List<String> kinds = new ArrayList<>(samples.getFirst().kinds().keySet());
    kinds.forEach(k -> b.append(' ').append(k).append(" |"));
    b.append(" threads | fds |\n|---|---:|---:|---:|---:|");
    kinds.forEach(k -> b.append("---:|"));
    b.append("---:|---:|\n");
    for (String t : targets) {
      List<Sample> of = samples.stream().filter(s -> s.target().equals(t)).toList();
      b.append("| ").append(t);
      b.append(String.format(Locale.ROOT, " | %.2f", median(of, Sample::readySeconds)));
      b.append(String.format(Locale.ROOT, " | %.2f", median(of, Sample::cpuToReady)));
      b.append(String.format(Locale.ROOT, " | %.1f", mib(median(of, s -> (double) s.rss()))));
      b.append(
          String.format(Locale.ROOT, " | %.1f", mib(median(of, s -> (double) s.privateDirty()))));
      for (String k : kinds) {
        b.append(
            String.format(Locale.ROOT, " | %.1f", mib(median(of, s -> (double) s.kinds().get(k)))));
      }
      b.append(String.format(Locale.ROOT, " | %.0f", median(of, s -> (double) s.threads())));
      b.append(String.format(Locale.ROOT, " | %.0f |\n", median(of, s -> (double) s.fds())));
    }
    for (String t : targets) {
      timeline(b, t, samples.stream().filter(s -> s.target().equals(t)).toList());
      cpuByThread(b, t, samples.stream().filter(s -> s.target().equals(t)).toList());
    }
    return b.toString();
  }

  /** The start-up steps of a target, ms after the exec, median of the runs that logged them. */
  private static void timeline(StringBuilder b, String target, List<Sample> of) {
    List<String> names =
        of.stream()
            .flatMap(s -> s.timeline().stream())
            .map(StartupTimeline.Step::name)
            .distinct()
            .toList();
    if (names.isEmpty()) {
      return;
    }
    b.append("\n`").append(target).append("`'s start-up (its log, ms after the exec, median of ");
    b.append(of.size()).append(" runs)\n\n| step | ms |\n|---|---:|\n");
    for (String n : names) {
      long[] v =
          of.stream()
              .flatMap(s -> s.timeline().stream())
              .filter(st -> st.name().equals(n))
              .mapToLong(StartupTimeline.Step::ms)
              .sorted()
              .toArray();
      b.append("| ").append(n).append(" | ").append(v[v.length / 2]).append(" |\n");
    }
  }

  /**
   * Where a target's CPU to ready went, by thread (numbers taken out of the names), median of the
   * runs; the threads with at least 0.02 s.
   */
  private static void cpuByThread(StringBuilder b, String target, List<Sample> of) {
    List<String> names =
        of.stream()
            .flatMap(s -> s.cpuByThread().entrySet().stream())
            .filter(e -> e.getValue() >= 0.02)
            .map(Map.Entry::getKey)
            .distinct()
            .toList();
    if (names.isEmpty()) {
      return;
    }
    b.append("\n`").append(target).append("`'s CPU to ready by thread (s, median of ");
    b.append(of.size()).append(" runs)\n\n| thread | s |\n|---|---:|\n");
    for (String n : names) {
      b.append(
          String.format(
              Locale.ROOT,
              "| %s | %.2f |%n",
              n,
              median(of, s -> s.cpuByThread().getOrDefault(n, 0.0))));
    }
  }

  private static double median(List<Sample> of, java.util.function.ToDoubleFunction<Sample> f) {
    double[] v = of.stream().mapToDouble(f).sorted().toArray();
    return v.length == 0 ? Double.NaN : v[v.length / 2];
  }

  private static double mib(double bytes) {
    return bytes / 1048576.0;
  }

  private static String need(String flag, String v) {
    if (v == null) {
      throw new IllegalArgumentException(flag + " needs a value");
    }
    return v;
  }

  /** The floor: a JVM with sartd's options that loads nothing of sart's and waits. */
  public static final class Floor {
    static final String READY = "event=floor-ready";

    private Floor() {}

    public static void main(String[] args) throws InterruptedException {
      System.out.println(READY);
      System.out.flush();
      Thread.sleep(Long.MAX_VALUE);
    }
  }
}
