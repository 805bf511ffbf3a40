package dev.sart.sartd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.peer.PeerConfig;
import dev.sart.bgp.wire.Family;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A neighbour's data-centre fabric keys in the {@code sartd bgp} YAML (issue 28). */
class FabricConfigTest {
  @TempDir Path dir;

  private PeerConfig neighbor(String yaml) throws Exception {
    Path f = dir.resolve("sartd.yaml");
    Files.writeString(f, "asn: 65001\nrouter_id: 192.0.2.1\nneighbors:\n  - " + yaml + "\n");
    BgpConfigFile cfg = ConfigFile.read(f, BgpConfigFile.class).value();
    return BgpCommand.peerConfig(cfg.neighbors().getFirst());
  }

  @Test
  void withoutAddPathOnePathGoesEachWay() throws Exception {
    assertEquals(PeerConfig.AddPath.NONE, neighbor("{asn: 65000, address: 192.0.2.2}").addPath());
  }

  @Test
  void addPathTakesFamiliesPerDirectionAndTheCountToSend() throws Exception {
    PeerConfig c =
        neighbor(
            "{asn: 65000, address: 192.0.2.2, families: [ipv4, ipv6],"
                + " add_path: {receive: [ipv4, ipv6], send: [ipv4], send_max: 4}}");
    assertEquals(
        new PeerConfig.AddPath(
            Set.of(Family.IPV4_UNICAST, Family.IPV6_UNICAST), Set.of(Family.IPV4_UNICAST), 4),
        c.addPath());
  }

  @Test
  void anUnknownFamilyIsRefusedNamingTheKey() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> neighbor("{asn: 65000, address: 192.0.2.2, add_path: {send: [ipv5]}}"));
    assertTrue(e.getMessage().startsWith("add_path.send: unknown family"), e.getMessage());
  }

  @Test
  void aClientOfOursAndNextHopSelf() throws Exception {
    PeerConfig c =
        neighbor(
            "{asn: 65001, address: 192.0.2.2, route_reflector_client: true, next_hop_self: true}");
    assertTrue(c.routeReflectorClient());
    assertTrue(c.nextHopSelf());
    PeerConfig d = neighbor("{asn: 65001, address: 192.0.2.2}");
    assertTrue(!d.routeReflectorClient() && !d.nextHopSelf());
  }

  @Test
  void aClusterIdThatIsNoAddressIsRefusedNamingTheKey() throws Exception {
    Path f = dir.resolve("bad.yaml");
    Files.writeString(f, "asn: 65001\nrouter_id: 192.0.2.1\ncluster_id: nine\n");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> BgpCommand.check(ConfigFile.read(f, BgpConfigFile.class).value()));
    assertTrue(e.getMessage().startsWith("cluster_id: 'nine'"), e.getMessage());
  }

  @Test
  void anUnnumberedNeighborIsGivenByInterfaceWithRemoteAsExternal() throws Exception {
    PeerConfig c = neighbor("{interface: eth1, remote_as: external}");
    assertEquals("eth1", c.interfaceName());
    assertEquals(PeerConfig.RemoteAs.EXTERNAL, c.remoteAs());
    assertEquals(0, c.asn());
    assertEquals(PeerConfig.UNNUMBERED, c.address());
    assertEquals(Set.of(Family.IPV4_UNICAST, Family.IPV6_UNICAST), c.families(), "both");
    assertEquals(
        PeerConfig.RemoteAs.INTERNAL,
        neighbor("{interface: eth2, remote_as: internal}").remoteAs());
  }

  @Test
  void interfaceWithAnAddressOrRemoteAsWithAnAsnIsRefusedNamingTheKey() {
    IllegalArgumentException both =
        assertThrows(
            IllegalArgumentException.class,
            () -> neighbor("{interface: eth1, address: 192.0.2.2, asn: 65002}"));
    assertTrue(both.getMessage().startsWith("interface: "), both.getMessage());
    IllegalArgumentException asn =
        assertThrows(
            IllegalArgumentException.class,
            () -> neighbor("{interface: eth1, remote_as: external, asn: 65002}"));
    assertTrue(asn.getMessage().startsWith("remote_as: "), asn.getMessage());
    IllegalArgumentException word =
        assertThrows(
            IllegalArgumentException.class, () -> neighbor("{interface: eth1, remote_as: any}"));
    assertTrue(word.getMessage().startsWith("remote_as: 'any'"), word.getMessage());
  }
}
