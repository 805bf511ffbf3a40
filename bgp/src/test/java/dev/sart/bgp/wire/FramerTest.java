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
  void a_buffer_shorter_than_a_header_needs_more_bytes_rather_than_being_a_bad_length()
      throws Exception {
    // sart bug #44: 14 octets of marker were taken for a message of bad length
    byte[] partial = new byte[14];
    Arrays.fill(partial, (byte) 0xff);
    assertEquals(Framer.NEED_MORE, Framer.frameLength(partial, 0, partial.length, false));
    assertEquals(Framer.NEED_MORE, Framer.frameLength(KEEPALIVE, 0, 18, false));
  }

  @Test
  void a_header_whose_body_has_not_fully_arrived_needs_more_bytes() throws Exception {
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
  void frames_the_first_of_several_messages_at_an_offset() throws Exception {
    byte[] two = new byte[3 + 2 * 19];
    System.arraycopy(KEEPALIVE, 0, two, 3, 19);
    System.arraycopy(KEEPALIVE, 0, two, 22, 19);
    assertEquals(19, Framer.frameLength(two, 3, two.length - 3, false));
    assertEquals(19, Framer.frameLength(two, 22, 19, false));
  }

  @Test
  void a_marker_that_is_not_all_ones_is_connection_not_synchronized() {
    byte[] m = KEEPALIVE.clone();
    m[7] = 0;
    NotificationException e =
        assertThrows(NotificationException.class, () -> Framer.frameLength(m, 0, 19, false));
    assertEquals(1, e.code());
    assertEquals(1, e.subcode());
    assertEquals(Octets.EMPTY, e.data());
  }

  @Test
  void a_length_below_19_is_bad_message_length_with_the_length_as_data() {
    byte[] m = KEEPALIVE.clone();
    m[17] = 18;
    NotificationException e =
        assertThrows(NotificationException.class, () -> Framer.frameLength(m, 0, 19, false));
    assertEquals(1, e.code());
    assertEquals(2, e.subcode());
    assertEquals(Octets.fromHex("0012"), e.data());
  }

  @Test
  void a_length_above_4096_is_bad_until_extended_messages_are_negotiated() throws Exception {
    byte[] m = message(2, "0000 0000" + "00".repeat(4097 - 23));
    NotificationException e =
        assertThrows(NotificationException.class, () -> Framer.frameLength(m, 0, m.length, false));
    assertEquals(2, e.subcode());
    assertEquals(Octets.fromHex("1001"), e.data());
    assertEquals(4097, Framer.frameLength(m, 0, m.length, true));
  }

  @Test
  void an_open_may_not_exceed_4096_even_with_extended_messages() {
    byte[] m = hex("ffffffffffffffffffffffffffffffff 1001 01");
    NotificationException e =
        assertThrows(NotificationException.class, () -> Framer.frameLength(m, 0, 19, true));
    assertEquals(2, e.subcode());
  }

  @Test
  void a_keepalive_of_another_length_than_19_is_bad_message_length() {
    byte[] m = message(4, "00");
    NotificationException e =
        assertThrows(NotificationException.class, () -> Framer.frameLength(m, 0, 20, true));
    assertEquals(1, e.code());
    assertEquals(2, e.subcode());
    assertEquals(Octets.fromHex("0014"), e.data());
  }

  @Test
  void messages_shorter_than_their_type_allows_are_bad_message_length() {
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
  void an_unknown_message_type_is_bad_message_type_with_the_type_as_data() {
    byte[] m = message(6, "");
    NotificationException e =
        assertThrows(NotificationException.class, () -> Framer.frameLength(m, 0, 19, false));
    assertEquals(1, e.code());
    assertEquals(3, e.subcode());
    assertEquals(Octets.fromHex("06"), e.data());
  }
}
