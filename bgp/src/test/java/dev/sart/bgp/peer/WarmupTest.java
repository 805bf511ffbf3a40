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
   * 4,096 routes, one cycle: UPDATEs of 500 (0 to 8; the 8th, routes 3,500 to 3,999, as IPv6 /128s
   * in MP_REACH_NLRI). What the Adj-RIB-Out towards the third peer must send, when peer b wins the
   * even UPDATEs (AS_PATH of 1 against 2: 4 × 500 + the last 96 = 2,096 routes) and a the odd ones
   * (2 against 3): a's table, 4,096; b's table, its 2,096 wins; a withdraws a tenth (409) from
   * route 500 on, all in odd UPDATE 1, which go over to b: 409; a announces them again: 409; b
   * withdraws everything: its 2,096 go back to a; a withdraws everything: 4,096 withdrawals.
   * Announced 9,106, withdrawn 4,096: counts the best path decides, which a route lost anywhere
   * between the codec and the packer would change.
   */
  @Test
  void sendsWhatBestPathDecidesThroughTheWholePath() {
    Warmup.Report r = Warmup.run(4_096);
    assertEquals(4_096, r.routes());
    assertEquals(9_106, r.announced());
    assertEquals(4_096, r.withdrawn());
  }

  @Test
  void repeatsTheCycleOverASmallTableForMoreRoutes() {
    // three cycles over 4,096 (the RIB's peers come up again for each)
    Warmup.Report r = Warmup.run(3 * 4_096);
    assertEquals(3 * 4_096, r.routes());
    assertEquals(3 * 9_106, r.announced());
    assertEquals(3 * 4_096, r.withdrawn());
  }

  /** A table smaller than one UPDATE and a tenth: the tenth is taken from the start. */
  @Test
  void smallTables() {
    // 100 routes, one UPDATE that b wins: 100 + 100, the tenth changes nothing, b's 100 go back to
    // a
    Warmup.Report r = Warmup.run(100);
    assertEquals(300, r.announced());
    assertEquals(100, r.withdrawn());
  }

  @Test
  void nothingToDoForZeroAndCappedAtTheBenchmarkRange() {
    assertEquals(new Warmup.Report(0, 0, 0, 0), Warmup.run(0));
    assertEquals(new Warmup.Report(0, 0, 0, 0), Warmup.run(-1));
    assertEquals(Warmup.MAX_ROUTES, Warmup.run(Integer.MAX_VALUE).routes());
    assertEquals(2 * 4_096, Warmup.run(5_000).routes()); // whole cycles
  }

  @Test
  void itsRibThreadEnds() {
    long before = ribThreads();
    Warmup.run(1_000);
    await().atMost(Duration.ofSeconds(10)).until(() -> ribThreads() <= before);
  }

  /** RIB shard threads alive (other tests of this JVM may hold RIBs of their own). */
  private static long ribThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("bgp-rib"))
        .count();
  }
}
