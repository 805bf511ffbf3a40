package dev.sart.testbed.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

class BirdInstanceTest {
  /** {@code birdc show protocols all "g*"} of BIRD 2.0.12, shortened. */
  private static final String OUTPUT = """
      BIRD 2.0.12 ready.
      Name       Proto      Table      State  Since         Info
      g0         BGP        ---        up     08:11:02.113  Established
        BGP state:          Established
          Neighbor address: 198.51.100.130
          Neighbor AS:      65000
        Channel ipv4
          State:          UP
          Table:          t0
          Routes:         0 imported, 100 exported, 0 preferred
          Route change stats:     received   rejected   filtered    ignored   accepted
            Import updates:              7          0          0          1          6
            Import withdraws:            2          0        ---          0          2
            Export updates:            100          0          0        ---        100

      g1         BGP        ---        start  08:11:02.113  Active        Socket: Connection refused
        BGP state:          Active
        Channel ipv4
          State:          DOWN
      """;

  @Test
  void readsStateAndCountersOfEachProtocol() {
    Map<String, BirdInstance.Protocol> ps = BirdInstance.parseProtocols(OUTPUT);
    assertEquals(Map.of(
        "g0", new BirdInstance.Protocol("g0", "Established", 0, 100, 9),
        "g1", new BirdInstance.Protocol("g1", "Active", 0, 0, 0)), ps);
  }

  @Test
  void readsFilteredCountsToo() {
    Map<String, BirdInstance.Protocol> ps = BirdInstance.parseProtocols("""
        mon        BGP        ---        up     08:11:02.113  Established
          BGP state:          Established
            Routes:         1000 imported, 3 filtered, 0 exported, 1000 preferred
        """);
    assertEquals(new BirdInstance.Protocol("mon", "Established", 1000, 0, 0), ps.get("mon"));
  }
}
