package dev.sart.testbed.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code bin/footprint}'s start-up table is read from sartd's own log lines. */
class StartupTimelineTest {
  @Test
  void stepsAreTheFirstOfEachLoggerAndEventUpToReady() {
    String log =
        """
        WARNING: a JVM line without a time
        time=2026-11-27T15:00:00.250Z level=info logger=BgpServer event=listening port=179
        time=2026-11-27T15:00:00.400Z level=info logger=MetricsServer event=metrics-listening a=1
        time=2026-11-27T15:00:00.450Z level=info logger=MetricsServer event=metrics-listening a=2
        time=2026-11-27T15:00:00.900Z level=info logger=AgentCommand event=agent-started node=n
        time=2026-11-27T15:00:01.500Z level=info logger=BgpAgent event=later
        """;
    List<StartupTimeline.Step> steps =
        StartupTimeline.of(log, Instant.parse("2026-11-27T15:00:00Z"), "event=agent-started");
    assertEquals(
        List.of(
            new StartupTimeline.Step("BgpServer listening", 250),
            new StartupTimeline.Step("MetricsServer metrics-listening", 400),
            new StartupTimeline.Step("AgentCommand agent-started", 900)),
        steps);
  }
}
