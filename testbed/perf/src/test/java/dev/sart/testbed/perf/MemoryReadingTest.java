package dev.sart.testbed.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MemoryReadingTest {
  /** 500,000 of them are held by {@link Holder} while the histogram is taken. */
  record Marker(long a, long b) {}

  /** A JVM that holds the markers, says {@code ready} and waits for its standard input to close. */
  static final class Holder {
    public static void main(String[] args) throws Exception {
      List<Marker> held = new ArrayList<>();
      for (int i = 0; i < 500_000; i++) {
        held.add(new Marker(i, i));
      }
      System.out.println("ready");
      System.out.flush();
      while (System.in.read() >= 0) {
        // until the test closes our stdin
      }
      System.out.println(held.size());
    }
  }

  @Test
  void theClassHistogramOfAnotherJvmCountsItsLiveObjects() throws Exception {
    Process p =
        dev.sart.testbed.Programs.processBuilder(
                SartdLauncher.java(),
                "-XX:+UseSerialGC",
                "-cp",
                System.getProperty("java.class.path"),
                Holder.class.getName())
            .redirectErrorStream(true)
            .start();
    try {
      var out =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      assertEquals("ready", out.readLine());
      MemoryReading.Histogram h = MemoryReading.histogram(p.pid());
      MemoryReading.Histogram.Row markers =
          h.top(8).stream()
              .filter(r -> r.name().equals(Marker.class.getName()))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no Marker row in " + h));
      assertEquals(500_000, markers.instances());
      assertTrue(h.totalBytes() > markers.bytes(), h.toString());
      List<MemoryReading.Histogram.Row> top = h.top(8);
      assertEquals(8, top.size(), h.toString());
      assertTrue(top.getFirst().bytes() >= top.getLast().bytes(), "rows by size: " + top);
    } finally {
      p.getOutputStream().close();
      p.waitFor();
    }
  }

  @Test
  void theTotalLineIsRequired() {
    var e =
        assertThrows(
            IllegalStateException.class,
            () -> MemoryReading.parseHistogram(" num     #instances         #bytes  class name\n"));
    assertTrue(e.getMessage().contains("no Total"), e.getMessage());
  }
}
