package dev.sart.testbed.perf;

import java.util.ArrayList;
import java.util.List;

/**
 * One churn phase of scenario d over its rounds: per round, the seconds until the monitor agreed
 * and the target's CPU seconds in that time. The table shows the median of the rounds: with the
 * generators and the monitor sharing one CPU, one round of a withdrawal of 10 % (about 0.2 s)
 * varies by several hundredths of a second for every target.
 */
public record ChurnPhase(List<Double> seconds, List<Double> cpu) {
  public static final ChurnPhase NONE = new ChurnPhase(List.of(), List.of());

  public ChurnPhase {
    if (seconds.size() != cpu.size()) {
      throw new IllegalArgumentException("as many CPU figures as rounds: " + seconds + " " + cpu);
    }
    seconds = List.copyOf(seconds);
    cpu = List.copyOf(cpu);
  }

  /** This phase with one more round. */
  ChurnPhase plus(double s, double c) {
    List<Double> a = new ArrayList<>(seconds);
    List<Double> b = new ArrayList<>(cpu);
    a.add(s);
    b.add(c);
    return new ChurnPhase(a, b);
  }

  public int rounds() {
    return seconds.size();
  }

  /** The median of the rounds' seconds (NaN: no round). */
  public double median() {
    return median(seconds);
  }

  /** The first round's seconds (NaN: no round). */
  public double first() {
    return seconds.isEmpty() ? Double.NaN : seconds.getFirst();
  }

  /** The median of the rounds' CPU seconds (NaN: no round). */
  public double medianCpu() {
    return median(cpu);
  }

  static double median(List<Double> v) {
    if (v.isEmpty()) {
      return Double.NaN;
    }
    List<Double> s = v.stream().sorted().toList();
    int n = s.size();
    return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
  }
}
