package dev.sart.bgp.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sart.bgp.fsm.Timer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * RFC 4271 §10: ConnectRetry and KeepAlive run for 0.75 to 1.0 of their value; the rest as given.
 */
class TimerJitterTest {
  private static final Duration TEN = Duration.ofSeconds(10);

  @Test
  void connectRetryAndKeepaliveRunForThreeQuartersToAllOfTheirValue() {
    for (Timer t : new Timer[] {Timer.CONNECT_RETRY, Timer.KEEPALIVE}) {
      assertEquals(Duration.ofMillis(7_500), Connection.jittered(t, TEN, 0.0), t.name());
      assertEquals(Duration.ofMillis(8_750), Connection.jittered(t, TEN, 0.5), t.name());
      assertEquals(
          Duration.ofNanos(9_999_999_975L), Connection.jittered(t, TEN, 0.99999999), t.name());
    }
  }

  @Test
  void theOtherTimersAreNotJittered() {
    for (Timer t : Timer.values()) {
      if (t != Timer.CONNECT_RETRY && t != Timer.KEEPALIVE) {
        assertEquals(TEN, Connection.jittered(t, TEN, 0.0), t.name());
      }
    }
  }
}
