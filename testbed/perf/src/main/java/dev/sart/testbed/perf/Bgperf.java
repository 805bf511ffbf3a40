package dev.sart.testbed.perf;

import dev.sart.testbed.Shell;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * {@code bin/bgperf}: runs the scenarios against the targets, one run at a time, and writes the
 * table ({@code bgperf.md} and {@code bgperf.csv}) into the output directory.
 *
 * <pre>
 * bgperf [--scenarios a,b,c,d] [--targets sart,bird,frr,gobgp,openbgpd] [--scale 1] [--peer-scale 1]
 *        [--out testbed/results] [--no-pin] [--hold-time 30] [--stall 120] [--timeout 600]
 *        [--sartd-opts '-XX:StartFlightRecording=...'] [--churn-rounds 1]
 * </pre>
 */
public final class Bgperf {
  /** What to run and how. */
  public record Plan(
      List<Scenario> scenarios,
      List<Target> targets,
      BenchRun.Options options,
      Path out,
      double prefixScale,
      double peerScale) {}

  private Bgperf() {}

  public static void main(String[] args) throws IOException {
    Plan plan;
    try {
      plan = parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("bgperf: " + e.getMessage());
      System.err.println(
          "usage: bgperf [--scenarios a,b,c,d,e] [--targets sart,bird,frr,gobgp,openbgpd] "
              + "[--scale F] [--peer-scale F] [--out DIR] [--no-pin] [--hold-time S] [--stall S] [--timeout S] [--sartd-opts 'JVM OPTIONS'] [--sart-advertise-peer-as] [--churn-rounds N] [--keep DIR] [--sart-log LEVEL] [--memory-reading]");
      System.exit(2);
      return;
    }
    List<Result> results = run(plan);
    boolean failed = results.stream().anyMatch(r -> !r.ok() || !r.bestPathWrong().isEmpty());
    System.exit(failed ? 1 : 0);
  }

  static Plan parse(String[] args) {
    List<Scenario> scenarios = Scenario.defaults();
    List<Target> targets = List.of(Target.values());
    double scale = 1;
    double peerScale = 1;
    Path out = SartdLauncher.repositoryRoot().resolve("testbed/results");
    BenchRun.Options o = BenchRun.Options.defaults();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      String v = i + 1 < args.length ? args[i + 1] : null;
      switch (a) {
        case "--scenarios" ->
            scenarios = Arrays.stream(need(a, v).split(",")).map(Scenario::named).toList();
        case "--targets" ->
            targets = Arrays.stream(need(a, v).split(",")).map(Target::named).toList();
        case "--scale" -> scale = number(a, v);
        case "--peer-scale" -> peerScale = number(a, v);
        case "--out" -> out = Path.of(need(a, v));
        case "--hold-time" -> o = o.withHoldTime((int) number(a, v));
        case "--stall" -> o = o.withStall(Duration.ofSeconds((long) number(a, v)));
        case "--timeout" -> o = o.withTimeout(Duration.ofSeconds((long) number(a, v)));
        case "--churn-rounds" -> o = o.withChurnRounds((int) number(a, v));
        case "--sartd-opts" -> o = o.withSartdOptions(List.of(need(a, v).trim().split("\\s+")));
        case "--keep" -> System.setProperty(BenchRun.KEEP, need(a, v));
        case "--sart-log" -> System.setProperty(Target.SART_LOG, need(a, v));
        case "--sart-advertise-peer-as" -> {
          System.setProperty(Target.ADVERTISE_PEER_AS, "true");
          i--;
        }
        case "--memory-reading" -> {
          System.setProperty(MemoryReading.PROPERTY, "true");
          i--;
        }
        case "--no-pin" -> {
          o = o.unpinned();
          i--;
        }
        default -> throw new IllegalArgumentException("unknown argument " + a);
      }
      i++;
    }
    final double s = scale;
    final double p = peerScale;
    return new Plan(scenarios.stream().map(x -> x.scaled(s, p)).toList(), targets, o, out, s, p);
  }

  private static String need(String flag, String v) {
    if (v == null) {
      throw new IllegalArgumentException(flag + " needs a value");
    }
    return v;
  }

  private static double number(String flag, String v) {
    try {
      return Double.parseDouble(need(flag, v));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(flag + ": not a number: " + v);
    }
  }

  /** Runs every scenario against every target and writes the table; returns the results. */
  public static List<Result> run(Plan plan) throws IOException {
    String machine = machine();
    String load = Files.readString(Path.of("/proc/loadavg")).strip();
    Instant start = Instant.now();
    System.out.println(machine);
    System.out.println("load average before the run: " + load);
    List<Result> results = new ArrayList<>();
    StringBuilder log = new StringBuilder();
    int total = plan.scenarios().size() * plan.targets().size();
    Report report = null;
    for (Scenario s : plan.scenarios()) {
      for (Target t : plan.targets()) {
        results.add(new BenchRun(s, t, plan.options(), log).run());
        // written after every run, so that an interrupted run leaves what it measured
        report = write(plan, results, total, start, machine, load, log);
      }
    }
    System.out.println();
    System.out.println(report == null ? "" : report.markdown());
    System.out.print(report == null ? "" : report.failures());
    System.out.println("written: " + plan.out().resolve("bgperf.md") + ", bgperf.csv, bgperf.log");
    return results;
  }

  private static Report write(
      Plan plan,
      List<Result> results,
      int total,
      Instant start,
      String machine,
      String load,
      StringBuilder log)
      throws IOException {
    String loadAfter = Files.readString(Path.of("/proc/loadavg")).strip();
    Report report = new Report(results, plan.targets(), plan.scenarios());
    Files.createDirectories(plan.out());
    StringBuilder md = new StringBuilder();
    md.append("# bgperf results\n\n");
    if (results.size() < total) {
      md.append("**Partial: ")
          .append(results.size())
          .append(" of ")
          .append(total)
          .append(" runs so far.**\n\n");
    }
    md.append("Run ")
        .append(start.truncatedTo(ChronoUnit.SECONDS))
        .append(", took ")
        .append(Duration.between(start, Instant.now()).toSeconds())
        .append(" s. Command: `bin/bgperf")
        .append(args(plan))
        .append("`\n\n");
    md.append("Scenarios:\n");
    plan.scenarios().forEach(s -> md.append("- ").append(s.describe()).append('\n'));
    md.append("\n").append(report.markdown()).append('\n');
    String failures = report.failures();
    if (!failures.isEmpty()) {
      md.append("Failures:\n\n").append(failures).append('\n');
    }
    md.append("Machine:\n\n```\n").append(machine).append("```\n\n");
    md.append("Load average (1, 5, 15 min) before the run: `")
        .append(load)
        .append("`, at the last write: `")
        .append(loadAfter)
        .append("`.\n\n");
    BenchRun.Options o = plan.options();
    md.append(
        o.targetCpus() == null
            ? "Not pinned: target, generators and monitor share both CPUs.\n"
            : "Pinning: the target on CPU "
                + o.targetCpus()
                + "; the generators (one BIRD) and the monitor (BIRD) on CPU "
                + o.helperCpus()
                + ", shared with each other and with the harness's polling (a query on BIRD's control socket every "
                + o.poll().toMillis()
                + " ms, "
                + o.churnPoll().toMillis()
                + " ms while a churn phase is timed; `ss` once the "
                + "generators have sent everything). Other processes of the machine were not excluded from either CPU.\n");
    if (!o.sartdOptions().isEmpty()) {
      md.append("Extra JVM options for sartd: `")
          .append(String.join(" ", o.sartdOptions()))
          .append("`.\n");
    }
    md.append("Hold time offered by generators and monitor: ").append(o.holdTime()).append(" s.\n");
    if (plan.scenarios().stream().anyMatch(Scenario::churn)) {
      md.append("Churn (d): ")
          .append(o.churnRounds())
          .append(" rounds of withdrawing and announcing again 10 %; the goals")
          .append(
              " are on the median of the rounds, the first round and the target's CPU seconds are beside it.\n");
    }
    Files.writeString(plan.out().resolve("bgperf.md"), md);
    Files.writeString(plan.out().resolve("bgperf.csv"), report.csv());
    Files.writeString(plan.out().resolve("bgperf.log"), log);
    return report;
  }

  private static String args(Plan plan) {
    StringBuilder sb = new StringBuilder();
    sb.append(" --scenarios ")
        .append(String.join(",", plan.scenarios().stream().map(Scenario::name).toList()));
    sb.append(" --targets ")
        .append(String.join(",", plan.targets().stream().map(Target::label).toList()));
    if (plan.prefixScale() != 1) {
      sb.append(" --scale ").append(plan.prefixScale());
    }
    if (plan.peerScale() != 1) {
      sb.append(" --peer-scale ").append(plan.peerScale());
    }
    if (plan.options().targetCpus() == null) {
      sb.append(" --no-pin");
    }
    if (plan.options().churnRounds() != BenchRun.DEFAULT_CHURN_ROUNDS) {
      sb.append(" --churn-rounds ").append(plan.options().churnRounds());
    }
    if (Boolean.getBoolean(Target.ADVERTISE_PEER_AS)) {
      sb.append(" --sart-advertise-peer-as");
    }
    return sb.toString();
  }

  /** CPU, memory, kernel and the versions of everything measured. */
  static String machine() {
    StringBuilder sb = new StringBuilder();
    sb.append(
        first(List.of("sh", "-c", "lscpu | grep -E '^(Model name|CPU\\(s\\)):' | tr -s ' '")));
    sb.append(first(List.of("sh", "-c", "grep MemTotal /proc/meminfo | tr -s ' '")));
    sb.append("kernel ").append(first(List.of("uname", "-r")));
    sb.append(first(List.of("sh", "-c", "bird --version 2>&1")));
    sb.append(first(List.of("sh", "-c", "/usr/lib/frr/bgpd --version 2>&1 | head -1")));
    sb.append(first(List.of("sh", "-c", "gobgpd --version 2>&1 | head -1")));
    sb.append(
        first(List.of("sh", "-c", "dpkg-query -W -f='openbgpd ${Version}\\n' openbgpd 2>&1")));
    sb.append("java ")
        .append(System.getProperty("java.vm.version"))
        .append(" (sartd: ")
        .append(String.join(" ", SartdLauncher.jvmOptions()))
        .append(")\n");
    return sb.toString();
  }

  private static String first(List<String> argv) {
    Shell.Result r = Shell.exec(argv);
    String out = (r.stdout().isBlank() ? r.stderr() : r.stdout()).strip();
    return out.toLowerCase(Locale.ROOT).isEmpty() ? "" : out + "\n";
  }
}
