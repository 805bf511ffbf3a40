package dev.sart.testbed.perf;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * The harness end to end at a tiny scale against all five targets: every run must converge with
 * exactly the routes announced, the target must choose the right paths in scenario b, churn must be
 * seen in full, and no session may go down. Correctness only: no figure is compared with a limit.
 * Scenario a is d without the churn, so d covers it here.
 */
class BgperfSmokeTest {
  @TempDir Path out;

  @Test
  void everyScenarioAgainstEveryTargetIsSeenInFullByTheMonitor() throws Exception {
    List<Scenario> scenarios =
        List.of(
            Scenario.named("b").scaled(0.0002, 1), // 2 peers × 100 identical prefixes
            Scenario.named("c").scaled(0.02, 0.05), // 5 peers × 20
            Scenario.named("d").scaled(0.001, 0.3)); // 3 peers × 100, then churn
    BenchRun.Options fast =
        new BenchRun.Options(
            Duration.ofMillis(100),
            Duration.ofMillis(500),
            Duration.ofSeconds(30),
            30,
            "1",
            "0",
            Duration.ofSeconds(60),
            List.of());
    // sart's runs also read where its memory goes (jcmd's class histogram): a failure fails the run
    System.setProperty(MemoryReading.PROPERTY, "true");
    List<Result> results =
        Bgperf.run(new Bgperf.Plan(scenarios, List.of(Target.values()), fast, out, 1, 1));

    assertEquals(scenarios.size() * Target.values().length, results.size());
    List<Executable> checks = new ArrayList<>();
    for (Result r : results) {
      String what = "(" + r.scenario().name() + ") " + r.target().label() + ": ";
      checks.add(() -> assertTrue(r.ok(), what + r.error()));
      checks.add(
          () ->
              assertEquals(
                  r.scenario().distinctPrefixes(),
                  r.monitorRoutes(),
                  what + "routes at the monitor"));
      checks.add(
          () -> assertEquals(List.of(), r.holdTimerExpiries(), what + "hold timer expiries"));
      checks.add(
          () ->
              assertTrue(
                  r.peakRss() > 0
                      && r.elapsed() > 0
                      && r.generator() > 0
                      && Double.isFinite(r.strictBytesPerRoute()),
                  what + "figures: " + r));
      if (r.scenario().samePrefixes()) {
        checks.add(() -> assertEquals(List.of(), r.bestPathWrong(), what + "wrong best paths"));
        checks.add(() -> assertEquals(24, r.bestPathChecked(), what + "best paths checked"));
      }
      if (r.scenario().churn()) {
        checks.add(
            () ->
                assertTrue(
                    r.withdraw10().median() > 0
                        && r.reannounce10().median() > 0
                        && r.withdrawAll().median() > 0,
                    what + "churn seen in full: " + r));
        checks.add(
            () ->
                assertEquals(
                    List.of(3, 3, 1),
                    List.of(
                        r.withdraw10().rounds(),
                        r.reannounce10().rounds(),
                        r.withdrawAll().rounds()),
                    what + "churn rounds"));
      }
    }
    assertAll(checks);
    String md = Files.readString(out.resolve("bgperf.md"));
    String csv = Files.readString(out.resolve("bgperf.csv"));
    assertTrue(
        md.contains(
            "| scenario | figure | sart | bird | frr | gobgp | openbgpd | sart ÷ best other |"),
        md);
    assertTrue(csv.lines().anyMatch(l -> l.startsWith("d,withdraw all (s),")), csv);
    assertTrue(csv.lines().anyMatch(l -> l.startsWith("b,bytes/route by RSS,")), csv);
    assertTrue(csv.lines().anyMatch(l -> l.startsWith("d,withdraw 10 % median (s),")), csv);
  }
}
