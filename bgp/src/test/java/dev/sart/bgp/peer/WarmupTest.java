package dev.sart.bgp.peer;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The start-up warm-up goes through the whole route path (wire codec, RFC 7606 check, RIB, best
 * path, Adj-RIB-Out, packer) and leaves nothing behind.
 */
class WarmupTest {

  /**
   * 8,000 routes are 16 UPDATEs of 500 (the 16th carries IPv6 /128s in MP_REACH_NLRI). What the
   * Adj-RIB-Out towards the third peer must send, when peer b wins the even UPDATEs (AS_PATH of 1
   * against 2) and a the odd ones (2 against 3):
   * a's table: 8,000; b's table: the 4,000 of the even UPDATEs; a withdraws its first 800 (500
   * of UPDATE 0, where b is best already, and 300 of UPDATE 1, which go over to b): 300; a announces
   * them again: 300; b withdraws everything: its 4,000 go back to a; a withdraws everything:
   * 8,000 withdrawals. Announced 16,600, withdrawn 8,000: a count the best path decides, which a
   * path lost anywhere between the codec and the packer would change.
   */
  @Test
  void sendsWhatBestPathDecidesThroughTheWholePath() {
    Warmup.Report r = Warmup.run(8_000);
    assertEquals(8_000, r.routes());
    assertEquals(16_600, r.announced());
    assertEquals(8_000, r.withdrawn());
  }

  @Test
  void repeatsTheCycleOverASmallTableForMoreRoutes() {
    // 32,768 routes: two cycles over 16,384 (the RIB's peers come up again for the second)
    Warmup.Report r = Warmup.run(32_768);
    assertEquals(32_768, r.routes());
    assertEquals(2 * 34_428, r.announced());
    assertEquals(32_768, r.withdrawn());
  }

  @Test
  void nothingToDoForZeroAndCappedAtTheBenchmarkRange() {
    assertEquals(new Warmup.Report(0, 0, 0, 0), Warmup.run(0));
    assertEquals(new Warmup.Report(0, 0, 0, 0), Warmup.run(-1));
    assertEquals(Warmup.MAX_ROUTES, Warmup.run(Integer.MAX_VALUE).routes());
  }

  @Test
  void itsRibThreadEnds() {
    long before = ribThreads();
    Warmup.run(1_000);
    await().atMost(Duration.ofSeconds(10)).until(() -> ribThreads() <= before);
  }

  /** RIB shard threads alive (other tests of this JVM may hold RIBs of their own). */
  private static long ribThreads() {
    return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("bgp-rib")).count();
  }
}
