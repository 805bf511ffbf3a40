package dev.sart.testbed.perf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Memory and CPU of a daemon's processes from {@code /proc}: the sum over the processes and their
 * children (OpenBGPD forks its engines) of VmRSS, VmHWM (the peak RSS) and user + system time.
 * Summing peaks of several processes can overstate the peak of the whole slightly.
 */
record ProcStats(long rssBytes, long peakRssBytes, double cpuSeconds) {
  /** USER_HZ: the unit of utime and stime in /proc/PID/stat. */
  private static final double TICKS = 100.0;

  static ProcStats of(List<Long> roots) {
    Set<Long> pids = new LinkedHashSet<>();
    for (long pid : roots) {
      pids.add(pid);
      ProcessHandle.of(pid).ifPresent(h -> h.descendants().forEach(d -> pids.add(d.pid())));
    }
    long rss = 0;
    long hwm = 0;
    double cpu = 0;
    for (long pid : pids) {
      try {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
          if (line.startsWith("VmRSS:")) {
            rss += kib(line) * 1024;
          } else if (line.startsWith("VmHWM:")) {
            hwm += kib(line) * 1024;
          }
        }
        cpu += cpu(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
      } catch (IOException | RuntimeException e) {
        // the process ended between listing and reading: it holds nothing any more
      }
    }
    return new ProcStats(rss, hwm, cpu);
  }

  /**
   * CPU seconds of {@code pid}'s threads so far, by thread name with its numbers taken out
   * ("grpc-default-executor-#"; the JIT's threads as "C1 compiler" and "C2 compiler"), largest
   * first: where a start-up's CPU went. A thread that ended before the reading is not counted (its
   * time is in the process's total only).
   */
  static java.util.Map<String, Double> byThread(long pid) {
    java.util.Map<String, Double> out = new java.util.HashMap<>();
    try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path t : tasks.toList()) {
        try {
          String comm = Files.readString(t.resolve("comm")).strip();
          // "C1 CompilerThre", "C2 CompilerThre" (the kernel keeps 15 characters) stay apart
          String name =
              comm.matches("C[12] Compiler.*")
                  ? comm.substring(0, 2) + " compiler"
                  : comm.replaceAll("[0-9]+", "#");
          out.merge(name, cpu(Files.readString(t.resolve("stat"))), Double::sum);
        } catch (IOException e) {
          // the thread ended meanwhile
        }
      }
    } catch (IOException e) {
      // the process ended: nothing to say
    }
    java.util.Map<String, Double> sorted = new java.util.LinkedHashMap<>();
    out.entrySet().stream()
        .sorted(java.util.Map.Entry.<String, Double>comparingByValue().reversed())
        .forEach(e -> sorted.put(e.getKey(), e.getValue()));
    return sorted;
  }

  /** utime + stime of a {@code stat} line, seconds. */
  private static double cpu(String stat) {
    // the fields after "(comm)": state is field 3, utime 14, stime 15
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS;
  }

  private static long kib(String line) {
    List<String> parts = new ArrayList<>(List.of(line.split("\\s+")));
    return Long.parseLong(parts.get(1));
  }
}
