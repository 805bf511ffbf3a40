package dev.sart.fib.netlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Set;
import org.junit.jupiter.api.Test;

class ValueTypesTest {
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
