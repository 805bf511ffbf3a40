package dev.sart.testbed.perf;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The results side by side: one row per scenario and figure, one column per target, then sart's
 * ratio to the best of the others (lower is better for every figure) and the goal.
 */
final class Report {
  /** A row of the table: a figure of a scenario, how to read it from a result, the goal. */
  private record Figure(
      String name, ToDoubleFunction<Result> value, String format, String goal, Goal check) {
    /** A goal that does not depend on the other targets. */
    boolean absolute() {
      return goal.startsWith("≤ 150") || goal.equals("0");
    }
  }

  /** Whether sart's figure meets the goal given the best of the others. */
  private interface Goal {
    boolean met(double sart, double bestOther);
  }

  private final List<Result> results;
  private final List<Target> targets;
  private final List<Scenario> scenarios;

  Report(List<Result> results, List<Target> targets, List<Scenario> scenarios) {
    this.results = results;
    this.targets = targets;
    this.scenarios = scenarios;
  }

  private static List<Figure> figures(Scenario s) {
    List<Figure> f = new ArrayList<>();
    boolean elapsedGoal = !s.churn();
    f.add(new Figure("ready (s)", r -> r.ready(), "%.2f", "", null));
    f.add(new Figure("start-up CPU (s)", r -> r.startupCpu(), "%.2f", "", null));
    f.add(new Figure("idle RSS (MiB)", r -> r.idleRss() / 1048576.0, "%.1f", "", null));
    f.add(new Figure("establish (s)", r -> r.establish(), "%.2f", "", null));
    f.add(new Figure("first prefix (s)", r -> r.firstPrefix(), "%.2f", "", null));
    f.add(new Figure("generators (s)", r -> r.generator(), "%.2f", "", null));
    f.add(
        new Figure(
            "elapsed (s)",
            r -> r.elapsed(),
            "%.2f",
            elapsedGoal ? "≤ 0.8× best" : "",
            elapsedGoal ? (sart, best) -> sart <= 0.8 * best : null));
    f.add(new Figure("peak RSS (MiB)", r -> r.peakRss() / 1048576.0, "%.1f", "", null));
    f.add(new Figure("CPU (s)", r -> r.cpu(), "%.2f", "", null));
    boolean bprGoal = s.name().equals("a") || s.name().equals("b");
    f.add(
        new Figure(
            "bytes/route",
            r -> r.bytesPerRoute(),
            "%.0f",
            bprGoal ? "≤ 150 B" : "",
            bprGoal ? (sart, best) -> sart <= 150 : null));
    // issue 29: by the RSS at convergence over the RSS 1 s after the monitor's session came up, in
    // every scenario
    f.add(
        new Figure(
            "bytes/route by RSS",
            r -> r.strictBytesPerRoute(),
            "%.0f",
            "≤ 150 B",
            (sart, best) -> sart <= 150));
    if (s.churn()) {
      // the goal is on the median of the rounds (see ChurnPhase); the first round and the CPU are
      // shown beside it
      f.add(
          new Figure(
              "withdraw 10 % median (s)",
              r -> r.withdraw10().median(), "%.2f", "≤ best", (sart, best) -> sart <= best));
      f.add(new Figure("withdraw 10 % round 1 (s)", r -> r.withdraw10().first(), "%.2f", "", null));
      f.add(
          new Figure(
              "withdraw 10 % median CPU (s)", r -> r.withdraw10().medianCpu(), "%.2f", "", null));
      f.add(
          new Figure(
              "re-announce 10 % median (s)",
              r -> r.reannounce10().median(), "%.2f", "≤ best", (sart, best) -> sart <= best));
      f.add(
          new Figure(
              "re-announce 10 % round 1 (s)", r -> r.reannounce10().first(), "%.2f", "", null));
      f.add(
          new Figure(
              "re-announce 10 % median CPU (s)",
              r -> r.reannounce10().medianCpu(), "%.2f", "", null));
      f.add(
          new Figure(
              "withdraw all (s)",
              r -> r.withdrawAll().median(),
              "%.2f",
              "≤ best",
              (sart, best) -> sart <= best));
      f.add(new Figure("withdraw all CPU (s)", r -> r.withdrawAll().medianCpu(), "%.2f", "", null));
    }
    f.add(
        new Figure(
            "hold timer expiries",
            r -> r.holdTimerExpiries().size(),
            "%.0f",
            "0",
            (sart, best) -> sart == 0));
    return f;
  }

  private Result find(Scenario s, Target t) {
    return results.stream()
        .filter(r -> r.scenario().name().equals(s.name()) && r.target() == t)
        .findFirst()
        .orElse(null);
  }

  /** Rows of cells: header first. */
  private List<List<String>> rows() {
    List<List<String>> rows = new ArrayList<>();
    List<String> head = new ArrayList<>(List.of("scenario", "figure"));
    targets.forEach(t -> head.add(t.label()));
    head.addAll(List.of("sart ÷ best other", "goal", "met"));
    rows.add(head);
    for (Scenario s : scenarios) {
      List<String> status = new ArrayList<>(List.of(s.name(), "status"));
      for (Target t : targets) {
        Result r = find(s, t);
        status.add(r == null ? "not run" : r.ok() ? "ok" : "FAILED");
      }
      status.addAll(List.of("", "", ""));
      rows.add(status);
      for (Figure f : figures(s)) {
        List<String> row = new ArrayList<>(List.of(s.name(), f.name()));
        double sart = Double.NaN;
        double best = Double.NaN;
        for (Target t : targets) {
          Result r = find(s, t);
          double v = r == null ? Double.NaN : f.value().applyAsDouble(r);
          boolean usable = r != null && r.ok() && Double.isFinite(v);
          row.add(
              r == null || !Double.isFinite(v)
                  ? "–"
                  : String.format(Locale.ROOT, f.format(), v) + (r.ok() ? "" : " (failed)"));
          if (t == Target.SART) {
            sart = usable ? v : Double.NaN;
          } else if (usable) {
            best = Double.isNaN(best) ? v : Math.min(best, v);
          }
        }
        row.add(
            Double.isFinite(sart) && Double.isFinite(best) && best > 0
                ? String.format(Locale.ROOT, "%.2f", sart / best)
                : "–");
        row.add(f.goal());
        // a goal relative to the others is judged only when another target has the figure
        boolean judged =
            f.check() != null && Double.isFinite(sart) && (f.absolute() || Double.isFinite(best));
        row.add(!judged ? "" : f.check().met(sart, best) ? "yes" : "**no**");
        rows.add(row);
      }
    }
    return rows;
  }

  String markdown() {
    StringBuilder sb = new StringBuilder();
    List<List<String>> rows = rows();
    for (int i = 0; i < rows.size(); i++) {
      sb.append("| ").append(String.join(" | ", rows.get(i))).append(" |\n");
      if (i == 0) {
        sb.append("|").append("---|".repeat(rows.get(i).size())).append('\n');
      }
    }
    return sb.toString();
  }

  String csv() {
    StringBuilder sb = new StringBuilder();
    for (List<String> row : rows()) {
      sb.append(String.join(",", row.stream().map(Report::csvCell).toList())).append('\n');
    }
    return sb.toString();
  }

  private static String csvCell(String s) {
    String v = s.replace("**", "");
    return v.contains(",") || v.contains("\"") ? '"' + v.replace("\"", "\"\"") + '"' : v;
  }

  /** The failures with their reasons, for the notes under the table. */
  String failures() {
    StringBuilder sb = new StringBuilder();
    for (Result r : results) {
      if (!r.ok()) {
        sb.append("- (")
            .append(r.scenario().name())
            .append(") ")
            .append(r.target().label())
            .append(": ")
            .append(r.error().lines().findFirst().orElse(""))
            .append('\n');
      }
      if (!r.bestPathWrong().isEmpty()) {
        sb.append("- (")
            .append(r.scenario().name())
            .append(") ")
            .append(r.target().label())
            .append(": wrong best path for ")
            .append(r.bestPathWrong())
            .append('\n');
      }
    }
    return sb.toString();
  }
}
