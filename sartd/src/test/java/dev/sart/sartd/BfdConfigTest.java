package dev.sart.sartd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.bfd.BfdConfig;
import dev.sart.bgp.peer.PeerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code bfd} key of a neighbour in the {@code sartd bgp} YAML (RFC 5880, RFC 5881). */
class BfdConfigTest {
  @TempDir Path dir;

  private PeerConfig neighbor(String yaml) throws Exception {
    Path f = dir.resolve("sartd.yaml");
    Files.writeString(f, "asn: 65001\nrouter_id: 192.0.2.1\nneighbors:\n  - " + yaml + "\n");
    BgpConfigFile cfg = ConfigFile.read(f, BgpConfigFile.class).value();
    return BgpCommand.peerConfig(cfg.neighbors().getFirst());
  }

  @Test
  void withoutTheKeyThereIsNoBfd() throws Exception {
    assertNull(neighbor("{asn: 65000, address: 192.0.2.2}").bfd());
  }

  @Test
  void theTimersAreTakenInMilliseconds() throws Exception {
    PeerConfig c =
        neighbor("{asn: 65000, address: 192.0.2.2, bfd: {min_tx: 100, min_rx: 50, multiplier: 5}}");
    assertEquals(BfdConfig.ofMillis(100, 50, 5), c.bfd());
  }

  @Test
  void anEmptyBlockMeansThreeHundredMillisecondsTimesThree() throws Exception {
    assertEquals(BfdConfig.DEFAULT, neighbor("{asn: 65000, address: 192.0.2.2, bfd: {}}").bfd());
  }

  @Test
  void aZeroMultiplierIsRefusedNamingTheKey() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> neighbor("{asn: 65000, address: 192.0.2.2, bfd: {multiplier: 0}}"));
    assertTrue(e.getMessage().startsWith("bfd: "), e.getMessage());
  }
}
