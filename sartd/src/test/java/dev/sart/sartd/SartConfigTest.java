package dev.sart.sartd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code sartd bgp} file written for sart loads: sart's keys as sart reads them, keys sart
 * ignores are ignored out loud (with their line), and a typo of a known key is an error naming the
 * key meant.
 */
class SartConfigTest {
  @TempDir Path dir;

  /** sart's own example (its unit test's config), with keys sart silently ignores. */
  @Test
  void sartsExampleLoadsAndUnknownKeysAreIgnoredOutLoud() throws Exception {
    Path f =
        Files.writeString(
            dir.resolve("sart.yaml"),
            """
            asn: 6550
            router_id: 1.1.1.1
            fib_endpoint: test
            port: 179
            neighbors:
              - asn: 100
                name: test
                router_id: 2.2.2.2
                address: 2.2.2.2
              - asn: 200
                name: test2
                router_id: 3.3.3.3
                address: '::1'
                passive: true
                description: the second one
            paths:
              - prefixes: [10.0.0.0/24, 10.1.0.0/24]
                attributes:
                  origin: 1
            """);
    ConfigFile<BgpConfigFile> c = ConfigFile.readLenient(f, BgpConfigFile.class);
    c.check(BgpCommand::check);
    BgpConfigFile cfg = c.value();
    assertEquals(6550, cfg.asn());
    assertEquals("1.1.1.1", cfg.routerId());
    assertEquals(2, cfg.neighbors().size());
    assertTrue(cfg.neighbors().get(1).passive());
    assertEquals(
        java.net.InetAddress.getByName("::1"),
        BgpCommand.peerConfig(cfg.neighbors().get(1)).address());
    assertEquals(
        List.of(
            f + ":4: key 'port' is not used by sartd: ignored",
            f + ":15: neighbors[1]: key 'description' is not used by sartd: ignored"),
        c.ignored());
  }

  @Test
  void aTypoOfAKnownKeyIsAnErrorNamingTheKeyMeant() throws Exception {
    Path f =
        Files.writeString(
            dir.resolve("typo.yaml"),
            """
            asn: 65001
            neighbors:
              - asn: 65000
                adress: 192.0.2.2
            """);
    ConfigException e =
        assertThrows(ConfigException.class, () -> ConfigFile.readLenient(f, BgpConfigFile.class));
    assertEquals(4, e.line());
    assertTrue(
        e.what().startsWith("neighbors[0]: unknown key 'adress': did you mean 'address'?"),
        e.what());
  }
}
