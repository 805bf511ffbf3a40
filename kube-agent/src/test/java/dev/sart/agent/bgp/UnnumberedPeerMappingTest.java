package dev.sart.agent.bgp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sart.crds.BGPPeer;
import dev.sart.crds.BGPPeerSpec;
import dev.sart.crds.SpeakerConfig;
import dev.sart.proto.v1.AddressFamily;
import dev.sart.proto.v1.Peer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A BGPPeer with {@code interface} (an unnumbered neighbour, RFC 8950 fabrics) becomes an AddPeer
 * with the interface and no address, for IPv4 and IPv6; the agent keys it by the interface (the
 * speaker learns its link-local address, and DeletePeer takes the interface name).
 */
class UnnumberedPeerMappingTest {
  private static final SpeakerConfig SPEAKER = new SpeakerConfig("127.0.0.1:5000", null, null);

  @Test
  void anInterfacePeerIsAddedByInterfaceForBothFamilies() {
    BGPPeer p =
        new BGPPeer(
            "leaf1-eth1",
            new BGPPeerSpec(
                65010L, null, 9L, 3L, null, "leaf1", null, SPEAKER, null, null, null, "eth1"));
    Peer desired = new PeerReconciler(null).desired(p);
    assertEquals("eth1", desired.getInterface());
    assertEquals("", desired.getAddress());
    assertEquals(65010, desired.getAsn());
    assertEquals(
        List.of(AddressFamily.Afi.AFI_IP4, AddressFamily.Afi.AFI_IP6),
        desired.getFamiliesList().stream().map(AddressFamily::getAfi).toList());
    assertEquals("eth1", PeerReconciler.key(desired));
    // as the speaker lists it once the neighbour's address is learned
    assertEquals("eth1", PeerReconciler.key(desired.toBuilder().setAddress("fe80::2").build()));
  }

  @Test
  void anAddressPeerIsAsBefore() {
    BGPPeer p =
        new BGPPeer(
            "leaf1-192.0.2.1",
            new BGPPeerSpec(65010L, "192.0.2.1", null, null, null, "leaf1", null, SPEAKER, null));
    Peer desired = new PeerReconciler(null).desired(p);
    assertEquals("192.0.2.1", desired.getAddress());
    assertEquals("", desired.getInterface());
    assertEquals(
        List.of(AddressFamily.Afi.AFI_IP4),
        desired.getFamiliesList().stream().map(AddressFamily::getAfi).toList());
    assertEquals("192.0.2.1", PeerReconciler.key(desired));
  }
}
