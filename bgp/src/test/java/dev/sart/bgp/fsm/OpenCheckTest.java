package dev.sart.bgp.fsm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sart.bgp.wire.Capability;
import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Ip;
import dev.sart.bgp.wire.NotificationException;
import dev.sart.bgp.wire.Open;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class OpenCheckTest {
  static final int OUR_ID = Ip.parseV4("192.0.2.1");
  static final int PEER_ID = Ip.parseV4("192.0.2.2");

  static Open ours(int hold) {
    return Open.of(
        65001,
        hold,
        OUR_ID,
        List.of(
            new Capability.Multiprotocol(Family.IPV4_UNICAST),
            new Capability.Multiprotocol(Family.IPV6_UNICAST),
            new Capability.RouteRefresh(),
            new Capability.FourOctetAs(65001)));
  }

  static Open peer(long as, int hold, int id, Capability... caps) {
    return Open.of(as, hold, id, List.of(caps));
  }

  @Test
  void theSmallerHoldTimeWinsAndKeepaliveIsAThirdOfIt() throws Exception {
    Negotiation n =
        OpenCheck.check(
            ours(90),
            peer(65002, 30, PEER_ID, new Capability.FourOctetAs(65002)),
            65002,
            65001,
            null);
    assertEquals(Duration.ofSeconds(30), n.fsm().holdTime());
    assertEquals(Duration.ofSeconds(10), n.fsm().keepaliveTime());
    assertFalse(n.fsm().internal());
  }

  @Test
  void aConfiguredKeepaliveIsKeptWhenShorterThanTheHoldTime() throws Exception {
    Negotiation n =
        OpenCheck.check(ours(90), peer(65002, 90, PEER_ID), 65002, 65001, Duration.ofSeconds(5));
    assertEquals(Duration.ofSeconds(5), n.fsm().keepaliveTime());
  }

  @Test
  void holdTimeZeroDisablesKeepalives() throws Exception {
    Negotiation n = OpenCheck.check(ours(90), peer(65002, 0, PEER_ID), 65002, 65001, null);
    assertEquals(Duration.ZERO, n.fsm().holdTime());
    assertEquals(Duration.ZERO, n.fsm().keepaliveTime());
  }

  @Test
  void aPeerInTheWrongAsGetsBadPeerAs() {
    NotificationException e =
        assertThrows(
            NotificationException.class,
            () -> OpenCheck.check(ours(90), peer(65003, 90, PEER_ID), 65002, 65001, null));
    assertEquals(2, e.code());
    assertEquals(2, e.subcode());
    assertEquals("", e.data().toHex(), "RFC 4271 §6.2 names no data");
  }

  @Test
  void theFourOctetAsCapabilityIsThePeersAs() throws Exception {
    Negotiation n =
        OpenCheck.check(
            ours(90),
            peer(4_200_000_000L, 90, PEER_ID, new Capability.FourOctetAs(4_200_000_000L)),
            4_200_000_000L,
            65001,
            null);
    assertEquals(4_200_000_000L, n.peerAs());
    assertTrue(n.options().fourOctetAs());
  }

  @Test
  void aZeroIdentifierIsABadBgpIdentifier() {
    NotificationException e =
        assertThrows(
            NotificationException.class,
            () -> OpenCheck.check(ours(90), peer(65002, 90, 0), 65002, 65001, null));
    assertEquals(2, e.code());
    assertEquals(3, e.subcode());
  }

  @Test
  void anInternalPeerWithOurIdentifierIsRejected() {
    NotificationException e =
        assertThrows(
            NotificationException.class,
            () -> OpenCheck.check(ours(90), peer(65001, 90, OUR_ID), 65001, 65001, null));
    assertEquals(3, e.subcode());
  }

  @Test
  void anExternalPeerMayShareOurIdentifier() throws Exception {
    // RFC 6286 §2.2: uniqueness is required within an AS only
    assertFalse(
        OpenCheck.check(ours(90), peer(65002, 90, OUR_ID), 65002, 65001, null).fsm().internal());
  }

  @Test
  void noFamilyInCommonIsAnUnsupportedCapability() {
    NotificationException e =
        assertThrows(
            NotificationException.class,
            () ->
                OpenCheck.check(
                    Open.of(
                        65001,
                        90,
                        OUR_ID,
                        List.of(new Capability.Multiprotocol(Family.IPV6_UNICAST))),
                    peer(65002, 90, PEER_ID, new Capability.Multiprotocol(Family.IPV4_UNICAST)),
                    65002,
                    65001,
                    null));
    assertEquals(2, e.code());
    assertEquals(7, e.subcode());
    assertEquals("0104000200" + "01", e.data().toHex());
  }

  @Test
  void aPeerWithoutMultiprotocolSpeaksIpv4UnicastOnly() throws Exception {
    Negotiation n = OpenCheck.check(ours(90), peer(65002, 90, PEER_ID), 65002, 65001, null);
    assertEquals(java.util.Set.of(Family.IPV4_UNICAST), n.families());
    assertFalse(n.routeRefresh());
  }

  @Test
  void routeRefreshIsNegotiatedWhenBothSidesHaveIt() throws Exception {
    Negotiation n =
        OpenCheck.check(
            ours(90),
            peer(
                65002,
                90,
                PEER_ID,
                new Capability.RouteRefresh(),
                new Capability.Multiprotocol(Family.IPV6_UNICAST)),
            65002,
            65001,
            null);
    assertTrue(n.routeRefresh());
    assertEquals(java.util.Set.of(Family.IPV6_UNICAST), n.families());
  }
}
