package dev.sart.testbed.perf;

import static org.awaitility.Awaitility.await;

import dev.sart.testbed.Node;
import dev.sart.testbed.Topology;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One scenario against one target, bgperf style: generators (BIRD) → target → monitor (BIRD), each
 * in its own namespace, the generators' 198.51.100.0/24 link towards the target and the monitor's
 * 192.0.2.0/30. The clock starts when the generator sessions are enabled; the monitor's route count
 * (from BIRD's per-protocol counter, an O(1) query) is sampled every {@link Options#poll}.
 */
final class BenchRun {
  static final String MONITOR = "192.0.2.2";
  static final long MONITOR_AS = 65999;
  private static final Pattern COMMUNITY =
      Pattern.compile("BGP\\.community:.*\\(" + Generators.AS + ",\\s*(\\d+)\\)");

  /** Churn rounds unless asked otherwise: an odd number, so the median is one of them. */
  static final int DEFAULT_CHURN_ROUNDS = 3;

  /**
   * @param poll how often the monitor and the generators are sampled
   * @param stable how long the monitor's count must stay unchanged to count as converged
   * @param stall a run fails when the count has not moved for this long before converging
   * @param holdTime hold time the generators and the monitor offer (the negotiated one is the
   *     lower)
   * @param targetCpus CPUs the target is pinned to (null: not pinned)
   * @param helperCpus CPUs of the generators and the monitor (null: not pinned)
   * @param timeout a run fails when it has not converged after this long
   * @param sartdOptions JVM options for sartd after those of sartd/jvm.options (e.g. a flight
   *     recording)
   * @param churnRounds rounds of withdrawing and announcing again 10 % in scenario d (see {@link
   *     #withChurnRounds})
   */
  record Options(
      Duration poll,
      Duration stable,
      Duration stall,
      int holdTime,
      String targetCpus,
      String helperCpus,
      Duration timeout,
      List<String> sartdOptions,
      int churnRounds) {
    Options {
      if (churnRounds < 1) {
        throw new IllegalArgumentException("churn rounds must be at least 1, not " + churnRounds);
      }
    }

    /** {@link #DEFAULT_CHURN_ROUNDS} churn rounds. */
    Options(
        Duration poll,
        Duration stable,
        Duration stall,
        int holdTime,
        String targetCpus,
        String helperCpus,
        Duration timeout,
        List<String> sartdOptions) {
      this(
          poll,
          stable,
          stall,
          holdTime,
          targetCpus,
          helperCpus,
          timeout,
          sartdOptions,
          DEFAULT_CHURN_ROUNDS);
    }

    /**
     * How often the monitor is sampled while a churn phase is timed: at most 10 ms. The phases last
     * 0.1-3 s; sampled every 200 ms, every figure below 0.2 s read as the first sample, and at 50
     * ms two targets 20 ms apart could not be told apart. A sample is one query on BIRD's control
     * socket ({@link BirdInstance#birdc}).
     */
    Duration churnPoll() {
      Duration fine = Duration.ofMillis(10);
      return poll.compareTo(fine) < 0 ? poll : fine;
    }

    static Options defaults() {
      return new Options(
          Duration.ofMillis(50),
          Duration.ofSeconds(3),
          Duration.ofSeconds(120),
          30,
          "1",
          "0",
          Duration.ofMinutes(10),
          List.of());
    }

    Options withHoldTime(int s) {
      return new Options(
          poll, stable, stall, s, targetCpus, helperCpus, timeout, sartdOptions, churnRounds);
    }

    Options withStall(Duration d) {
      return new Options(
          poll, stable, d, holdTime, targetCpus, helperCpus, timeout, sartdOptions, churnRounds);
    }

    Options withTimeout(Duration d) {
      return new Options(
          poll, stable, stall, holdTime, targetCpus, helperCpus, d, sartdOptions, churnRounds);
    }

    Options unpinned() {
      return new Options(
          poll, stable, stall, holdTime, null, null, timeout, sartdOptions, churnRounds);
    }

    Options withSartdOptions(List<String> o) {
      return new Options(
          poll,
          stable,
          stall,
          holdTime,
          targetCpus,
          helperCpus,
          timeout,
          List.copyOf(o),
          churnRounds);
    }

    /**
     * Rounds of withdraw 10 % / re-announce in scenario d before everything is withdrawn: the table
     * shows their median, and the first round on its own (a JIT-compiled target's first round may
     * also pay for compiling the withdrawal path, see LOG.md, "churn (scenario d)"); each round
     * goes to the log.
     */
    Options withChurnRounds(int n) {
      return new Options(
          poll, stable, stall, holdTime, targetCpus, helperCpus, timeout, sartdOptions, n);
    }
  }

  private final Scenario scenario;
  private final Target target;
  private final Options options;
  private final StringBuilder log;

  BenchRun(Scenario scenario, Target target, Options options, StringBuilder log) {
    this.scenario = scenario;
    this.target = target;
    this.options = options;
    this.log = log;
  }

  private void say(String fmt, Object... args) {
    // the wall-clock time (UTC) lets the lines be matched with a flight recording of the target
    String line =
        "%s [%s/%s] %s"
            .formatted(
                LocalTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.MILLIS),
                scenario.name(),
                target.label(),
                fmt.formatted(args));
    System.out.println(line);
    log.append(line).append('\n');
  }

  /**
   * Set (by {@code --keep DIR}): each run's configurations and daemon logs are kept in
   * DIR/&lt;scenario&gt;-&lt;target&gt;.
   */
  static final String KEEP = "bgperf.keep";

  /** Runs the scenario; a failure becomes a result with an error (and the daemons' log tails). */
  Result run() {
    Measure m = new Measure();
    try (Topology t = Topology.create("bgperf-" + scenario.name() + "-" + target.label())) {
      String keep = System.getProperty(KEEP);
      if (keep != null) {
        t.preserveFilesIn(Path.of(keep, scenario.name() + "-" + target.label()));
      }
      try {
        run(t, m);
      } catch (RuntimeException | AssertionError e) {
        m.error = e.getMessage() == null ? e.toString() : e.getMessage();
        if (m.running != null) {
          m.error += "\n" + m.running.logTail();
        }
        say("FAILED: %s", m.error);
      } finally {
        m.birds.forEach(BirdInstance::close);
      }
    }
    return m.result(target, scenario);
  }

  /** What is measured so far (a failed run keeps what it had). */
  private static final class Measure {
    double ready = Double.NaN;
    double establish = Double.NaN;
    double firstPrefix = Double.NaN;
    double generator = Double.NaN;
    double elapsed = Double.NaN;
    ChurnPhase withdraw10 = ChurnPhase.NONE;
    ChurnPhase reannounce10 = ChurnPhase.NONE;
    ChurnPhase withdrawAll = ChurnPhase.NONE;
    ProcStats idle;

    /** One second after the monitor's session came up (issue 29's idle RSS). */
    ProcStats strictIdle;

    ProcStats converged;
    long monitorRoutes;
    List<String> expiries = List.of();
    int checked;
    List<String> wrong = List.of();
    String error;
    Target.Running running;

    /** The generators' and the monitor's BIRD, whose control connections are closed at the end. */
    final List<BirdInstance> birds = new ArrayList<>();

    Result result(Target target, Scenario s) {
      long idleRss = idle == null ? 0 : idle.rssBytes();
      long peak = converged == null ? 0 : converged.peakRssBytes();
      double cpu =
          converged == null || idle == null
              ? Double.NaN
              : converged.cpuSeconds() - idle.cpuSeconds();
      double bpr =
          converged == null || idle == null ? Double.NaN : (double) (peak - idleRss) / s.paths();
      double strict =
          converged == null || strictIdle == null
              ? Double.NaN
              : (double) (converged.rssBytes() - strictIdle.rssBytes()) / s.paths();
      double startupCpu = idle == null ? Double.NaN : idle.cpuSeconds();
      return new Result(
          target,
          s,
          ready,
          startupCpu,
          establish,
          firstPrefix,
          generator,
          elapsed,
          idleRss,
          peak,
          cpu,
          bpr,
          strict,
          withdraw10,
          reannounce10,
          withdrawAll,
          monitorRoutes,
          expiries,
          checked,
          wrong,
          error);
    }
  }

  private void run(Topology t, Measure m) {
    Node gen = t.node("gen");
    Node tgt = t.node("tgt");
    Node mon = t.node("mon");
    var gl = t.link(gen, tgt);
    for (int i = 0; i < scenario.peers(); i++) {
      gen.address(gl.aName(), Generators.address(i) + "/24");
      tgt.address(gl.bName(), Generators.targetAddress(i) + "/24");
    }
    var ml = t.link(tgt, mon);
    tgt.address(ml.aName(), Target.MONITOR_SIDE + "/30");
    mon.address(ml.bName(), MONITOR + "/30");

    say("starting %s", target.label());
    long started = System.nanoTime();
    m.running =
        target.start(
            tgt,
            scenario.peers(),
            MONITOR,
            MONITOR_AS,
            options.targetCpus(),
            options.sartdOptions(),
            scenario.addPath());
    BirdInstance monitor =
        BirdInstance.start(
            mon, "monitor", monitorConfig(), options.helperCpus(), Duration.ofSeconds(30));
    m.birds.add(monitor);
    await("monitor session Established")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .failFast("target exited", () -> !m.running.alive())
        .until(() -> monitor.protocols("mon").get("mon").established());
    m.ready = (System.nanoTime() - started) / 1e9;
    say("monitor session Established %.2f s after the target's start", m.ready);
    // the idle RSS of issue 29's memory per route: one second after the monitor's session is up
    sleep(Duration.ofSeconds(1));
    m.strictIdle = ProcStats.of(m.running.pids());
    MemoryReading.Idle idleMap = reading() ? idle(m.running.pids().getFirst()) : null;
    say("writing the generators' configuration (%,d routes)", scenario.paths());
    BirdInstance gens =
        BirdInstance.start(
            gen,
            "gen",
            Generators.config(scenario, Target.AS, options.holdTime()),
            options.helperCpus(),
            Duration.ofMinutes(5));
    m.birds.add(gens);
    m.idle = ProcStats.of(m.running.pids());
    say(
        "idle: RSS %,d kB; enabling %d generator sessions",
        m.idle.rssBytes() / 1024, scenario.peers());

    long t0 = System.nanoTime();
    gens.birdc("enable \"g*\"");
    converge(m, gens, monitor, t0);
    m.converged = ProcStats.of(m.running.pids());
    say(
        "converged: elapsed %.2f s, generators %.2f s, peak RSS %,d kB, CPU %.2f s",
        m.elapsed,
        m.generator,
        m.converged.peakRssBytes() / 1024,
        m.converged.cpuSeconds() - m.idle.cpuSeconds());
    say(
        "memory per route: %.0f B (peak RSS over the idle RSS), %.0f B by RSS (RSS at convergence"
            + " over the RSS 1 s after the monitor's session came up, %,d kB)",
        (double) (m.converged.peakRssBytes() - m.idle.rssBytes()) / scenario.paths(),
        (double) (m.converged.rssBytes() - m.strictIdle.rssBytes()) / scenario.paths(),
        m.strictIdle.rssBytes() / 1024);
    if (idleMap != null) {
      read(m.running.pids().getFirst(), idleMap);
    }
    if (scenario.samePrefixes() && !scenario.addPath()) {
      checkBestPaths(m, monitor);
    }
    say(
        "the generators received %,d updates and withdrawals from the target",
        generatorsReceived(gens));
    BirdInstance.Protocol atMonitor = monitor.protocols("mon").get("mon");
    say(
        "the monitor received %,d updates and withdrawals for %,d prefixes",
        atMonitor.received(), atMonitor.imported());
    if (scenario.churn()) {
      churn(m, gens, monitor);
      say("after the churn the generators had received %,d", generatorsReceived(gens));
    }
    List<String> expiries = new ArrayList<>(gens.holdTimerExpiries());
    expiries.addAll(monitor.holdTimerExpiries());
    m.expiries = expiries;
    Map<String, BirdInstance.Protocol> after = gens.protocols("g*");
    if (!monitor.protocols("mon").get("mon").established()
        || after.values().stream().anyMatch(p -> !p.established())) {
      throw new IllegalStateException(
          "a session left Established during the run: " + after.values() + "\n" + gens.logTail());
    }
    if (!expiries.isEmpty()) {
      throw new IllegalStateException("hold timer expired: " + expiries);
    }
    if (!m.running.alive()) {
      throw new IllegalStateException("the target exited during the run");
    }
  }

  private String monitorConfig() {
    return """
        router id %s;
        log stderr { info, remote, warning, error, auth, fatal, bug };
        protocol device { scan time 60; }
        protocol bgp mon {
          local %s as %d;
          neighbor %s as %d;
          hold time %d;
          connect delay time 1;
          connect retry time 1;
          error wait time 1, 5;
          ipv4 { import all; export none;%s };
        }
        """
        .formatted(
            MONITOR,
            MONITOR,
            MONITOR_AS,
            Target.MONITOR_SIDE,
            Target.AS,
            options.holdTime(),
            scenario.addPath() ? " add paths rx;" : "");
  }

  /** Whether this run reads where sartd's memory per route goes ({@link MemoryReading}). */
  private boolean reading() {
    return target == Target.SART && MemoryReading.on();
  }

  private static MemoryReading.Idle idle(long pid) {
    try {
      return MemoryReading.idle(pid);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private void read(long pid, MemoryReading.Idle idleMap) {
    try {
      MemoryReading.read(pid, idleMap, scenario.paths(), l -> say("%s", l));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static double seconds(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }

  /** How long a drop of the monitor's count by more than 1 % may last before the run fails. */
  private static final double DROP_LIMIT_SECONDS = 2.0;

  /** Samples until the monitor holds ≥ 99 % of the prefixes and its count is stable. */
  private void converge(Measure m, BirdInstance gens, BirdInstance monitor, long t0) {
    long expected = scenario.monitorRoutes();
    long last = -1;
    long lastReceived = -1;
    double lastChange = 0;
    long max = 0;
    double droppedSince = Double.NaN;
    boolean generatorsDone = false;
    boolean established = false;
    while (true) {
      sleep(options.poll());
      double now = seconds(t0);
      if (!m.running.alive()) {
        throw new IllegalStateException("the target exited");
      }
      if (!generatorsDone) {
        Map<String, BirdInstance.Protocol> ps = gens.protocols("g*");
        boolean allUp =
            ps.size() == scenario.peers()
                && ps.values().stream().allMatch(BirdInstance.Protocol::established);
        if (allUp && !established) {
          established = true;
          m.establish = now;
          say("sessions Established after %.2f s", now);
        }
        if (established && !allUp) {
          throw new IllegalStateException(
              "a generator session went down: " + ps.values() + "\n" + gens.logTail());
        }
        if (allUp
            && ps.values().stream()
                .allMatch(
                    p ->
                        p.exported() >= (long) scenario.prefixesPerPeer() * scenario.pathsPerPeer())
            && sendQueue(gens) == 0) {
          generatorsDone = true;
          m.generator = seconds(t0);
          say("generators done after %.2f s", m.generator);
        }
      }
      BirdInstance.Protocol mp = monitor.protocols("mon").get("mon");
      long count = mp == null ? 0 : mp.imported();
      long received = mp == null ? 0 : mp.received();
      if (count > 0 && Double.isNaN(m.firstPrefix)) {
        m.firstPrefix = now;
      }
      // stable means no update at all: in (b) the best paths change while the count stands still
      if (count != last || received != lastReceived) {
        last = count;
        lastReceived = received;
        lastChange = now;
      }
      max = Math.max(max, count);
      m.monitorRoutes = count;
      // bgperf2's rule, in time instead of samples: a drop of more than 1 % that lasts 2 s (a best
      // path replaced by a withdrawal and an announcement may dip for a moment)
      if (count < max - Math.max(1, max / 100)) {
        droppedSince = Double.isNaN(droppedSince) ? now : droppedSince;
      } else {
        droppedSince = Double.NaN;
      }
      if (now - droppedSince >= DROP_LIMIT_SECONDS) {
        throw new IllegalStateException(
            "the monitor's count dropped from %,d to %,d".formatted(max, count));
      }
      if (count >= expected * 0.99
          && generatorsDone
          && now - lastChange >= options.stable().toMillis() / 1e3) {
        m.elapsed = lastChange;
        return;
      }
      if (now > options.timeout().toMillis() / 1e3) {
        throw new IllegalStateException(
            "timeout: the monitor holds %,d of %,d routes after %.0f s"
                .formatted(count, expected, now));
      }
      if (now - lastChange > options.stall().toMillis() / 1e3) {
        throw new IllegalStateException(
            "stalled: the monitor holds %,d of %,d routes, unchanged for %.0f s%s"
                .formatted(
                    count,
                    expected,
                    now - lastChange,
                    generatorsDone
                        ? ""
                        : " (generators not done: "
                            + gens.protocols("g*").values()
                            + ", Send-Q "
                            + sendQueue(gens)
                            + ")\n"
                            + gens.logTail()));
      }
    }
  }

  /**
   * Scenario d: withdraw 10 %, announce it again (as many rounds as asked; the table shows their
   * median and the first), withdraw everything; each timed from the {@code birdc} command until the
   * monitor agrees.
   */
  private void churn(Measure m, BirdInstance gens, BirdInstance monitor) {
    long all = scenario.distinctPrefixes();
    long rest = all - (long) scenario.peers() * scenario.churnPerPeer();
    for (int round = 1; round <= options.churnRounds(); round++) {
      String suffix = round == 1 ? "" : " (round " + round + ")";
      double cpu0 = cpuSeconds(m);
      long t0 = System.nanoTime();
      gens.birdc("disable \"" + Generators.churnPattern() + "\"");
      m.withdraw10 = awaitCount(m, monitor, rest, t0, cpu0, "withdraw 10 %" + suffix, m.withdraw10);
      cpu0 = cpuSeconds(m);
      t0 = System.nanoTime();
      gens.birdc("enable \"" + Generators.churnPattern() + "\"");
      m.reannounce10 =
          awaitCount(m, monitor, all, t0, cpu0, "re-announce 10 %" + suffix, m.reannounce10);
    }
    double cpu0 = cpuSeconds(m);
    long t0 = System.nanoTime();
    for (String p : Generators.allStaticPatterns(scenario)) {
      gens.birdc("disable \"" + p + "\"");
    }
    m.withdrawAll = awaitCount(m, monitor, 0, t0, cpu0, "withdraw everything", m.withdrawAll);
  }

  /**
   * Waits until the monitor holds {@code expected} routes; returns {@code phase} with this round:
   * the seconds since {@code t0} and the target's CPU time since {@code cpu0} (user + system, from
   * /proc: on a shared machine a steadier figure than the elapsed time for comparing two builds).
   */
  private ChurnPhase awaitCount(
      Measure m,
      BirdInstance monitor,
      long expected,
      long t0,
      double cpu0,
      String what,
      ChurnPhase phase) {
    long last = -1;
    double lastChange = 0;
    while (true) {
      sleep(options.churnPoll());
      double now = seconds(t0);
      long count = monitorCount(monitor);
      if (count == expected) {
        double cpu = cpuSeconds(m) - cpu0;
        say("%s: the monitor agrees after %.2f s (target CPU %.2f s)", what, now, cpu);
        return phase.plus(now, cpu);
      }
      if (count != last) {
        last = count;
        lastChange = now;
      }
      if (now - lastChange > options.stall().toMillis() / 1e3) {
        throw new IllegalStateException(
            "%s stalled: the monitor holds %,d routes, expected %,d"
                .formatted(what, count, expected));
      }
    }
  }

  private static double cpuSeconds(Measure m) {
    return ProcStats.of(m.running.pids()).cpuSeconds();
  }

  /**
   * Scenario b: the path the target chose (its community names the generator peer) for a sample of
   * prefixes.
   */
  private void checkBestPaths(Measure m, BirdInstance monitor) {
    List<String> wrong = new ArrayList<>();
    int checked = 0;
    int n = scenario.prefixesPerPeer();
    // 8 groups of 4 consecutive prefixes (one of each class) spread over the range
    int step = Math.max(4, n / 8 / 4 * 4);
    for (int j = 0; j < 32 && (j / 4) * step + (j % 4) < n; j++) {
      int k = (j / 4) * step + (j % 4);
      int winner = Generators.expectedWinner(k);
      if (winner < 0) {
        continue;
      }
      String prefix = Generators.format(Generators.prefix(scenario, 0, k)) + "/32";
      String out = monitor.birdc("show route all for " + prefix);
      Matcher c = COMMUNITY.matcher(out);
      checked++;
      if (!c.find()) {
        wrong.add(prefix + ": no community (65100, peer) at the monitor");
      } else if (Integer.parseInt(c.group(1)) != winner) {
        wrong.add(
            prefix
                + ": the path of peer "
                + c.group(1)
                + " was chosen, peer "
                + winner
                + "'s should win");
      }
    }
    m.checked = checked;
    m.wrong = wrong;
    say("best path: %d prefixes checked, %d wrong", checked, wrong.size());
  }

  /**
   * What the target re-advertised to the generators (BIRD's "Import updates" and "Import withdraws"
   * received, summed over the generator sessions): they drop it (their own AS is in the path), but
   * the target did the work of sending it and the generators that of reading it.
   */
  private static long generatorsReceived(BirdInstance gens) {
    return gens.protocols("g*").values().stream().mapToLong(BirdInstance.Protocol::received).sum();
  }

  private static long monitorCount(BirdInstance monitor) {
    BirdInstance.Protocol p = monitor.protocols("mon").get("mon");
    return p == null ? 0 : p.imported();
  }

  /** Bytes not yet acknowledged by the target on the generators' BGP sockets. */
  private static long sendQueue(BirdInstance gens) {
    long sum = 0;
    String out =
        gens.node().exec("ss", "-Htn", "state", "established", "( sport = :179 or dport = :179 )");
    for (String line : out.lines().toList()) {
      String[] f = line.trim().split("\\s+");
      if (f.length >= 2) {
        sum += Long.parseLong(f[1]);
      }
    }
    return sum;
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
