package dev.sart.sartd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.peer.PeerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code graceful_restart} key of a neighbour in the {@code sartd bgp} YAML (RFC 4724). */
class GracefulRestartConfigTest {
  @TempDir Path dir;

  private PeerConfig neighbor(String yaml) throws Exception {
    Path f = dir.resolve("sartd.yaml");
    Files.writeString(f, "asn: 65001\nrouter_id: 192.0.2.1\nneighbors:\n  - " + yaml + "\n");
    BgpConfigFile cfg = ConfigFile.read(f, BgpConfigFile.class).value();
    return BgpCommand.peerConfig(cfg.neighbors().getFirst());
  }

  @Test
  void withoutTheKeyTheHelperIsOnWithARestartTimeOf120Seconds() throws Exception {
    PeerConfig c = neighbor("{asn: 65000, address: 192.0.2.2}");
    assertEquals(
        new PeerConfig.GracefulRestart(true, Duration.ofSeconds(120)), c.gracefulRestart());
  }

  @Test
  void theHelperCanBeTurnedOffAndTheRestartTimeSet() throws Exception {
    PeerConfig c =
        neighbor(
            "{asn: 65000, address: 192.0.2.2, graceful_restart: {helper: false, restart_time: 30}}");
    assertEquals(
        new PeerConfig.GracefulRestart(false, Duration.ofSeconds(30)), c.gracefulRestart());
    assertEquals(
        Duration.ofSeconds(120),
        neighbor("{asn: 65000, address: 192.0.2.2, graceful_restart: {helper: false}}")
            .gracefulRestart()
            .restartTime());
  }

  @Test
  void theNotificationBitOfRfc8538IsOffUnlessAsked() throws Exception {
    assertEquals(
        new PeerConfig.GracefulRestart(true, Duration.ofSeconds(120), true),
        neighbor("{asn: 65000, address: 192.0.2.2, graceful_restart: {notification: true}}")
            .gracefulRestart());
    assertEquals(
        false,
        neighbor("{asn: 65000, address: 192.0.2.2, graceful_restart: {restart_time: 60}}")
            .gracefulRestart()
            .notification());
  }

  @Test
  void aRestartTimeBeyondTwelveBitsIsRefusedNamingTheKey() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                neighbor(
                    "{asn: 65000, address: 192.0.2.2, graceful_restart: {restart_time: 5000}}"));
    assertTrue(e.getMessage().contains("graceful_restart.restart_time"), e.getMessage());
  }

  private dev.sart.bgp.peer.RestartingSpeaker.Settings speaker(String yaml) throws Exception {
    Path f = dir.resolve("sartd.yaml");
    Files.writeString(f, "asn: 65001\nrouter_id: 192.0.2.1\n" + yaml + "\n");
    ConfigFile<BgpConfigFile> file = ConfigFile.read(f, BgpConfigFile.class);
    file.check(BgpCommand::check);
    return BgpCommand.restartSettings(file.value().gracefulRestart(), byDefault);
  }

  private boolean byDefault;

  @Test
  void theSpeakersOwnRestartIsOffInSartdBgpUnlessEnabledAndOnInSartdNodeUnlessDisabled()
      throws Exception {
    assertEquals(null, speaker(""), "sartd bgp, nothing said");
    assertEquals(
        new dev.sart.bgp.peer.RestartingSpeaker.Settings(false, Duration.ofSeconds(5), false),
        speaker(
            "graceful_restart: {enabled: true, forwarding_state: false,"
                + " selection_deferral_time: 5}"));
    byDefault = true; // sartd node: --graceful-restart
    assertEquals(
        new dev.sart.bgp.peer.RestartingSpeaker.Settings(true, Duration.ofSeconds(60), false),
        speaker(""));
    assertEquals(null, speaker("graceful_restart: {enabled: false}"));
  }

  @Test
  void aSelectionDeferralTimeOutOfRangeIsRefusedNamingTheKey() {
    Exception e =
        assertThrows(
            Exception.class, () -> speaker("graceful_restart: {selection_deferral_time: 4000}"));
    assertTrue(e.getMessage().contains("graceful_restart.selection_deferral_time"), e.getMessage());
  }
}
