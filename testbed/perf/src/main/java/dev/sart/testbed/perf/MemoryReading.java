package dev.sart.testbed.perf;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Where sartd's memory per route goes ({@code bgperf --memory-reading}, sart only): its RSS by kind
 * of mapping ({@link Footprint#sample}) idle (one second after the monitor's session is up) and at
 * convergence, then a full collection by {@code jcmd PID GC.class_histogram} and the RSS again. Per
 * route received: the Java heap's resident pages at convergence (live routes and the garbage not
 * yet collected), after the collection (what the collector kept: live data plus the free space it
 * did not give back), the live heap by the histogram and its top classes, and the rest (native:
 * metaspace, code cache, malloc, stacks). The collection changes what follows (the churn of
 * scenario d starts from a collected heap), so it is off by default.
 */
final class MemoryReading {
  /** Set (by {@code --memory-reading}): sart's runs print the reading after convergence. */
  static final String PROPERTY = "bgperf.memoryReading";

  private static final int TOP = 8;

  private MemoryReading() {}

  static boolean on() {
    return Boolean.getBoolean(PROPERTY);
  }

  /** The idle side: the RSS by kind of mapping, then the live objects (a full collection). */
  record Idle(Footprint.Sample sample, Histogram live) {}

  /** The RSS by kind of mapping of sartd's JVM. */
  static Footprint.Sample sample(long pid) throws IOException {
    return Footprint.sample("sart", pid, Double.NaN, Double.NaN);
  }

  static Idle idle(long pid) throws IOException, InterruptedException {
    Footprint.Sample s = sample(pid);
    return new Idle(s, histogram(pid));
  }

  /** Samples, collects (a full collection), samples again, then says the reading. */
  static void read(long pid, Idle idle, long paths, Consumer<String> say)
      throws IOException, InterruptedException {
    Footprint.Sample converged = sample(pid);
    Histogram h = histogram(pid);
    Footprint.Sample collected = sample(pid);
    say.accept(
        "memory per route (B), idle → converged: "
            + perRoute(idle.sample(), converged, paths)
            + "; idle → after a full GC: "
            + perRoute(idle.sample(), collected, paths));
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            "live heap %.1f → %.1f MiB, %.0f B/route; grew most (B/route, instances/route):",
            idle.live().totalBytes() / 1048576.0,
            h.totalBytes() / 1048576.0,
            (double) (h.totalBytes() - idle.live().totalBytes()) / paths));
    for (Histogram.Row r : h.grownSince(idle.live(), TOP)) {
      b.append(
          String.format(
              Locale.ROOT,
              " %s %.1f (%.2f)",
              r.name(),
              (double) r.bytes() / paths,
              (double) r.instances() / paths));
    }
    say.accept(b.toString());
  }

  private static String perRoute(Footprint.Sample from, Footprint.Sample to, long paths) {
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "RSS %.0f", (double) (to.rss() - from.rss()) / paths));
    for (Map.Entry<String, Long> e : to.kinds().entrySet()) {
      long d = e.getValue() - from.kinds().getOrDefault(e.getKey(), 0L);
      b.append(String.format(Locale.ROOT, ", %s %.0f", e.getKey(), (double) d / paths));
    }
    return b.toString();
  }

  /** {@code jcmd PID GC.class_histogram}: a full collection, then the live objects by class. */
  record Histogram(long totalBytes, Map<String, Row> rows) {
    record Row(String name, long instances, long bytes) {}

    /** The n largest classes. */
    List<Row> top(int n) {
      return rows.values().stream()
          .sorted(java.util.Comparator.comparingLong(Row::bytes).reversed())
          .limit(n)
          .toList();
    }

    /** The n classes that grew most since {@code before}: their growth. */
    List<Row> grownSince(Histogram before, int n) {
      return rows.values().stream()
          .map(
              r -> {
                Row b = before.rows().get(r.name());
                return b == null
                    ? r
                    : new Row(r.name(), r.instances() - b.instances(), r.bytes() - b.bytes());
              })
          .sorted(java.util.Comparator.comparingLong(Row::bytes).reversed())
          .limit(n)
          .toList();
    }
  }

  static Histogram histogram(long pid) throws IOException, InterruptedException {
    Path jcmd = Path.of(SartdLauncher.java()).resolveSibling("jcmd");
    Process p =
        dev.sart.testbed.Programs.processBuilder(
                jcmd.toString(), Long.toString(pid), "GC.class_histogram")
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("jcmd GC.class_histogram failed: " + out);
    }
    return parseHistogram(out);
  }

  /**
   * The histogram's rows ({@code num: instances bytes class-name (module)}) and its {@code Total}
   * line.
   */
  static Histogram parseHistogram(String out) {
    Map<String, Histogram.Row> rows = new java.util.LinkedHashMap<>();
    long total = -1;
    for (String line : out.lines().toList()) {
      String[] f = line.strip().split("\\s+");
      if (f.length >= 4
          && f[0].endsWith(":")
          && f[0].substring(0, f[0].length() - 1).matches("\\d+")) {
        // a class loaded by two loaders has two rows: summed
        rows.merge(
            f[3],
            new Histogram.Row(f[3], Long.parseLong(f[1]), Long.parseLong(f[2])),
            (a, b) ->
                new Histogram.Row(a.name(), a.instances() + b.instances(), a.bytes() + b.bytes()));
      } else if (f.length == 3 && f[0].equals("Total")) {
        total = Long.parseLong(f[2]);
      }
    }
    if (total < 0) {
      throw new IllegalStateException("no Total in the class histogram: " + out);
    }
    return new Histogram(total, Map.copyOf(rows));
  }
}
