package dev.sart.testbed;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Removes what test-bed runs that crashed left behind: namespaces named {@code sartt<pid>-...}
 * whose JVM is gone, the processes still running inside them (which that run started), and their
 * working directories under /tmp. Names without the mark, and runs still alive, are never touched.
 */
public final class Sweeper {
  private static final Pattern NAME = Pattern.compile("^" + Topology.MARK + "(\\d+)-\\S+");
  private static volatile boolean swept;

  private Sweeper() {}

  static void sweepOnce() {
    if (swept) {
      return;
    }
    synchronized (Sweeper.class) {
      if (!swept) {
        sweep();
        swept = true;
      }
    }
  }

  /** Sweeps now; returns the namespaces it removed. */
  public static List<String> sweep() {
    List<String> removed = new ArrayList<>();
    for (String ns : testbedNamespaces()) {
      Matcher m = NAME.matcher(ns);
      if (m.find() && !runIsAlive(Long.parseLong(m.group(1)))) {
        removeNamespace(ns);
        removed.add(ns);
      }
    }
    try (Stream<Path> dirs = Files.list(Path.of("/tmp"))) {
      for (Path d : dirs.toList()) {
        Matcher m = NAME.matcher(d.getFileName().toString());
        if (m.find() && Files.isDirectory(d) && !runIsAlive(Long.parseLong(m.group(1)))) {
          Topology.deleteTree(d);
        }
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return removed;
  }

  /** Every namespace carrying the test bed's mark, of any run. */
  public static List<String> testbedNamespaces() {
    return namespaces().stream().filter(n -> NAME.matcher(n).find()).toList();
  }

  /** All namespace names `ip netns list` shows. */
  public static List<String> namespaces() {
    return Shell.run("ip", "netns", "list")
        .lines()
        .map(l -> l.split("\\s+", 2)[0])
        .filter(s -> !s.isEmpty())
        .toList();
  }

  /** The PIDs of processes whose network namespace is {@code ns}. */
  public static List<Long> pidsIn(String ns) {
    Shell.Result r = Shell.exec(List.of("ip", "netns", "pids", ns));
    if (!r.ok()) {
      return List.of();
    }
    return r.stdout()
        .lines()
        .map(String::strip)
        .filter(s -> !s.isEmpty())
        .map(Long::parseLong)
        .toList();
  }

  /**
   * Ends the processes left inside a test-bed namespace (ours by construction), then deletes it.
   */
  static void removeNamespace(String ns) {
    if (!NAME.matcher(ns).find()) {
      throw new IllegalArgumentException(
          "refusing to remove a namespace the test bed did not create: " + ns);
    }
    for (int attempt = 0; attempt < 3; attempt++) {
      List<ProcessHandle> left =
          pidsIn(ns).stream().map(ProcessHandle::of).flatMap(Optional::stream).toList();
      if (left.isEmpty()) {
        break;
      }
      left.forEach(attempt == 0 ? ProcessHandle::destroy : ProcessHandle::destroyForcibly);
      for (ProcessHandle h : left) {
        try {
          h.onExit().get(2, TimeUnit.SECONDS);
        } catch (Exception e) {
          // escalated on the next attempt
        }
      }
    }
    if (namespaces().contains(ns)) {
      Shell.run("ip", "netns", "delete", ns);
    }
  }

  private static boolean runIsAlive(long pid) {
    if (pid == ProcessHandle.current().pid()) {
      return true;
    }
    return ProcessHandle.of(pid)
        .filter(ProcessHandle::isAlive)
        .flatMap(h -> h.info().command())
        .map(c -> c.endsWith("/java") || c.endsWith("java"))
        .orElse(false);
  }
}
