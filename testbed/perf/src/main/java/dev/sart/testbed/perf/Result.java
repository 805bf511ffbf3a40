package dev.sart.testbed.perf;

import java.util.List;

/**
 * The figures of one run (one scenario against one target). Times are seconds from the moment the
 * generator sessions were enabled; NaN where a figure does not apply or the run failed before it.
 *
 * @param ready from the target's start until its session with the monitor is Established (before
 *     the clock: start-up, configuration, a warm-up if the target runs one)
 * @param startupCpu the target's CPU seconds from its start until the clock starts
 * @param establish every generator session Established (as the generators report it)
 * @param firstPrefix the monitor holds its first route
 * @param generator the generators have exported every route and the target's kernel has
 *     acknowledged every byte (Send-Q 0 on every generator socket)
 * @param elapsed the monitor holds at least 99 % of the distinct prefixes and its count stays
 *     stable
 * @param idleRss the target's RSS before the generators started
 * @param peakRss the target's peak RSS (VmHWM) at convergence
 * @param cpu the target's CPU seconds (user + system) from the start of the clock to convergence
 * @param bytesPerRoute (peakRss − idleRss) / paths received
 * @param strictBytesPerRoute issue 29's memory per route: (RSS at convergence − RSS one second
 *     after the monitor's session came up) / paths received
 * @param withdraw10 churn, per round: 10 % of every peer's routes withdrawn until the monitor
 *     agrees
 * @param reannounce10 churn, per round: those announced again until the monitor agrees
 * @param withdrawAll churn (one round): everything withdrawn until the monitor holds nothing
 * @param monitorRoutes what the monitor held at convergence
 * @param holdTimerExpiries log lines of the generators and the monitor telling of a hold timer
 *     expiry
 * @param bestPathChecked scenario b: prefixes whose chosen path was checked at the monitor
 * @param bestPathWrong the ones among them where the target chose the wrong path
 * @param error why the run failed, or null
 */
public record Result(
    Target target,
    Scenario scenario,
    double ready,
    double startupCpu,
    double establish,
    double firstPrefix,
    double generator,
    double elapsed,
    long idleRss,
    long peakRss,
    double cpu,
    double bytesPerRoute,
    double strictBytesPerRoute,
    ChurnPhase withdraw10,
    ChurnPhase reannounce10,
    ChurnPhase withdrawAll,
    long monitorRoutes,
    List<String> holdTimerExpiries,
    int bestPathChecked,
    List<String> bestPathWrong,
    String error) {

  public boolean ok() {
    return error == null;
  }
}
