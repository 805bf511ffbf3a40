package dev.sart.bgp.rib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The RIB's queue as the peers see it for read back-pressure: the marks and the wake-up below the
 * low one.
 */
class RibBackPressureTest {
  final Rib rib = new Rib();

  @AfterEach
  void tearDown() {
    rib.close();
  }

  @Test
  void overTheHighMarkUntilProcessedBelowTheLowMarkThenTheWaitersRun() throws Exception {
    rib.setLocalAs(65001);
    rib.setBackPressure(1_000, 300);
    RibPeer a = new RibTest().peer("192.0.2.2", 65002, false);
    rib.peerUp(a);
    CountDownLatch release = new CountDownLatch(1);
    rib.query(
        v -> {
          try {
            return release.await(60, TimeUnit.SECONDS); // the RIB thread is busy: everything queues
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
        });
    Attrs attrs = RibTest.attrs(65002);
    for (int k = 0; k < 4; k++) {
      List<Prefix> batch = new ArrayList<>();
      for (int i = 0; i < 500; i++) {
        batch.add(
            Prefix.v4(
                0xCB007100 + k * 500 + i, 32)); // into and past 203.0.113.0/24: only a RIB key here
      }
      rib.update(a, List.of(), null, batch, null, attrs);
    }
    assertEquals(2_000, rib.queuedPrefixes());
    assertTrue(rib.overHighWater());
    AtomicLong seenAt = new AtomicLong(-1);
    CountDownLatch woken = new CountDownLatch(1);
    rib.whenBelowLowWater(
        () -> {
          seenAt.set(rib.queuedPrefixes());
          woken.countDown();
        });
    assertEquals(1, woken.getCount(), "not while the RIB is behind");
    release.countDown();
    assertTrue(woken.await(60, TimeUnit.SECONDS));
    assertTrue(seenAt.get() <= 300, "woken at " + seenAt.get());
    rib.query(v -> null).join();
    assertEquals(0, rib.queuedPrefixes());
    assertFalse(rib.overHighWater());
    assertEquals(2_000, rib.query(RibView::size).join());
  }

  @Test
  void aWaiterBelowTheLowMarkRunsAtOnce() {
    boolean[] ran = new boolean[1];
    rib.whenBelowLowWater(() -> ran[0] = true);
    assertTrue(ran[0]);
  }

  @Test
  void marksMustBeOrdered() {
    assertThrows(IllegalArgumentException.class, () -> rib.setBackPressure(10, 10));
  }
}
