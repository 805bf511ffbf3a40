package dev.sart.testbed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every program the test bed may run is provided by a package that {@code bin/lib/packages.sh}
 * installs (or by an Essential one), as {@code dpkg} on this machine says; and a program that is
 * not declared does not run.
 */
class ProgramsTest {
  private static final Path PROJECT = project();

  /** The guard itself, and this test, which names what it looks for. */
  private static final Set<String> GUARD =
      Set.of("Programs.java", "Shell.java", "ManagedProcess.java", "ProgramsTest.java");

  @Test
  void everyDeclaredProgramComesFromAPackageTheProjectInstalls() throws IOException {
    Set<String> installed = packagesShInstalls();
    List<String> wrong = new ArrayList<>();
    for (Programs.Declaration d : Programs.declarations()) {
      if (d.installedBy().isEmpty()) {
        if (!"yes".equals(dpkgQuery("${Essential}", d.owner()))) {
          wrong.add(d.program() + ": " + d.owner() + " is not Essential; name who installs it");
        }
        continue;
      }
      if (!installed.contains(d.installedBy())) {
        wrong.add(d.program() + ": " + d.installedBy() + " is not in bin/lib/packages.sh");
      }
      if (!d.owner().equals(d.installedBy())
          && !dependsOn(dpkgQuery("${Pre-Depends}, ${Depends}", d.installedBy()), d.owner())) {
        wrong.add(d.program() + ": " + d.installedBy() + " does not depend on " + d.owner());
      }
    }
    assertEquals(List.of(), wrong);
  }

  @Test
  void everyDeclaredProgramIsOwnedByItsPackageOnThisMachine() {
    List<String> wrong = new ArrayList<>();
    for (Programs.Declaration d : Programs.declarations()) {
      var where = Programs.locate(d.program());
      if (where.isEmpty()) {
        wrong.add(d.program() + " is not installed (package " + d.owner() + ")");
        continue;
      }
      String owner = owner(where.get());
      if (!d.owner().equals(owner)) {
        wrong.add(
            d.program() + " at " + where.get() + " belongs to " + owner + ", not " + d.owner());
      }
    }
    assertEquals(List.of(), wrong, "run bin/test as root: it installs the packages first");
  }

  @Test
  void anUndeclaredProgramFailsBeforeItStartsNamingTheDeclarationToAdd() {
    var e =
        assertThrows(
            Programs.UndeclaredProgramException.class,
            () -> Shell.exec(List.of("sart-undeclared-tool", "--version")));
    assertTrue(e.getMessage().contains("`sart-undeclared-tool` is not declared"), e.getMessage());
    assertTrue(e.getMessage().contains("Programs.java"), e.getMessage());
    assertTrue(e.getMessage().contains("bin/lib/packages.sh"), e.getMessage());
  }

  @Test
  void theProgramAWrapperRunsMustBeDeclaredToo() {
    var e =
        assertThrows(
            Programs.UndeclaredProgramException.class,
            () -> Shell.exec(List.of("ip", "netns", "exec", "sart-x", "nc", "-l", "179")));
    assertTrue(e.getMessage().contains("`nc` is not declared"), e.getMessage());
    assertThrows(
        Programs.UndeclaredProgramException.class,
        () -> Programs.check(List.of("taskset", "-c", "0", "iperf3", "-s")));
    assertThrows(
        Programs.UndeclaredProgramException.class,
        () -> Programs.check(List.of("env", "A=1", "nc")));
    assertThrows(
        Programs.UndeclaredProgramException.class,
        () -> Programs.processBuilder("python3", "-c", "print(1)")); // PATH's python3 may be any
  }

  @Test
  void programsOfSeesThroughWrappers() {
    assertEquals(
        List.of("ip", "taskset", "/usr/sbin/bird"),
        Programs.programsOf(
            List.of("ip", "netns", "exec", "ns1", "taskset", "-c", "1", "/usr/sbin/bird", "-f")));
    assertEquals(
        List.of("taskset"), Programs.programsOf(List.of("taskset", "-a", "-p", "-c", "1", "42")));
    assertEquals(List.of("ip"), Programs.programsOf(List.of("ip", "-n", "ns1", "link")));
    assertEquals(List.of("env", "nft"), Programs.programsOf(List.of("env", "-i", "X=1", "nft")));
  }

  @Test
  void theJdkAndWhatTheBuildMadeNeedNoDeclaration() {
    Programs.check(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    Programs.check(List.of(PROJECT.resolve("sart-cni/target/dist/sart-cni").toString()));
    assertThrows(
        Programs.UndeclaredProgramException.class,
        () -> Programs.check(List.of("/usr/bin/xeyes")),
        "a system program needs its declaration");
  }

  /**
   * Test code starts processes only through {@link Shell}, {@link Node#spawn} or {@link
   * Programs#processBuilder}, so the guard sees every program.
   */
  @Test
  void noTestCodeBuildsAProcessAroundTheGuard() throws IOException {
    List<String> offenders = new ArrayList<>();
    try (Stream<Path> files = Files.walk(PROJECT)) {
      files
          .filter(p -> p.toString().endsWith(".java"))
          .filter(p -> !p.toString().contains("/target/") && !p.toString().contains("/.git/"))
          .filter(
              p -> p.toString().contains("/src/test/") || p.startsWith(PROJECT.resolve("testbed")))
          .filter(p -> !GUARD.contains(p.getFileName().toString()))
          .forEach(
              p -> {
                try {
                  if (Files.readString(p).contains("new ProcessBuilder(")) {
                    offenders.add(PROJECT.relativize(p).toString());
                  }
                } catch (IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              });
    }
    assertEquals(List.of(), offenders, "use Programs.processBuilder, Shell or Node.spawn");
  }

  /** The packages {@code bin/lib/packages.sh} installs. */
  private static Set<String> packagesShInstalls() throws IOException {
    String script = Files.readString(PROJECT.resolve("bin/lib/packages.sh"));
    Matcher m = Pattern.compile("(?m)^SART_PACKAGES=\"([^\"]*)\"").matcher(script);
    if (!m.find()) {
      fail("bin/lib/packages.sh has no SART_PACKAGES=\"...\" line");
    }
    return new LinkedHashSet<>(List.of(m.group(1).trim().split("\\s+")));
  }

  /** The package that owns a file, asking dpkg under each name usrmerge gives it. */
  private static String owner(Path path) {
    Set<String> candidates = new LinkedHashSet<>();
    for (Path p : List.of(path, realPath(path))) {
      String s = p.toString();
      candidates.add(s);
      if (s.startsWith("/usr/")) {
        candidates.add(s.substring(4));
      } else {
        candidates.add("/usr" + s);
      }
    }
    for (String c : candidates) {
      var r = Shell.exec(List.of("dpkg-query", "-S", c));
      if (r.ok()) {
        return r.stdout()
            .lines()
            .filter(l -> !l.startsWith("diversion by"))
            .findFirst()
            .map(l -> l.split(":")[0].trim())
            .orElse("(no package)");
      }
    }
    return "(no package)";
  }

  private static Path realPath(Path p) {
    try {
      return p.toRealPath();
    } catch (IOException e) {
      return p;
    }
  }

  private static String dpkgQuery(String field, String pkg) {
    var r = Shell.exec(List.of("dpkg-query", "-W", "-f=" + field, pkg));
    return r.ok() ? r.stdout().trim() : "";
  }

  private static boolean dependsOn(String depends, String pkg) {
    return Pattern.compile("(^|[,|]\\s*)" + Pattern.quote(pkg) + "(\\s|,|:|$)")
        .matcher(depends)
        .find();
  }

  private static Path project() {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve("bin/lib/packages.sh"))) {
        return d;
      }
    }
    throw new IllegalStateException(
        "not inside the project: no bin/lib/packages.sh above " + Path.of("").toAbsolutePath());
  }
}
