package dev.sart.bgp.rib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The Adj-RIB-Out's pending map agrees with a HashMap through puts, replacements and removals. */
class PrefixMapTest {

  @Test
  void randomPutsAndRemovalsMatchAHashMap() {
    Random r = new Random(7);
    PrefixMap m = new PrefixMap();
    Map<Prefix, Object> want = new HashMap<>();
    for (int round = 0; round < 200_000; round++) {
      Prefix p = DestinationTableTest.prefix(r);
      if (r.nextInt(3) > 0) {
        Integer v = round;
        m.put(p, v);
        want.put(p, v);
      } else {
        m.remove(p);
        want.remove(p);
      }
      assertEquals(want.size(), m.size());
      if (round % 10_000 == 0) {
        check(m, want);
      }
    }
    check(m, want);
  }

  private static void check(PrefixMap m, Map<Prefix, Object> want) {
    Map<Prefix, Object> walked = new HashMap<>();
    for (int i = 0; i < m.capacity(); i++) {
      if (m.keyAt(i) != null) {
        assertNull(walked.put(m.keyAt(i), m.valueAt(i)), "each key once");
      }
    }
    assertEquals(want, walked);
    want.forEach((p, v) -> assertEquals(v, m.get(p)));
    assertNull(m.get(Prefix.parse("203.0.113.7/32")));
  }
}
