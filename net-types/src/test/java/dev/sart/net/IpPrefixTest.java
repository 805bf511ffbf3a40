package dev.sart.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class IpPrefixTest {
  @Test
  void prefixesAreNormalisedToTheirNetwork() {
    assertEquals(IpPrefix.parse("192.0.2.0/24"), IpPrefix.parse("192.0.2.77/24"));
    assertEquals("192.0.2.0/24", IpPrefix.parse("192.0.2.77/24").toString());
    assertEquals("2001:db8::/32", IpPrefix.parse("2001:db8:ffff::1/32").toString());
    assertEquals("10.0.0.0/8", new IpPrefix(Ip.parse("10.1.2.3"), 8).toString());
    assertThrows(IllegalArgumentException.class, () -> new IpPrefix(Ip.parse("10.0.0.0"), 33));
  }

  @Test
  void aBareAddressIsItsHostPrefixButNotACidr() {
    assertEquals("203.0.113.9/32", IpPrefix.parse("203.0.113.9").toString());
    assertEquals(128, IpPrefix.parse("fd00::1").length());
    assertEquals(IpPrefix.host(Ip.parse("fd00::1")), IpPrefix.parse("fd00::1/128"));
    assertThrows(IllegalArgumentException.class, () -> IpPrefix.parseCidr("203.0.113.9"));
  }

  @Test
  void parsesAndFormatsBothFamilies() {
    assertEquals("10.0.1.0/24", IpPrefix.parseCidr("10.0.1.0/24").toString());
    assertEquals("2001:db8::/64", IpPrefix.parseCidr("2001:DB8:0:0::/64").toString());
    assertEquals(
        "2001:db8:0:1::1:0/128", IpPrefix.parseCidr("2001:db8:0:1:0:0:1:0/128").toString());
    assertEquals("::/0", IpPrefix.parseCidr("::/0").toString());
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
          "example.com/24",
          "2001:db8::/129",
          "10.0.1.0/-1",
          "10.0.1.0/+8",
          "::ffff:10.0.0.0/120",
          "fe80::1%eth0/64"
        }) {
      assertThrows(IllegalArgumentException.class, () -> IpPrefix.parseCidr(bad), bad);
      assertThrows(IllegalArgumentException.class, () -> IpPrefix.parseNetwork(bad), bad);
      if (bad.indexOf('/') >= 0) {
        assertThrows(IllegalArgumentException.class, () -> IpPrefix.parse(bad), bad);
      }
    }
  }

  @Test
  void aNetworkHasNoHostBitsAndTheErrorNamesTheNetwork() {
    assertEquals("10.0.1.0/24", IpPrefix.parseNetwork("10.0.1.0/24").toString());
    var e =
        assertThrows(IllegalArgumentException.class, () -> IpPrefix.parseNetwork("10.0.1.5/24"));
    assertEquals(
        "must be a network address with no host bits set ('10.0.1.5/24' has them; the network is"
            + " 10.0.1.0/24)",
        e.getMessage());
    assertEquals("10.0.1.0/24", IpPrefix.parseCidr("10.0.1.5/24").toString());
  }

  @Test
  void prefixesContainAddressesAndMoreSpecificsOfTheirFamily() {
    IpPrefix p = IpPrefix.parse("198.51.100.0/24");
    assertTrue(p.contains(Ip.parse("198.51.100.200")));
    assertFalse(p.contains(Ip.parse("203.0.113.1")));
    assertTrue(p.contains(IpPrefix.parse("198.51.100.128/25")));
    assertFalse(p.contains(IpPrefix.parse("198.51.100.0/23")));
    assertFalse(IpPrefix.parse("::/0").contains(Ip.parse("192.0.2.1")));
    assertFalse(IpPrefix.parse("::/0").contains(IpPrefix.parse("0.0.0.0/0")));
  }

  @Test
  void overlapSizeAndOffsets() {
    var pool = IpPrefix.parseCidr("10.0.1.0/24");
    assertTrue(pool.overlaps(IpPrefix.parseCidr("10.0.0.0/16")));
    assertTrue(IpPrefix.parseCidr("10.0.0.0/16").overlaps(pool));
    assertFalse(pool.overlaps(IpPrefix.parseCidr("10.0.2.0/24")));
    assertFalse(IpPrefix.parseCidr("::/0").overlaps(IpPrefix.parseCidr("0.0.0.0/0")));
    assertEquals("10.0.1.20", Ip.format(pool.addressAt(BigInteger.valueOf(20))));
    assertThrows(IllegalArgumentException.class, () -> pool.addressAt(BigInteger.valueOf(256)));
    assertEquals(BigInteger.valueOf(256), pool.size());
    assertEquals(BigInteger.valueOf(20), pool.offsetOf(Ip.parse("10.0.1.20")));
    assertThrows(IllegalArgumentException.class, () -> pool.offsetOf(Ip.parse("10.0.2.0")));
    var v6 = IpPrefix.parseCidr("fd00:10::/120");
    assertEquals("fd00:10::ff", Ip.format(v6.addressAt(BigInteger.valueOf(255))));
    assertEquals(128, v6.addressBits());
    assertEquals(32, pool.addressBits());
  }

  @Test
  void ipv4SortsFirstThenByAddressThenShorterFirst() {
    var sorted =
        new TreeSet<>(
            List.of(
                IpPrefix.parse("::/0"),
                IpPrefix.parse("10.0.0.0/16"),
                IpPrefix.parse("10.0.0.0/8"),
                IpPrefix.parse("9.255.0.0/16"),
                IpPrefix.parse("0.0.0.0/0")));
    assertEquals("[0.0.0.0/0, 9.255.0.0/16, 10.0.0.0/8, 10.0.0.0/16, ::/0]", sorted.toString());
  }
}
