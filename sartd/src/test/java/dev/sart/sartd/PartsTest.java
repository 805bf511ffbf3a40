package dev.sart.sartd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PartsTest {
  private final List<Integer> exits = new CopyOnWriteArrayList<>();
  private final List<String> logged = new CopyOnWriteArrayList<>();
  private final Logger logger = Logger.getLogger(Parts.class.getName());
  private final Handler handler =
      new Handler() {
        @Override
        public void publish(LogRecord r) {
          logged.add(r.getLevel() + " " + r.getMessage());
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  @BeforeEach
  void setUp() {
    logger.addHandler(handler);
  }

  @AfterEach
  void tearDown() {
    logger.removeHandler(handler);
  }

  @Test
  void aPartThatDiesWithAnErrorEndsTheProcess() throws Exception {
    Parts parts = new Parts(exits::add);
    Thread t =
        parts.start(
            "agent",
            () -> {
              throw new NoClassDefFoundError("java/net/http/HttpClient");
            });
    t.join();
    assertEquals(List.of(1), exits);
    assertTrue(
        logged.stream()
            .anyMatch(
                l ->
                    l.startsWith("SEVERE event=agent-failed")
                        && l.contains("NoClassDefFoundError")
                        && l.contains("action=exit code=1")),
        logged::toString);
  }

  @Test
  void aPartThatFailsOnTheCallingThreadEndsTheProcessToo() {
    Parts parts = new Parts(exits::add);
    Integer rc =
        parts.run(
            "agent",
            () -> {
              throw new IllegalStateException("informers did not sync");
            });
    assertNull(rc);
    assertEquals(List.of(1), exits);
  }

  @Test
  void aPartThatReturnsDoesNotEndTheProcess() {
    Parts parts = new Parts(exits::add);
    assertEquals(0, parts.run("agent", () -> 0));
    assertEquals(List.of(), exits);
  }
}
