package dev.sart.bgp.rib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The Loc-RIB's open-addressing index agrees with a HashMap through growth, removals and shrinking.
 */
class DestinationTableTest {

  static Prefix prefix(Random r) {
    // a small space of IPv4 and IPv6 prefixes, so that the same ones come again and collide
    int k = r.nextInt(5_000);
    return k % 3 == 0
        ? Prefix.v6(0x2001_0db8_0000_0000L | ((long) k << 16), 0, 48 + k % 17)
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

  /**
   * Two prefixes whose tags (the low 32 bits of their hash) are equal, found by search: a probe
   * that matches a tag must still compare the prefix.
   */
  static Prefix[] sameTag() {
    Map<Integer, Prefix> seen = new HashMap<>();
    for (int a = 0; ; a++) {
      Prefix p = Prefix.v4(0x0a000000 + a, 32);
      Prefix other = seen.putIfAbsent(DestinationTable.tag(p), p);
      if (other != null) {
        return new Prefix[] {other, p};
      }
    }
  }

  @Test
  void prefixesWithTheSameTagAreKeptApart() {
    Prefix[] same = sameTag();
    assertEquals(DestinationTable.tag(same[0]), DestinationTable.tag(same[1]));
    DestinationTable t = new DestinationTable();
    Destination d0 = t.getOrCreate(same[0]);
    assertNull(t.get(same[1]), same[1] + " is not " + same[0]);
    Destination d1 = t.getOrCreate(same[1]);
    assertEquals(2, t.size());
    assertSame(d0, t.get(same[0]));
    assertSame(d1, t.get(same[1]));
    assertEquals(same[1], d1.prefix());
    // grow the table past both (they are placed again by their tags), then remove the first
    for (int i = 0; i < 1_000; i++) {
      t.getOrCreate(Prefix.v4(0xC6336400 + i, 32));
    }
    t.remove(same[0]);
    assertNull(t.get(same[0]));
    assertSame(d1, t.get(same[1]));
    t.remove(same[1]);
    assertNull(t.get(same[1]));
    assertEquals(1_000, t.size());
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
