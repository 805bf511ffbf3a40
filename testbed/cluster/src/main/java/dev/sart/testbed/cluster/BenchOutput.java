package dev.sart.testbed.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** ClusterBench's output: markdown rows of p50, p99 and max, and the machine's load. */
final class BenchOutput {
  private BenchOutput() {}

  static void row(String what, List<Long> nanos) {
    if (nanos == null || nanos.isEmpty()) {
      say("| %s | no samples | | | |", what);
      return;
    }
    List<Long> sorted = nanos.stream().sorted().toList();
    say(
        "| %s | %d | %s | %s | %s |",
        what, sorted.size(), ms(pct(sorted, 50)), ms(pct(sorted, 99)), ms(sorted.getLast()));
  }

  static long pct(List<Long> sorted, int p) {
    int i = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
  }

  static double median(List<Long> l) {
    return pct(l.stream().sorted().toList(), 50);
  }

  static String ms(long nanos) {
    double ms = nanos / 1e6;
    return ms >= 100 ? String.format("%.0f ms", ms) : String.format("%.1f ms", ms);
  }

  static double secs(long nanos) {
    return nanos / 1e9;
  }

  static String load() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void step(String format, Object... args) {
    System.out.println("\n== " + String.format(format, args));
    System.out.println("| what | n | p50 | p99 | max |");
    System.out.println("|---|---|---|---|---|");
  }

  static void say(String format, Object... args) {
    System.out.println(String.format(format, args));
  }
}
