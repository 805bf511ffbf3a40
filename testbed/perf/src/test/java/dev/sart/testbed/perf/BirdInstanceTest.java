package dev.sart.testbed.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BirdInstanceTest {
  /** {@code birdc show protocols all "g*"} of BIRD 2.0.12, shortened. */
  private static final String OUTPUT =
      """
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
    assertEquals(
        Map.of(
            "g0", new BirdInstance.Protocol("g0", "Established", 0, 100, 9),
            "g1", new BirdInstance.Protocol("g1", "Active", 0, 0, 0)),
        ps);
  }

  /**
   * BIRD 2.0.12's control socket, as read from it: the greeting, then replies to three commands.
   */
  private static final String WIRE =
      """
      0001 BIRD 2.0.12 ready.
      2002-Name       Proto      Table      State  Since         Info
      1002-mon        BGP        ---        start  03:09:46.153  Idle
      1006-  BGP state:          Idle
           Neighbor address: 192.0.2.2
         Channel ipv4
           Routes:         5 imported, 0 exported, 5 preferred
      +0014 an asynchronous message
      \s
      0000\s
      0013 Daemon is up and running
      8003 No protocols match
      2002-Name       Proto
      """;

  @Test
  void readsRepliesFromTheControlSocketAsBirdcPrintsThem() throws IOException {
    BufferedReader in = new BufferedReader(new StringReader(WIRE));
    assertEquals("BIRD 2.0.12 ready.\n", BirdInstance.readReply(in));
    String protocols = BirdInstance.readReply(in);
    assertEquals(
        """
        Name       Proto      Table      State  Since         Info
        mon        BGP        ---        start  03:09:46.153  Idle
          BGP state:          Idle
            Neighbor address: 192.0.2.2
          Channel ipv4
            Routes:         5 imported, 0 exported, 5 preferred

        """,
        protocols);
    assertEquals(
        new BirdInstance.Protocol("mon", "Idle", 5, 0, 0),
        BirdInstance.parseProtocols(protocols).get("mon"));
    assertEquals("Daemon is up and running\n", BirdInstance.readReply(in));
    assertEquals("No protocols match\n", BirdInstance.readReply(in));
    // the socket closed before the reply's last line
    assertThrows(IOException.class, () -> BirdInstance.readReply(in));
  }

  @Test
  void readsFilteredCountsToo() {
    Map<String, BirdInstance.Protocol> ps =
        BirdInstance.parseProtocols(
            """
        mon        BGP        ---        up     08:11:02.113  Established
          BGP state:          Established
            Routes:         1000 imported, 3 filtered, 0 exported, 1000 preferred
        """);
    assertEquals(new BirdInstance.Protocol("mon", "Established", 1000, 0, 0), ps.get("mon"));
  }
}
