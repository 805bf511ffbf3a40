package dev.sart.controller.runtime;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class WritesTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @Test
  void oneWriteAtATimePerKeyAndTheNewestWaitingOneWins() throws Exception {
    try (var writes = new Writes("test", 4)) {
      var done = new CopyOnWriteArrayList<String>();
      var first = new CountDownLatch(1);
      var started = new CountDownLatch(1);
      writes.submit(
          "a",
          () -> {
            started.countDown();
            first.await();
            done.add("a1");
          });
      started.await();
      // a1 is under way: a2 waits, a3 replaces it; b is another key and does not wait for a
      writes.submit("a", () -> done.add("a2"));
      writes.submit("a", () -> done.add("a3"));
      writes.submit("b", () -> done.add("b1"));
      await().atMost(WAIT).until(() -> done.contains("b1"));
      assertEquals(List.of("b1"), done);
      first.countDown();
      await().atMost(WAIT).until(() -> writes.pending() == 0);
      assertEquals(List.of("b1", "a1", "a3"), done);
    }
  }

  @Test
  void aFailedWriteDoesNotStopTheNextOfItsKey() {
    try (var writes = new Writes("test", 1)) {
      var done = new CopyOnWriteArrayList<String>();
      writes.submit(
          "a",
          () -> {
            throw new IllegalStateException("refused");
          });
      writes.submit("a", () -> done.add("a2"));
      await().atMost(WAIT).until(() -> done.contains("a2"));
    }
  }
}
