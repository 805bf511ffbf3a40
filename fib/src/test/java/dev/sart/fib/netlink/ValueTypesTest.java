package dev.sart.fib.netlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

class ValueTypesTest {
  @Test
  void prefixesAreNormalisedToTheirNetwork() {
    assertEquals(IpPrefix.parse("192.0.2.0/24"), IpPrefix.parse("192.0.2.77/24"));
    assertEquals("192.0.2.0/24", IpPrefix.parse("192.0.2.77/24").toString());
    assertEquals("2001:db8::/32", IpPrefix.parse("2001:db8:ffff::1/32").toString());
    assertEquals("203.0.113.9/32", IpPrefix.parse("203.0.113.9").toString());
    assertEquals(128, IpPrefix.parse("fd00::1").length());
    assertThrows(IllegalArgumentException.class, () -> IpPrefix.parse("192.0.2.0/33"));
    assertThrows(
        IllegalArgumentException.class, () -> IpPrefix.parse("example.com/24"), "no name lookups");
  }

  @Test
  void prefixesContainAddressesAndMoreSpecificsOfTheirFamily() {
    IpPrefix p = IpPrefix.parse("198.51.100.0/24");
    assertTrue(p.contains(Ip.parse("198.51.100.200")));
    assertFalse(p.contains(Ip.parse("203.0.113.1")));
    assertTrue(p.contains(IpPrefix.parse("198.51.100.128/25")));
    assertFalse(p.contains(IpPrefix.parse("198.51.100.0/23")));
    assertFalse(IpPrefix.parse("::/0").contains(Ip.parse("192.0.2.1")));
    assertTrue(
        IpPrefix.parse("0.0.0.0/0").compareTo(IpPrefix.parse("::/0")) < 0, "IPv4 sorts first");
  }

  @Test
  void ipv6PrintsAsRfc5952Says() {
    assertEquals("2001:db8::1", Ip.format(Ip.parse("2001:0db8:0:0:0:0:0:1")));
    assertEquals(
        "2001:db8:0:1:1:1:1:1",
        Ip.format(Ip.parse("2001:db8:0:1:1:1:1:1")),
        "§4.2.2: one zero word stays");
    assertEquals(
        "2001:db8::1:0:0:1",
        Ip.format(Ip.parse("2001:db8:0:0:1:0:0:1")),
        "§4.2.3: the first of equal runs");
    assertEquals(
        "2001:db8:0:1::1", Ip.format(Ip.parse("2001:db8:0:1:0:0:0:1")), "§4.2.3: the longest run");
    assertEquals("::", Ip.format(Ip.parse("::")));
    assertEquals("fd00::", Ip.format(Ip.parse("fd00::")));
    assertEquals("::1", Ip.format(Ip.parse("::1")));
  }

  @Test
  void macAddressesRoundTripAndCompareByValue() {
    MacAddress m = MacAddress.parse("02:00:5E:00:53:01");
    assertEquals("02:00:5e:00:53:01", m.toString());
    assertEquals(m, MacAddress.of(m.bytes()));
    assertThrows(IllegalArgumentException.class, () -> MacAddress.parse("02:00:5e:00:53"));
  }

  @Test
  void flagSetsRoundTripThroughTheirBits() {
    Set<AddressFlag> flags = Set.of(AddressFlag.NODAD, AddressFlag.NOPREFIXROUTE);
    assertEquals(0x202, BitFlag.encode(flags));
    assertEquals(flags, BitFlag.decode(AddressFlag.class, 0x202));
  }
}
