package dev.sart.bgp.rib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The Loc-RIB's open-addressing index agrees with a HashMap through growth, removals and shrinking. */
class DestinationTableTest {

  static Prefix prefix(Random r) {
    // a small space of IPv4 and IPv6 prefixes, so that the same ones come again and collide
    int k = r.nextInt(5_000);
    return k % 3 == 0 ? Prefix.v6(0x2001_0db8_0000_0000L | ((long) k << 16), 0, 48 + k % 17)
        : Prefix.v4(0xC0000200 + (k << 8), 16 + k % 17);
  }

  @Test
  void randomInsertsAndRemovalsMatchAHashMap() {
    Random r = new Random(5);
    DestinationTable t = new DestinationTable();
    Map<Prefix, Destination> want = new HashMap<>();
    for (int round = 0; round < 200_000; round++) {
      Prefix p = prefix(r);
      // grow to about 3,000 entries, then mostly remove (the table shrinks again)
      boolean insert = round < 100_000 ? r.nextInt(3) > 0 : r.nextInt(4) == 0;
      if (insert) {
        Destination d = t.getOrCreate(p);
        Destination before = want.putIfAbsent(p, d);
        if (before != null) {
          assertSame(before, d, "the same destination for " + p);
        }
      } else {
        t.remove(p);
        want.remove(p);
      }
      assertEquals(want.size(), t.size());
      if (round % 10_000 == 0) {
        check(t, want);
      }
    }
    check(t, want);
  }

  private static void check(DestinationTable t, Map<Prefix, Destination> want) {
    Map<Destination, Boolean> seen = new IdentityHashMap<>();
    for (Destination d : t.values()) {
      assertSame(want.get(d.prefix()), d);
      assertNull(seen.put(d, true), "each destination once");
    }
    assertEquals(want.size(), seen.size());
    want.forEach((p, d) -> assertSame(d, t.get(p)));
    assertNull(t.get(Prefix.parse("203.0.113.7/32")));
  }
}
