package dev.sart.agent.cni;

import dev.sart.agent.ipam.Block;
import dev.sart.testbed.Node;
import dev.sart.testbed.Programs;
import dev.sart.testbed.Topology;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * sart-cni against the reference plugins (Debian's containernetworking-plugins: ptp with host-local
 * IPAM) in the same run: the wall time from exec to exit of ADD and DEL (veth, addresses, routes
 * and all), of VERSION alone, and of the JVM floor ({@link JvmFloor}: an empty main started the
 * plugin's way). The calls alternate between the two plugins so that both see the same machine
 * load. ADD/DEL run in the node's namespace through {@code ip netns exec} for both plugins (ptp
 * makes its host end where it runs); the cost of that wrapper alone is measured and printed too.
 *
 * <pre>
 * ./mvnw -B -q -pl kube-agent -am -Pcni-bench -DskipTests verify   # as root; -Dbench.rounds=200 -Dbench.warmup=20
 * </pre>
 *
 * <p>{@code -Dbench.plugin=DIR} times the plugin of another payload instead of {@code
 * sart-cni/target/dist}'s: the image's {@code /opt/sart/cni} (unpacked), on its own {@code
 * sart-cni.jre}; the JVM floor is then that runtime's. {@code -Dbench.baseline=DIR} (a {@code
 * sart-cni/target/dist} of another build, e.g. from a {@code git worktree} of the commit before a
 * change) times that plugin's ADD and DEL too, in the same rounds against the same agent, in an
 * order that alternates with this build's: a change of a millisecond is read from the two side by
 * side, not from two runs.
 */
public final class CniBenchmark {
  static final Path PTP_DIR = Path.of("/usr/lib/cni");

  /** The CPU slots of sart-cni's, sart-veth's and sart-router's VERSION and the floor's. */
  private static final int[] JVM_VERSION_KINDS = {4, 7, 8, 9};

  /** The CPU slots of the baseline plugin's ADD and DEL ({@code -Dbench.baseline}). */
  private static final int BASELINE_ADD = 10;

  private static final int BASELINE_DEL = 11;

  /** Held so that the level set on it stays (java.util.logging keeps loggers weakly). */
  private static final Logger CNI_LOG = Logger.getLogger("dev.sart.agent.cni");

  public static void main(String[] args) throws Exception {
    int rounds = Integer.getInteger("bench.rounds", 200);
    int warmup = Integer.getInteger("bench.warmup", 20);
    // the agent's per-call phase log (CniServer, FINE): where an ADD's time goes inside the agent
    Map<String, List<Long>> phases = new java.util.LinkedHashMap<>();
    boolean[] measuring = {false};
    if (Boolean.getBoolean("bench.phases")) {
      CNI_LOG.setLevel(Level.FINE);
      CNI_LOG.addHandler(
          new Handler() {
            @Override
            public void publish(LogRecord r) {
              String m = r.getMessage();
              if (measuring[0] && m != null && m.startsWith("CNI ADD phases ")) {
                synchronized (phases) {
                  for (String kv : m.substring("CNI ADD phases ".length()).split(" ")) {
                    int eq = kv.indexOf('=');
                    phases
                        .computeIfAbsent(kv.substring(0, eq), k -> new ArrayList<>())
                        .add(Long.parseLong(kv.substring(eq + 1).replace("us", "")));
                  }
                }
              }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
          });
    }
    if (!Files.isExecutable(PTP_DIR.resolve("ptp"))
        || !Files.isExecutable(PTP_DIR.resolve("host-local"))) {
      throw new IllegalStateException(
          "the reference plugins are missing: apt-get install containernetworking-plugins");
    }
    try (Topology t = Topology.create("cni-benchmark")) {
      Node node = t.node("node");
      Path socket = t.dir().resolve("sart.sock");
      AgentConfig config =
          AgentConfig.of(
                  socket,
                  Path.of("/var/run/netns", node.netns()),
                  "192.0.2.1",
                  null,
                  List.of(Block.parse("default=198.51.100.0/24")),
                  "default")
              .withMtu(1500);
      Node sartPod = t.node("sartpod");
      Node ptpPod = t.node("ptppod");
      String sartConf = new CniRuntime(socket).conf("1.0.0");
      String ptpConf =
          "{\"cniVersion\":\"1.0.0\",\"name\":\"bench-ptp\",\"type\":\"ptp\",\"ipMasq\":false,\"mtu\":1500,"
              + "\"ipam\":{\"type\":\"host-local\",\"ranges\":[[{\"subnet\":\"203.0.113.0/24\"}]],\"dataDir\":\""
              + t.dir().resolve("host-local")
              + "\"}}";
      // -Dbench.plugin=DIR: another payload, e.g. the image's /opt/sart/cni (its own runtime)
      String pluginDir = System.getProperty("bench.plugin", "");
      Path plugin =
          pluginDir.isEmpty()
              ? CniRuntime.PLUGIN
              : Path.of(pluginDir).toAbsolutePath().resolve("sart-cni");
      String sart = plugin.toString();
      String ptp = PTP_DIR.resolve("ptp").toString();
      String sartVeth = plugin.resolveSibling("sart-veth").toString();
      String sartRouter = plugin.resolveSibling("sart-router").toString();
      List<String> inNode = List.of("ip", "netns", "exec", node.netns());
      String floor =
          JvmFloor.create(plugin.getParent(), Path.of("target/cni-bench-floor").toAbsolutePath())
              .toString();

      String[] jvmVersion = {sart, sartVeth, sartRouter, floor};
      String baselineDir = System.getProperty("bench.baseline", "");
      String baseline =
          baselineDir.isEmpty()
              ? null
              : Path.of(baselineDir).toAbsolutePath().resolve("sart-cni").toString();
      if (baseline != null && !Files.isExecutable(Path.of(baseline))) {
        throw new IllegalStateException("-Dbench.baseline: no plugin at " + baseline);
      }
      // wall and CPU of ADD and DEL: this build's [0], [1] and the baseline's [2], [3]
      long[][] versus = new long[4][rounds];
      long[][] versusCpu = new long[4][rounds];
      try (CniAgent agent = CniAgent.start(config)) {
        long[][] samples = new long[12][rounds];
        long[][] cpu = new long[7][rounds];
        long[][] agentCpu = new long[7][rounds];
        long[][] chainedCpu = new long[2][rounds];
        long[] floorCpu = new long[rounds];
        for (int i = -warmup; i < rounds; i++) {
          String id = "bench" + (i + warmup);
          measuring[0] = i >= 0;
          // the baseline's ADD and DEL, before this build's in even rounds and after them in odd
          long[] base = {0, 0};
          boolean baseFirst = i % 2 == 0;
          if (baseline != null && baseFirst) {
            base = addAndDel(baseline, inNode, id + "b", sartPod, sartConf);
          }
          long add = time(0, cat(inNode, sart), env("ADD", id, sartPod), sartConf);
          long ptpAdd = time(1, cat(inNode, ptp), env("ADD", id, ptpPod), ptpConf);
          long del = time(2, cat(inNode, sart), env("DEL", id, sartPod), sartConf);
          if (baseline != null && !baseFirst) {
            base = addAndDel(baseline, inNode, id + "b", sartPod, sartConf);
          }
          long ptpDel = time(3, cat(inNode, ptp), env("DEL", id, ptpPod), ptpConf);
          long ptpVersion = time(5, List.of(ptp), Map.of("CNI_COMMAND", "VERSION"), ptpConf);
          long exec = time(6, cat(inNode, "true"), Map.of(), "");
          long inAdd = inProcess(env("ADD", id + "x", sartPod), sartConf);
          long inDel = inProcess(env("DEL", id + "x", sartPod), sartConf);
          // VERSION of sart-cni, of the chained plugins (the same jar and cache under their own
          // names) and the JVM floor (the same launcher, flags and JDK with an empty main,
          // JvmFloor), in an order that rotates every round: in a fixed order the later calls
          // measured up to 4 ms of CPU less at p50 than the first, the same code
          long[] jvm = new long[JVM_VERSION_KINDS.length];
          for (int j = 0; j < jvm.length; j++) {
            int v = Math.floorMod(i + j, jvm.length);
            jvm[v] =
                time(
                    JVM_VERSION_KINDS[v],
                    List.of(jvmVersion[v]),
                    Map.of("CNI_COMMAND", "VERSION"),
                    sartConf);
          }
          long[] s = {
            add, ptpAdd, del, ptpDel, jvm[0], ptpVersion, exec, inAdd, inDel, jvm[1], jvm[2], jvm[3]
          };
          if (i >= 0) {
            for (int k = 0; k < s.length; k++) {
              samples[k][i] = s[k];
            }
            for (int k = 0; k < 7; k++) {
              cpu[k][i] = lastCpu[k][0];
              agentCpu[k][i] = lastCpu[k][1];
            }
            chainedCpu[0][i] = lastCpu[7][0];
            chainedCpu[1][i] = lastCpu[8][0];
            floorCpu[i] = lastCpu[9][0];
            long[] v = {add, del, base[0], base[1]};
            long[] vc = {
              lastCpu[0][0], lastCpu[2][0], lastCpu[BASELINE_ADD][0], lastCpu[BASELINE_DEL][0]
            };
            for (int k = 0; k < 4; k++) {
              versus[k][i] = v[k];
              versusCpu[k][i] = vc[k];
            }
          }
        }
        String[] names = {"ADD", "DEL", "VERSION"};
        System.out.printf(
            "%n%d rounds after %d warm-up rounds; wall time from exec to exit, ms%n",
            rounds, warmup);
        System.out.printf(
            "%-26s %9s %9s %9s %9s %9s%n",
            "", "sart p50", "sart p99", "ptp p50", "ptp p99", "p50 ratio");
        for (int k = 0; k < 3; k++) {
          double sp50 = pct(samples[2 * k], 50);
          double pp50 = pct(samples[2 * k + 1], 50);
          System.out.printf(
              "%-26s %9.1f %9.1f %9.1f %9.1f %9.2f%n",
              names[k],
              sp50,
              pct(samples[2 * k], 99),
              pp50,
              pct(samples[2 * k + 1], 99),
              sp50 / pp50);
        }
        System.out.printf(
            "%-26s %9.1f %9.1f  (included in ADD and DEL of both)%n",
            "ip netns exec alone", pct(samples[6], 50), pct(samples[6], 99));
        System.out.printf(
            "%-26s %9.1f %9.1f  (the plugin's code in this JVM: the agent's share)%n",
            "sart ADD without the exec", pct(samples[7], 50), pct(samples[7], 99));
        System.out.printf(
            "%-26s %9.1f %9.1f%n",
            "sart DEL without the exec", pct(samples[8], 50), pct(samples[8], 99));
        for (int k = 9; k < 11; k++) {
          System.out.printf(
              "%-26s %9.1f %9.1f  (%.2f x sart-cni's VERSION)%n",
              "VERSION " + (k == 9 ? "sart-veth" : "sart-router"),
              pct(samples[k], 50),
              pct(samples[k], 99),
              pct(samples[k], 50) / pct(samples[4], 50));
        }
        double floorP50 = pct(samples[11], 50);
        System.out.printf(
            "%-26s %9.1f %9.1f  (an empty main, the plugin's launcher, flags and JDK; JvmFloor)%n",
            "JVM floor", floorP50, pct(samples[11], 99));
        System.out.printf(
            "%-26s %9.1f %9.1f  (p50 minus the floor's p50: ADD, VERSION)%n",
            "over the JVM floor", pct(samples[0], 50) - floorP50, pct(samples[4], 50) - floorP50);
        System.out.printf(
            "%nCPU time per call (user + system), ms, p50: the plugin's process (with what it waited for:"
                + " ptp's host-local) and this JVM meanwhile (sart: the agent's work; a little noise for ptp)%n");
        System.out.printf(
            "%-26s %9s %9s %9s %9s %9s%n", "", "sart", "+agent", "ptp", "+JVM", "ratio");
        for (int k = 0; k < 3; k++) {
          double sc = pct(cpu[2 * k], 50);
          double sa = pct(agentCpu[2 * k], 50);
          double pc = pct(cpu[2 * k + 1], 50);
          System.out.printf(
              "%-26s %9.1f %9.1f %9.1f %9.1f %9.2f%n",
              names[k], sc, sa, pc, pct(agentCpu[2 * k + 1], 50), sc / pc);
        }
        System.out.printf("%-26s %9.1f%n", "ip netns exec alone", pct(cpu[6], 50));
        System.out.printf(
            "%-26s %9.1f  (ADD %.1f, VERSION %.1f over it)%n",
            "JVM floor",
            pct(floorCpu, 50),
            pct(cpu[0], 50) - pct(floorCpu, 50),
            pct(cpu[4], 50) - pct(floorCpu, 50));
        for (int k = 0; k < 2; k++) {
          System.out.printf(
              "%-26s %9.1f  (%.2f x sart-cni's VERSION)%n",
              "VERSION " + (k == 0 ? "sart-veth" : "sart-router"),
              pct(chainedCpu[k], 50),
              pct(chainedCpu[k], 50) / pct(cpu[4], 50));
        }
        if (baseline != null) {
          System.out.printf(
              "%nThis build against the baseline %s (the same rounds, alternating), ms, p50:%n",
              baselineDir);
          System.out.printf(
              "%-26s %9s %9s %9s %9s %9s %9s%n", "", "wall", "base", "diff", "CPU", "base", "diff");
          for (int k = 0; k < 2; k++) {
            double w = pct(versus[k], 50);
            double bw = pct(versus[k + 2], 50);
            double c = pct(versusCpu[k], 50);
            double bc = pct(versusCpu[k + 2], 50);
            System.out.printf(
                "%-26s %9.1f %9.1f %+9.1f %9.1f %9.1f %+9.1f%n",
                k == 0 ? "ADD" : "DEL", w, bw, w - bw, c, bc, c - bc);
          }
        }
        synchronized (phases) {
          if (!phases.isEmpty()) {
            System.out.printf(
                "%nInside the agent, ADD (both kinds above; CniServer's FINE phase log), ms:%n");
            System.out.printf("  %-10s %7s %7s %7s%n", "phase", "p50", "mean", "p90");
            for (Map.Entry<String, List<Long>> e : phases.entrySet()) {
              long[] us = e.getValue().stream().mapToLong(Long::longValue).toArray();
              // pct() takes ns; these are µs
              System.out.printf(
                  "  %-10s %7.2f %7.2f %7.2f%n",
                  e.getKey(),
                  pct(us, 50) * 1e3,
                  Arrays.stream(us).average().orElse(0) / 1e3,
                  pct(us, 90) * 1e3);
            }
          }
        }
      }
    }
  }

  private static long inProcess(Map<String, String> env, String conf) {
    long start = System.nanoTime();
    CniRuntime.inProcess(env, conf).ok();
    return System.nanoTime() - start;
  }

  /** The baseline plugin's ADD then DEL of one attachment, as CPU slots BASELINE_ADD, _DEL. */
  private static long[] addAndDel(
      String plugin, List<String> inNode, String id, Node pod, String conf)
      throws IOException, InterruptedException {
    long add = time(BASELINE_ADD, cat(inNode, plugin), env("ADD", id, pod), conf);
    long del = time(BASELINE_DEL, cat(inNode, plugin), env("DEL", id, pod), conf);
    return new long[] {add, del};
  }

  private static Map<String, String> env(String command, String id, Node pod) {
    return Map.of(
        "CNI_COMMAND",
        command,
        "CNI_CONTAINERID",
        id,
        "CNI_NETNS",
        "/var/run/netns/" + pod.netns(),
        "CNI_IFNAME",
        "eth0",
        "CNI_PATH",
        PTP_DIR.toString());
  }

  private static List<String> cat(List<String> prefix, String last) {
    List<String> l = new ArrayList<>(prefix);
    l.add(last);
    return l;
  }

  /**
   * Per kind of call, the last call's CPU: the child's (with its waited-for children) and this
   * JVM's, ns.
   */
  private static final long[][] lastCpu = new long[12][2];

  private static final MethodHandle GETRUSAGE =
      Linker.nativeLinker()
          .downcallHandle(
              Linker.nativeLinker().defaultLookup().find("getrusage").orElseThrow(),
              FunctionDescriptor.of(
                  ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));

  /** getrusage(RUSAGE_CHILDREN): user + system time of every child reaped so far, ns. */
  private static long childrenCpu() {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment ru =
          a.allocate(144); // struct rusage; ru_utime and ru_stime are the first two timevals
      if ((int) GETRUSAGE.invokeExact(-1, ru) != 0) {
        throw new IllegalStateException("getrusage failed");
      }
      long[] tv = ru.asSlice(0, 32).toArray(ValueLayout.JAVA_LONG);
      return (tv[0] + tv[2]) * 1_000_000_000L + (tv[1] + tv[3]) * 1000L;
    } catch (Throwable e) {
      throw new IllegalStateException(e);
    }
  }

  private static final MethodHandle CLOCK_GETTIME =
      Linker.nativeLinker()
          .downcallHandle(
              Linker.nativeLinker().defaultLookup().find("clock_gettime").orElseThrow(),
              FunctionDescriptor.of(
                  ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));

  /**
   * clock_gettime(CLOCK_PROCESS_CPUTIME_ID): this JVM's CPU time, ns (the MXBean's has a 10 ms tick
   * here).
   */
  private static long selfCpu() {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment ts = a.allocate(16);
      if ((int) CLOCK_GETTIME.invokeExact(2, ts) != 0) {
        throw new IllegalStateException("clock_gettime failed");
      }
      return ts.get(ValueLayout.JAVA_LONG, 0) * 1_000_000_000L + ts.get(ValueLayout.JAVA_LONG, 8);
    } catch (Throwable e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Nanoseconds from starting the process to its exit; fails unless it exits 0. Records its CPU as
   * call {@code kind}.
   */
  private static long time(int kind, List<String> argv, Map<String, String> env, String stdin)
      throws IOException, InterruptedException {
    long children = childrenCpu();
    long self = selfCpu();
    ProcessBuilder pb = Programs.processBuilder(argv);
    pb.environment().clear();
    pb.environment().put("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
    pb.environment().putAll(env);
    pb.redirectError(ProcessBuilder.Redirect.INHERIT);
    long start = System.nanoTime();
    Process p = pb.start();
    try (OutputStream in = p.getOutputStream()) {
      in.write(stdin.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      // a plugin may close stdin unread (ptp's VERSION) and still be exiting when the write
      // fails; its exit code below says whether the call failed
    }
    byte[] out;
    try (InputStream o = p.getInputStream()) {
      out = o.readAllBytes();
    }
    int code = p.waitFor();
    long elapsed = System.nanoTime() - start;
    lastCpu[kind][1] = selfCpu() - self;
    // the JDK's reaper thread has waited for it when waitFor returns
    lastCpu[kind][0] = childrenCpu() - children;
    if (code != 0) {
      throw new IllegalStateException(
          argv + " " + env + " exited " + code + ": " + new String(out, StandardCharsets.UTF_8));
    }
    return elapsed;
  }

  private static double pct(long[] ns, int p) {
    long[] s = ns.clone();
    Arrays.sort(s);
    int idx = (int) Math.ceil(p / 100.0 * s.length) - 1;
    return s[Math.max(0, Math.min(s.length - 1, idx))] / 1e6;
  }
}
