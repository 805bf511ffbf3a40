package dev.sart.bgp.server;

import static org.awaitility.Awaitility.await;

import dev.sart.bgp.bfd.BfdState;
import dev.sart.bgp.bfd.BfdStatus;
import dev.sart.bgp.fsm.State;
import dev.sart.testbed.Testbed;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A benchmark, not a test (it asserts nothing about time): BFD's failure detection time at 100 ms ×
 * 3, ours and FRR's bfdd's in the same run, over repeated cuts of the path (nftables in FRR's
 * namespace drops UDP 3784 and TCP 179 both ways). The time runs from just before {@code nft} is
 * started (so it includes the command's own time: pessimistic) to the state change: ours from
 * {@link BfdStatus#lastChange()}, FRR's from bfdd's log ({@code debug bfd peer}, microsecond
 * timestamps). Runs only when asked:
 *
 * <pre>
 * ./mvnw -B -o -pl bgp -am verify -Dtest=BfdDetectionBenchmark -Dsurefire.failIfNoSpecifiedTests=false -Dsart.fuzz= -Dsart.bfd.bench=30
 * </pre>
 */
@EnabledIfSystemProperty(named = "sart.bfd.bench", matches = "\\d+")
class BfdDetectionBenchmark {
  private static final Pattern FRR_DOWN =
      Pattern.compile(
          "^(\\d{4}/\\d\\d/\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{6}) .*state-change: .* up -> down",
          Pattern.MULTILINE);
  private static final DateTimeFormatter FRR_TIME =
      DateTimeFormatter.ofPattern("yyyy/MM/dd HH:mm:ss.SSSSSS");

  @RegisterExtension final Testbed testbed = new Testbed();

  @Test
  void measuresFailureDetectionOverRepeatedCuts() throws Exception {
    int rounds = Integer.getInteger("sart.bfd.bench");
    List<Double> ours = new ArrayList<>();
    List<Double> frrs = new ArrayList<>();
    List<Double> nft = new ArrayList<>();
    try (BfdPair pair = new BfdPair(testbed)) {
      for (int i = 0; i < rounds; i++) {
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () ->
                    pair.peer.status().state() == State.ESTABLISHED
                        && pair.server.bfdStatus(BfdPair.FRR).state() == BfdState.UP
                        && pair.server.bfdStatus(BfdPair.FRR).detectionTimeMicros() == 300_000
                        && "up".equals(pair.frr.bfdState(BfdPair.SART))
                        && pair.frr.bfdPeers().get(0).path("remote-transmit-interval").asInt()
                            == 100);
        Thread.sleep(1000 + (long) (Math.random() * 500)); // a random phase against the timers
        Instant before = Instant.now();
        pair.cut();
        Instant after = Instant.now();
        await()
            .atMost(Duration.ofSeconds(10))
            .until(
                () ->
                    pair.server.bfdStatus(BfdPair.FRR).state() != BfdState.UP
                        && frrDown(pair.frr.bfdLog(), before) != null);
        ours.add(millis(before, pair.server.bfdStatus(BfdPair.FRR).lastChange()));
        frrs.add(millis(before, frrDown(pair.frr.bfdLog(), before)));
        nft.add(millis(before, after));
        pair.restore();
        System.out.printf(
            Locale.ROOT,
            "round %d: sart %.1f ms, FRR %.1f ms (nft took %.1f ms)%n",
            i + 1,
            ours.getLast(),
            frrs.getLast(),
            nft.getLast());
      }
    }
    System.out.printf(
        Locale.ROOT,
        "BFD detection at 100 ms x 3 over %d cuts: sart p50 %.0f ms p99 %.0f ms max %.0f ms;"
            + " FRR bfdd p50 %.0f ms p99 %.0f ms max %.0f ms; sart/FRR p50 %.2f;"
            + " nft p50 %.0f ms (included); load %s%n",
        rounds,
        percentile(ours, 50),
        percentile(ours, 99),
        Collections.max(ours),
        percentile(frrs, 50),
        percentile(frrs, 99),
        Collections.max(frrs),
        percentile(ours, 50) / percentile(frrs, 50),
        percentile(nft, 50),
        java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim());
  }

  /** The time of bfdd's last "up -> down" after {@code since}, or null. */
  private static Instant frrDown(String log, Instant since) {
    Instant last = null;
    Matcher m = FRR_DOWN.matcher(log);
    while (m.find()) {
      Instant t =
          LocalDateTime.parse(m.group(1), FRR_TIME).atZone(ZoneId.systemDefault()).toInstant();
      if (t.isAfter(since)) {
        last = t;
      }
    }
    return last;
  }

  private static double millis(Instant from, Instant to) {
    return Duration.between(from, to).toNanos() / 1e6;
  }

  /** Nearest-rank percentile. */
  private static double percentile(List<Double> values, int p) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int rank = (int) Math.ceil(p / 100.0 * sorted.size());
    return sorted.get(Math.max(0, rank - 1));
  }
}
