package dev.sart.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigInteger;
import org.junit.jupiter.api.Test;

class IpTest {
  @Test
  void parsesLiteralsOfBothFamilies() {
    assertEquals("192.0.2.1", Ip.format(Ip.parse("192.0.2.1")));
    assertEquals("2001:db8::1", Ip.format(Ip.parse("2001:DB8::1")));
    assertEquals(BigInteger.valueOf(0xc0000201L), Ip.toNumber(Ip.parse("192.0.2.1")));
  }

  @Test
  void refusesWhatIsNotALiteralAndNamesIt() {
    for (var bad :
        new String[] {
          "", "example.com", "10.1", "192.0.2.300", "::ffff:192.0.2.1", "fe80::1%eth0", " 192.0.2.1"
        }) {
      var e = assertThrows(IllegalArgumentException.class, () -> Ip.parse(bad), bad);
      assertEquals(true, e.getMessage().startsWith("'" + bad + "' "), e.getMessage());
    }
    assertThrows(IllegalArgumentException.class, () -> Ip.parse(null));
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
}
