package dev.sart.testbed;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The programs the test bed may run, each declared with the Debian package that provides it.
 *
 * <p>Every external program a test, the demo or a benchmark runs goes through {@link Shell} or
 * {@link Node#spawn}, and both call {@link #check} first: a program that is not declared here fails
 * at once, naming the missing declaration, so a test that starts using a new tool fails on the
 * developer's machine instead of on a fresh one where its package was never installed. {@code
 * ProgramsTest} checks every declaration against the machine ({@code dpkg -S}) and against {@code
 * bin/lib/packages.sh}, which installs the packages.
 *
 * <p>Programs of the JDK running the tests and files the build made (outside the system
 * directories) need no declaration.
 */
public final class Programs {
  /**
   * Where a declared program comes from.
   *
   * @param program the name looked up on PATH, or an absolute path
   * @param owner the Debian package that owns the file ({@code dpkg -S})
   * @param installedBy the package {@code bin/lib/packages.sh} installs to get it: the owner
   *     itself, a package that depends on it, or {@code ""} when the owner is Essential (always on
   *     a Debian system)
   */
  public record Declaration(String program, String owner, String installedBy) {}

  private static final Map<String, Declaration> DECLARED = new TreeMap<>();

  static {
    // iproute2: namespaces, links, addresses, routes, sockets
    installed("iproute2", "ip", "ss", "bridge", "tc");
    installed("bird2", "bird", "birdc");
    installed("frr", "/usr/lib/frr/bgpd", "/usr/lib/frr/zebra", "/usr/lib/frr/bfdd");
    installed("frr", "/usr/lib/frr/staticd", "vtysh");
    installed("gobgpd", "gobgpd", "gobgp");
    installed("openbgpd", "bgpd", "bgpctl");
    declare("exabgp", "python3-exabgp", "exabgp");
    declare("exabgpcli", "python3-exabgp", "exabgp");
    declare("/usr/bin/python3", "python3-minimal", "python3");
    installed("iputils-ping", "ping");
    installed("tcpdump", "tcpdump");
    installed("nftables", "nft");
    installed("curl", "curl");
    installed("procps", "sysctl", "kill", "pgrep", "ps");
    installed("kubectl", "kubectl");
    installed("containernetworking-plugins", "/usr/lib/cni/ptp", "/usr/lib/cni/host-local");
    installed("containernetworking-plugins", "/usr/lib/cni/macvlan", "/usr/lib/cni/bridge");
    // deploy's image tests: a container's mounts and capabilities, as a runtime sets them up
    installed("mount", "mount");
    installed("libcap2-bin", "capsh");
    // Essential packages: on every Debian system
    essential("coreutils", "sleep", "true", "false", "cat", "cp", "mkdir", "rm", "readlink");
    essential("coreutils", "env", "id", "uname", "mkfifo", "chmod", "ls", "timeout");
    essential("coreutils", "chroot");
    essential("tar", "tar");
    essential("util-linux", "taskset", "nsenter", "unshare");
    essential("dash", "sh");
    essential("bash", "bash");
    essential("dpkg", "dpkg-query");
  }

  private Programs() {}

  private static void installed(String pkg, String... programs) {
    for (String p : programs) {
      declare(p, pkg, pkg);
    }
  }

  private static void essential(String pkg, String... programs) {
    for (String p : programs) {
      declare(p, pkg, "");
    }
  }

  private static void declare(String program, String owner, String installedBy) {
    DECLARED.put(program, new Declaration(program, owner, installedBy));
  }

  /** Every declaration, in the order of their names. */
  public static Collection<Declaration> declarations() {
    return DECLARED.values();
  }

  /** The declaration of a program (a name on PATH or an absolute path), if there is one. */
  public static Optional<Declaration> declaration(String program) {
    return Optional.ofNullable(DECLARED.get(program));
  }

  /**
   * Refuses a command line whose program, or the program it runs (through {@code ip netns exec},
   * {@code taskset}, {@code nsenter}, {@code env} or {@code timeout}), is not declared.
   *
   * @throws UndeclaredProgramException naming the program and where to declare it
   */
  public static void check(List<String> argv) {
    for (String program : programsOf(argv)) {
      if (!allowedUndeclared(program) && !DECLARED.containsKey(program)) {
        throw new UndeclaredProgramException(program, argv);
      }
    }
  }

  /**
   * A process builder for a declared command line: test code that needs a {@link Process} of its
   * own (a long-running program, inherited I/O) makes it here, never with {@code new
   * ProcessBuilder}.
   */
  public static ProcessBuilder processBuilder(List<String> argv) {
    check(argv);
    return new ProcessBuilder(argv);
  }

  /** {@link #processBuilder(List)} for a literal command line. */
  public static ProcessBuilder processBuilder(String... argv) {
    return processBuilder(List.of(argv));
  }

  /** The programs a command line runs: its first word and those of the wrappers it calls. */
  static List<String> programsOf(List<String> argv) {
    List<String> programs = new ArrayList<>();
    int i = 0;
    while (i < argv.size()) {
      String program = argv.get(i);
      programs.add(program);
      String name = program.substring(program.lastIndexOf('/') + 1);
      int next = wrapped(name, argv, i);
      if (next < 0) {
        break;
      }
      i = next;
    }
    return programs;
  }

  /** The index of the program a wrapper at {@code i} runs, or -1 when it is not a wrapper. */
  private static int wrapped(String name, List<String> argv, int i) {
    switch (name) {
      case "ip" -> {
        // ip netns exec NAME argv... and ip -n NAME ... (the latter runs nothing else)
        if (argv.size() > i + 3
            && argv.get(i + 1).equals("netns")
            && argv.get(i + 2).equals("exec")) {
          return i + 4;
        }
        return -1;
      }
      case "taskset" -> {
        // taskset [-a] -p ... PID changes a running process; taskset [-c LIST | MASK] argv...
        int j = i + 1;
        while (j < argv.size() && argv.get(j).startsWith("-")) {
          if (argv.get(j++).contains("p")) {
            return -1;
          }
        }
        return j + 1; // past the CPU list or mask
      }
      case "env" -> {
        int j = i + 1;
        while (j < argv.size() && (argv.get(j).startsWith("-") || argv.get(j).contains("="))) {
          j++;
        }
        return j;
      }
      case "timeout" -> {
        int j = i + 1;
        while (j < argv.size() && argv.get(j).startsWith("-")) {
          j++;
        }
        return j + 1; // past the duration
      }
      case "nsenter" -> {
        int j = i + 1;
        while (j < argv.size() && argv.get(j).startsWith("-")) {
          j++;
        }
        return j;
      }
      default -> {
        return -1;
      }
    }
  }

  /**
   * The JDK running the tests, files under the project's checkout (what the build made) and under
   * the temporary directory (scripts a test wrote) need no declaration.
   */
  static boolean allowedUndeclared(String program) {
    if (!program.startsWith("/")) {
      return false;
    }
    Path p = Path.of(program).normalize();
    return p.startsWith(Path.of(System.getProperty("java.home")))
        || p.startsWith(Path.of(System.getProperty("java.io.tmpdir")))
        || PROJECT.map(p::startsWith).orElse(false);
  }

  /**
   * The project's checkout: the nearest directory above the working directory with {@code mvnw}.
   */
  private static final Optional<Path> PROJECT = findProject();

  private static Optional<Path> findProject() {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve("mvnw")) && Files.isDirectory(d.resolve("bin/lib"))) {
        return Optional.of(d);
      }
    }
    return Optional.empty();
  }

  /**
   * The path of a declared program on this machine: PATH for a name, the file itself for a path;
   * empty when it is not installed.
   */
  public static Optional<Path> locate(String program) {
    if (program.startsWith("/")) {
      Path p = Path.of(program);
      return Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
    }
    List<String> dirs =
        new ArrayList<>(
            List.of(
                System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin").split(":")));
    dirs.addAll(List.of("/usr/sbin", "/sbin"));
    for (String dir : dirs) {
      Path p = Path.of(dir, program);
      if (!dir.isEmpty() && Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** A program was about to run that is not declared with its package. */
  public static final class UndeclaredProgramException extends IllegalStateException {
    UndeclaredProgramException(String program, List<String> argv) {
      super(
          "`"
              + program
              + "` is not declared: add it with the Debian package that provides it to"
              + " testbed/harness/src/main/java/dev/sart/testbed/Programs.java, and that package"
              + " to bin/lib/packages.sh (command: `"
              + String.join(" ", argv)
              + "`)");
    }
  }
}
