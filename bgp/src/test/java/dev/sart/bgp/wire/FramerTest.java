package dev.sart.bgp.wire;

import static dev.sart.bgp.wire.Fixtures.hex;
import static dev.sart.bgp.wire.Fixtures.message;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class FramerTest {

  private static final byte[] KEEPALIVE = message(4, "");

  @Test
  void aBufferShorterThanAHeaderNeedsMoreBytesRatherThanBeingABadLength() throws Exception {
    // sart bug #44: 14 octets of marker were taken for a message of bad length
    byte[] partial = new byte[14];
    Arrays.fill(partial, (byte) 0xff);
    assertEquals(Framer.NEED_MORE, Framer.frameLength(partial, 0, partial.length, false));
    assertEquals(Framer.NEED_MORE, Framer.frameLength(KEEPALIVE, 0, 18, false));
  }

  @Test
  void aHeaderWhoseBodyHasNotFullyArrivedNeedsMoreBytes() throws Exception {
    byte[] open = Fixtures.openWith("41 04 0000fde8");
    for (int available = 0; available < open.length; available++) {
      assertEquals(
          Framer.NEED_MORE,
          Framer.frameLength(open, 0, available, false),
          "available " + available);
    }
    assertEquals(open.length, Framer.frameLength(open, 0, open.length, false));
  }

  @Test
  void framesTheFirstOfSeveralMessagesAtAnOffset() throws Exception {
    byte[] two = new byte[3 + 2 * 19];
    System.arraycopy(KEEPALIVE, 0, two, 3, 19);
    System.arraycopy(KEEPALIVE, 0, two, 22, 19);
    assertEquals(19, Framer.frameLength(two, 3, two.length - 3, false));
    assertEquals(19, Framer.frameLength(two, 22, 19, false));
  }

  @Test
  void aMarkerThatIsNotAllOnesIsConnectionNotSynchronized() {
    byte[] m = KEEPALIVE.clone();
    m[7] = 0;
    NotificationException e =
        assertThrows(NotificationException.class, () -> Framer.frameLength(m, 0, 19, false));
    assertEquals(1, e.code());
    assertEquals(1, e.subcode());
    assertEquals(Octets.EMPTY, e.data());
  }

  @Test
  void aLengthBelow19IsBadMessageLengthWithTheLengthAsData() {
    byte[] m = KEEPALIVE.clone();
    m[17] = 18;
    NotificationException e =
        assertThrows(NotificationException.class, () -> Framer.frameLength(m, 0, 19, false));
    assertEquals(1, e.code());
    assertEquals(2, e.subcode());
    assertEquals(Octets.fromHex("0012"), e.data());
  }

  @Test
  void aLengthAbove4096IsBadUntilExtendedMessagesAreNegotiated() throws Exception {
    byte[] m = message(2, "0000 0000" + "00".repeat(4097 - 23));
    NotificationException e =
        assertThrows(NotificationException.class, () -> Framer.frameLength(m, 0, m.length, false));
    assertEquals(2, e.subcode());
    assertEquals(Octets.fromHex("1001"), e.data());
    assertEquals(4097, Framer.frameLength(m, 0, m.length, true));
  }

  @Test
  void anOpenMayNotExceed4096EvenWithExtendedMessages() {
    byte[] m = hex("ffffffffffffffffffffffffffffffff 1001 01");
    NotificationException e =
        assertThrows(NotificationException.class, () -> Framer.frameLength(m, 0, 19, true));
    assertEquals(2, e.subcode());
  }

  @Test
  void aKeepaliveOfAnotherLengthThan19IsBadMessageLength() {
    byte[] m = message(4, "00");
    NotificationException e =
        assertThrows(NotificationException.class, () -> Framer.frameLength(m, 0, 20, true));
    assertEquals(1, e.code());
    assertEquals(2, e.subcode());
    assertEquals(Octets.fromHex("0014"), e.data());
  }

  @Test
  void messagesShorterThanTheirTypeAllowsAreBadMessageLength() {
    for (int[] typeAndLength : new int[][] {{1, 28}, {2, 22}, {3, 20}, {5, 22}}) {
      byte[] m = message(typeAndLength[0], "00".repeat(typeAndLength[1] - 19));
      NotificationException e =
          assertThrows(
              NotificationException.class,
              () -> Framer.frameLength(m, 0, m.length, false),
              "type " + typeAndLength[0]);
      assertEquals(2, e.subcode());
    }
  }

  @Test
  void anUnknownMessageTypeIsBadMessageTypeWithTheTypeAsData() {
    byte[] m = message(6, "");
    NotificationException e =
        assertThrows(NotificationException.class, () -> Framer.frameLength(m, 0, 19, false));
    assertEquals(1, e.code());
    assertEquals(3, e.subcode());
    assertEquals(Octets.fromHex("06"), e.data());
  }
}
