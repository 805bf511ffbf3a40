package dev.sart.bgp.wire;

import static dev.sart.bgp.wire.Fixtures.assertGolden;
import static dev.sart.bgp.wire.Fixtures.decode;
import static dev.sart.bgp.wire.Fixtures.message;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SimpleMessagesTest {

  private static final SessionOptions ANY = SessionOptions.DEFAULT;

  @Test
  void aKeepaliveIsTheHeaderAlone() throws Exception {
    assertGolden(ANY, message(4, ""), Keepalive.INSTANCE);
  }

  @Test
  void aNotificationKeepsCodeSubcodeAndData() throws Exception {
    assertGolden(ANY, message(3, "01 02 0012"), new Notification(1, 2, Octets.fromHex("0012")));
    assertGolden(ANY, message(3, "04 00"), new Notification(4, 0));
    assertGolden(ANY, message(3, "05 03"), new Notification(5, 3));
    assertGolden(ANY, message(3, "09 63 ab"), new Notification(9, 99, Octets.fromHex("ab")));
  }

  @Test
  void everyRfc4271448666087313CodeHasAName() {
    int[][] known = {
      {1, 1}, {1, 2}, {1, 3}, {2, 1}, {2, 2}, {2, 3}, {2, 4}, {2, 6}, {2, 7}, {3, 1}, {3, 2},
      {3, 3}, {3, 4}, {3, 5}, {3, 6}, {3, 8}, {3, 9}, {3, 10}, {3, 11}, {4, 0}, {5, 1}, {5, 2},
      {5, 3}, {6, 1}, {6, 2}, {6, 3}, {6, 4}, {6, 5}, {6, 6}, {6, 7}, {6, 8}, {6, 9}, {6, 10},
      {7, 1}, {8, 0}
    };
    for (int[] k : known) {
      String name = ErrorNames.describe(k[0], k[1]);
      assertEquals(false, name.contains("Unknown") || name.contains("Subcode "), name);
    }
    assertEquals("Cease / Administrative Shutdown (6/2)", ErrorNames.describe(6, 2));
  }

  @Test
  void aShutdownCommunicationIsALengthOctetAndUtf8Text() throws Exception {
    Notification n = Notification.administrativeShutdown("maintenance ☕");
    assertGolden(ANY, message(3, "06 02 0f 6d61696e74656e616e636520e29895"), n);
    assertEquals(Optional.of("maintenance ☕"), n.shutdownCommunication());
    assertEquals(
        Optional.of("reboot"), Notification.administrativeReset("reboot").shutdownCommunication());
  }

  @Test
  void aHardResetCarriesTheErrorItReplaces() throws Exception {
    // RFC 8538 §3: Cease / Hard Reset, then the inner code, subcode and data
    Notification n = Notification.hardReset(Notification.administrativeReset("re"));
    assertGolden(ANY, message(3, "06 09 06 04 02 7265"), n);
    assertEquals(true, n.isHardReset());
    assertEquals(Optional.of(Notification.administrativeReset("re")), n.hardResetReason());
    assertEquals("Cease / Hard Reset (6/9) of Cease / Administrative Reset (6/4)", n.describe());
    // too short to carry an error: a Hard Reset all the same, with no reason to name
    Notification bare = new Notification(6, 9, Octets.fromHex("06"));
    assertEquals(true, bare.isHardReset());
    assertEquals(Optional.empty(), bare.hardResetReason());
    assertEquals("Cease / Hard Reset (6/9)", bare.describe());
    assertEquals(false, Notification.administrativeReset("x").isHardReset());
    assertEquals(Optional.empty(), new Notification(4, 0).hardResetReason());
  }

  @Test
  void aShutdownCommunicationIsCutTo255OctetsAtACharacterBoundary() {
    Notification n = Notification.administrativeShutdown("é".repeat(200));
    assertEquals(255, n.data().length()); // 127 two-octet characters + the length octet
    assertEquals(Optional.of("é".repeat(127)), n.shutdownCommunication());
  }

  @Test
  void aShutdownCommunicationThatIsNotUtf8OrOverrunsIsNotReported() {
    assertEquals(
        Optional.empty(), new Notification(6, 2, Octets.fromHex("02ff")).shutdownCommunication());
    assertEquals(
        Optional.empty(), new Notification(6, 2, Octets.fromHex("05 41")).shutdownCommunication());
    assertEquals(
        Optional.empty(), new Notification(6, 3, Octets.fromHex("01 41")).shutdownCommunication());
  }

  @Test
  void aRouteRefreshAndItsRfc7313MarkersRoundTrip() throws Exception {
    assertGolden(ANY, message(5, "0001 00 01"), RouteRefresh.request(Family.IPV4_UNICAST));
    assertGolden(ANY, message(5, "0002 01 01"), RouteRefresh.beginning(Family.IPV6_UNICAST));
    assertGolden(ANY, message(5, "0002 02 01"), RouteRefresh.end(Family.IPV6_UNICAST));
    assertGolden(ANY, message(5, "0001 07 01"), new RouteRefresh(Family.IPV4_UNICAST, 7));
  }

  @Test
  void aBeginningOfRouteRefreshWithExtraOctetsIsInvalidMessageLengthWithTheMessage() {
    byte[] bytes = message(5, "0001 01 01 00");
    NotificationException e = assertThrows(NotificationException.class, () -> decode(ANY, bytes));
    assertEquals(7, e.code());
    assertEquals(1, e.subcode());
    assertEquals(Octets.of(bytes), e.data());
  }

  @Test
  void decodeFromAByteBufferReadsBetweenPositionAndLimit() throws Exception {
    ByteBuffer direct = ByteBuffer.allocateDirect(40);
    direct.put(new byte[5]).put(message(4, "")).flip().position(5);
    assertEquals(Keepalive.INSTANCE, new BgpCodec(ANY).decode(direct));
    assertEquals(5, direct.position());
    ByteBuffer heap = ByteBuffer.wrap(message(5, "0001 00 01"));
    assertEquals(RouteRefresh.request(Family.IPV4_UNICAST), new BgpCodec(ANY).decode(heap));
  }

  @Test
  void aFrameWhoseHeaderLengthDisagreesWithTheGivenLengthIsBadMessageLength() {
    byte[] bytes = message(4, "");
    NotificationException e =
        assertThrows(
            NotificationException.class,
            () -> new BgpCodec(ANY).decode(java.util.Arrays.copyOf(bytes, 20), 0, 20));
    assertEquals(1, e.code());
    assertEquals(2, e.subcode());
  }
}
