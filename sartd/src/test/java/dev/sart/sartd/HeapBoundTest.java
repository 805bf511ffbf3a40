package dev.sart.sartd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.testbed.Programs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Serial's old generation grows with the garbage of every reset until it reaches the maximum heap
 * unless something collects it; with {@link HeapBound} it stays within its bound. Both runs are
 * {@link HeapBoundChurn} in a JVM of their own with sartd's collector options.
 */
class HeapBoundTest {
  private static final long MIB = 1L << 20;

  @Test
  void theOldGenerationStaysNearWhatIsLiveAcrossResets() throws Exception {
    Churn without = churn("off");
    // 10 × 32 MiB of promoted garbage: without a bound it is all still committed at the end
    assertTrue(
        without.peak > 200 * MIB,
        "without the bound the old generation kept growing: " + mib(without.peak));
    assertBounded(churn("on"));
  }

  /** A check that throws is retried: the bound stays on (it used to stay pending for good). */
  @Test
  void aFailedCheckDoesNotTurnTheBoundOff() throws Exception {
    Churn failing = churn("failing");
    assertTrue(
        failing.out.contains("event=heap-bound-check-failed"),
        "the check did not fail: " + failing.out);
    assertBounded(failing);
  }

  /** The largest is one burst's garbage over the 16 MiB floor, and little is used after. */
  private static void assertBounded(Churn with) {
    assertTrue(
        with.peak < 80 * MIB, "with the bound the old generation peaked at " + mib(with.peak));
    assertTrue(
        with.used < 16 * MIB,
        "with the bound the old generation uses " + mib(with.used) + " at the end");
  }

  private static String mib(long bytes) {
    return bytes / MIB + " MiB";
  }

  /** The churn's largest committed old generation, its usage at the end, and what it printed. */
  private record Churn(long peak, long used, String out) {}

  /** The options of {@code sartd/jvm.options}: one a line, without comments and blank lines. */
  private static List<String> jvmOptions() throws IOException {
    List<String> options =
        Files.readAllLines(Path.of("jvm.options")).stream()
            .map(String::strip)
            .filter(l -> !l.isEmpty() && !l.startsWith("#"))
            .toList();
    assertTrue(options.contains("-XX:+UseSerialGC"), "jvm.options: " + options);
    return options;
  }

  private static Churn churn(String mode) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // sartd/jvm.options as the daemon runs with it, then the churn's own sizing (a later option
    // wins): a small start and young generation, and a maximum the churn cannot reach
    cmd.addAll(jvmOptions());
    cmd.addAll(
        List.of(
            "-Xms8m",
            "-Xmx1g",
            "-Xmn4m",
            "-cp",
            System.getProperty("java.class.path"),
            HeapBoundChurn.class.getName(),
            mode));
    Process p = Programs.processBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(2, TimeUnit.MINUTES));
    assertEquals(0, p.exitValue(), out);
    String[] w =
        out.lines()
            .filter(l -> l.startsWith("peak-committed "))
            .findFirst()
            .orElseThrow()
            .split(" ");
    return new Churn(Long.parseLong(w[1]), Long.parseLong(w[3]), out);
  }
}
