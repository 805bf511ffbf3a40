package dev.sart.bgp.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ValueTypesTest {

  @Test
  void octetsCompareByContentAndNeverShareTheirArray() {
    byte[] raw = {1, 2, 3};
    Octets a = Octets.of(raw);
    raw[0] = 9;
    assertEquals(Octets.fromHex("01 02 03"), a);
    assertEquals(Octets.fromHex("010203").hashCode(), a.hashCode());
    assertNotEquals(Octets.fromHex("0102"), a);
    a.toByteArray()[0] = 7;
    assertEquals(1, a.get(0));
    assertEquals("0x010203", a.toString());
  }

  @Test
  void recordsHoldingOctetsCompareByValue() {
    assertEquals(
        new Notification(6, 2, Octets.fromHex("00")), new Notification(6, 2, Octets.fromHex("00")));
    assertEquals(
        new Capability.Unknown(99, Octets.fromHex("ab")),
        new Capability.Unknown(99, Octets.fromHex("ab")));
  }

  @Test
  void ipv4TextRoundTrips() {
    assertEquals(0xc0000201, Ip.parseV4("192.0.2.1"));
    assertEquals("192.0.2.1", Ip.formatV4(0xc0000201));
    assertEquals("255.255.255.255", Ip.formatV4(-1));
    assertThrows(IllegalArgumentException.class, () -> Ip.parseV4("192.0.2"));
    assertThrows(IllegalArgumentException.class, () -> Ip.parseV4("192.0.2.256"));
  }

  @Test
  void ipv6TextIsCompressedAsRfc5952Says() {
    for (String text :
        new String[] {
          "2001:db8::1",
          "::",
          "::1",
          "2001:db8:0:1::",
          "fe80::a8c9:7cff:fec7:ca8",
          "2001:db8:1:2:3:4:5:6",
          "2001:0:0:1::1"
        }) {
      long[] a = Ip.parseV6(text);
      assertEquals(text, Ip.formatV6(a[0], a[1]));
    }
    assertEquals(
        "2001:db8::1:0:0:1",
        Ip.formatV6(Ip.parseV6("2001:db8:0:0:1:0:0:1")[0], Ip.parseV6("2001:db8:0:0:1:0:0:1")[1]));
    assertThrows(IllegalArgumentException.class, () -> Ip.parseV6("192.0.2.1"));
  }

  @Test
  void prefixesAreMaskedToTheirLengthAndPrintedAsCidr() {
    Ipv4Prefixes v4 =
        Ipv4Prefixes.builder().add("198.51.100.77/24").add("0.0.0.0/0").add("192.0.2.1/32").build();
    assertEquals("198.51.100.0/24", v4.toString(0));
    assertEquals("0.0.0.0/0", v4.toString(1));
    assertEquals("192.0.2.1/32", v4.toString(2));
    Ipv6Prefixes v6 =
        Ipv6Prefixes.builder().add("2001:db8:ffff:ffff:ffff::/36").add("2001:db8::1/128").build();
    assertEquals("2001:db8:f000::/36", v6.toString(0));
    assertEquals("2001:db8::1/128", v6.toString(1));
    assertThrows(IllegalArgumentException.class, () -> Ipv4Prefixes.builder().add("192.0.2.0/33"));
    assertThrows(IllegalStateException.class, () -> Ipv4Prefixes.builder().add(1, "192.0.2.0/24"));
  }

  @Test
  void aWireWriterGrowsAndCanBeReused() {
    WireWriter out = new WireWriter(16);
    for (int i = 0; i < 100; i++) {
      out.u32(i);
    }
    assertEquals(400, out.length());
    assertEquals(99, out.array()[399]);
    out.clear();
    out.u16(0xabcd);
    assertArrayEquals(new byte[] {(byte) 0xab, (byte) 0xcd}, out.toByteArray());
  }

  @Test
  void communitiesAreNamedWhenWellKnown() {
    assertEquals(
        "Communities[65000:100 NO_EXPORT GRACEFUL_SHUTDOWN]",
        Communities.of(
                Communities.community(65000, 100),
                Iana.WellKnownCommunity.NO_EXPORT,
                Iana.WellKnownCommunity.GRACEFUL_SHUTDOWN)
            .toString());
    assertEquals(
        "LargeCommunities[4200000001:1:2]", LargeCommunities.of(4200000001L, 1, 2).toString());
  }
}
