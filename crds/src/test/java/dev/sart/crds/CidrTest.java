package dev.sart.crds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import org.junit.jupiter.api.Test;

class CidrTest {
  @Test
  void parsesAndFormatsBothFamilies() {
    assertEquals("10.0.1.0/24", Cidr.parse("10.0.1.0/24").toString());
    assertEquals("2001:db8::/64", Cidr.parse("2001:DB8:0:0::/64").toString());
    assertEquals("2001:db8:0:1::1:0/128", Cidr.parse("2001:db8:0:1:0:0:1:0/128").toString());
    assertEquals("::/0", Cidr.parse("::/0").toString());
  }

  @Test
  void rejectsWhatIsNotACidr() {
    for (var bad :
        new String[] {
          "10.0.1.0",
          "10.0.1.0/",
          "10.0.1.0/33",
          "10.0.1/24",
          "host/24",
          "2001:db8::/129",
          "10.0.1.0/-1",
          "::ffff:10.0.0.0/120",
          "fe80::1%eth0/64"
        }) {
      assertThrows(IllegalArgumentException.class, () -> Cidr.parse(bad), bad);
    }
  }

  @Test
  void containmentOverlapAndOffsets() {
    var pool = Cidr.parse("10.0.1.0/24");
    assertTrue(pool.contains(Cidr.parseAddress("10.0.1.255")));
    assertFalse(pool.contains(Cidr.parseAddress("10.0.2.0")));
    assertFalse(pool.contains(Cidr.parseAddress("2001:db8::1")));
    assertTrue(pool.overlaps(Cidr.parse("10.0.0.0/16")));
    assertFalse(pool.overlaps(Cidr.parse("10.0.2.0/24")));
    assertEquals("10.0.1.20", Cidr.format(pool.addressAt(BigInteger.valueOf(20))));
    assertEquals(BigInteger.valueOf(256), pool.size());
    assertEquals(BigInteger.valueOf(20), pool.offsetOf(Cidr.parseAddress("10.0.1.20")));
    assertFalse(Cidr.parse("10.0.1.5/24").isMasked());
    assertEquals("10.0.1.0/24", Cidr.parse("10.0.1.5/24").masked().toString());
  }
}
