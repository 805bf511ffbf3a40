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
    Map<Prefix, Attrs> wantBase = new HashMap<>();
    Attrs a = AdjRibOutTest.attrs(65002);
    for (int round = 0; round < 200_000; round++) {
      Prefix p = DestinationTableTest.prefix(r);
      if (r.nextInt(3) > 0) {
        Integer v = round;
        if (round % 2 == 0) {
          Attrs base = round % 4 == 0 ? a : null;
          m.put(p, base, v);
          wantBase.put(p, base);
        } else {
          m.put(p, v); // keeps the base
          wantBase.putIfAbsent(p, null);
        }
        want.put(p, v);
      } else {
        m.remove(p);
        want.remove(p);
        wantBase.remove(p);
      }
      assertEquals(want.size(), m.size());
      if (round % 10_000 == 0) {
        check(m, want, wantBase);
      }
    }
    check(m, want, wantBase);
  }

  @Test
  void keysWithTheSameTagAreKeptApart() {
    Prefix[] same = DestinationTableTest.sameTag();
    PrefixMap m = new PrefixMap();
    m.put(same[0], "first");
    assertNull(m.get(same[1]));
    m.put(same[1], "second");
    assertEquals(2, m.size());
    for (int i = 0; i < 1_000; i++) { // grows the map: both placed again by their tags
      m.put(Prefix.v4(0xC6336400 + i, 32), i);
    }
    assertEquals("first", m.get(same[0]));
    assertEquals("second", m.get(same[1]));
    m.remove(same[0]);
    assertNull(m.get(same[0]));
    assertEquals("second", m.get(same[1]));
    assertEquals(1_001, m.size());
  }

  private static void check(PrefixMap m, Map<Prefix, Object> want, Map<Prefix, Attrs> wantBase) {
    Map<Prefix, Object> walked = new HashMap<>();
    Map<Prefix, Attrs> bases = new HashMap<>();
    for (int i = 0; i < m.capacity(); i++) {
      if (m.keyAt(i) != null) {
        assertNull(walked.put(m.keyAt(i), m.valueAt(i)), "each key once");
        bases.put(m.keyAt(i), m.baseAt(i));
      }
    }
    assertEquals(want, walked);
    assertEquals(wantBase, bases);
    want.forEach((p, v) -> assertEquals(v, m.get(p)));
    assertNull(m.get(Prefix.parse("203.0.113.7/32")));
  }
}
