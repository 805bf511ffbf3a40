package dev.sart.testbed.cluster;

import java.nio.file.Path;
import java.util.List;

/**
 * ClusterBench's sample counts, from its command line, and {@code --logs DIR}: where to keep the
 * run's files (every process's log, the configs), else deleted at the end.
 */
record BenchSettings(
    int present, int samples, int withdraws, int pods, int rounds, int restarts, Path logs) {
  static BenchSettings parse(String[] args) {
    boolean quick = List.of(args).contains("--quick");
    int present = quick ? 100 : 1000;
    int samples = quick ? 20 : 100;
    int withdraws = quick ? 10 : 50;
    int pods = quick ? 20 : 100;
    int rounds = 1;
    int restarts = quick ? 1 : 3;
    Path logs = null;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--quick")) {
        continue;
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("missing value after " + a);
      }
      if (a.equals("--logs")) {
        logs = Path.of(args[++i]).toAbsolutePath();
        continue;
      }
      int v = Integer.parseInt(args[++i]);
      switch (a) {
        case "--present" -> present = v;
        case "--samples" -> samples = v;
        case "--withdraws" -> withdraws = v;
        case "--pods" -> pods = v;
        case "--rounds" -> rounds = v;
        case "--restarts" -> restarts = v;
        default ->
            throw new IllegalArgumentException(
                "unknown option "
                    + a
                    + " (--quick, --present N, --samples N, --withdraws N, --pods N, --rounds N,"
                    + " --restarts N, --logs DIR)");
      }
    }
    if (pods > 100) {
      // the pod pool (203.0.113.128/25 without its first and last address, blocks of 16),
      // node1's two other pods included
      throw new IllegalArgumentException("--pods is at most 100 (the pod pool's size)");
    }
    return new BenchSettings(present, samples, withdraws, pods, rounds, restarts, logs);
  }
}
