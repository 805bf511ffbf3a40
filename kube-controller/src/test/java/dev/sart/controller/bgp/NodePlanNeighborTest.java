package dev.sart.controller.bgp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.sart.crds.BGPPeerTemplateSpec;
import org.junit.jupiter.api.Test;

/**
 * A ClusterBGP's peer may name its neighbour by {@code interface} (unnumbered) instead of {@code
 * addr}: the two are one field when an inline peerConfig overrides a template, and the BGPPeer's
 * name says the interface.
 */
class NodePlanNeighborTest {
  @Test
  void anInlineInterfaceReplacesTheTemplatesAddressAndTheOtherWayRound() {
    var template = new BGPPeerTemplateSpec(65010L, "192.0.2.1", null, 9L, null, null);
    var inline = new BGPPeerTemplateSpec(null, null, null, null, null, null, null, null, "eth1");
    var merged = NodePlan.merge(template, inline);
    assertEquals("eth1", merged.interfaceName());
    assertNull(merged.addr(), "not both");
    assertEquals(65010L, merged.asn());
    assertEquals(9L, merged.holdTime());

    var back =
        NodePlan.merge(merged, new BGPPeerTemplateSpec(null, "192.0.2.5", null, null, null, null));
    assertEquals("192.0.2.5", back.addr());
    assertNull(back.interfaceName());

    var timersOnly = new BGPPeerTemplateSpec(null, null, null, 30L, null, null);
    assertEquals("eth1", NodePlan.merge(merged, timersOnly).interfaceName());
  }

  @Test
  void anInterfacePeersNameSaysTheInterface() {
    assertEquals(
        "tor-node1-65010-if-eth1", NodePlan.interfacePeerName("tor", "node1", 65010, "eth1"));
    assertEquals(
        "node1-65010-if-enp1s0f0", NodePlan.interfacePeerName(null, "node1", 65010, "enp1s0f0"));
    assertEquals("node1-65010-if-my-if", NodePlan.interfacePeerName(null, "node1", 65010, "My_If"));
  }
}
