package dev.sart.bgp.bfd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** RFC 5880 §4.1 in both directions, and §6.8.6's checks that need no session. */
class BfdPacketTest {
  private static final HexFormat HEX = HexFormat.of();

  // version 1, diag 0, state Up, P, detect mult 3, length 24, my 0x01020304, your 0x0a0b0c0d,
  // desired min tx 100 ms, required min rx 100 ms, echo 0
  private static final String UP_POLL =
      "20e0031801020304" + "0a0b0c0d" + "000186a0000186a000000000";

  private static final BfdPacket UP_POLL_PACKET =
      new BfdPacket(
          0,
          BfdState.UP,
          true,
          false,
          false,
          false,
          false,
          false,
          3,
          0x01020304,
          0x0a0b0c0d,
          100_000,
          100_000,
          0);

  @Test
  void anUpPacketWithThePollBitDecodesFieldByField() throws Exception {
    assertEquals(UP_POLL_PACKET, BfdPacket.decode(ByteBuffer.wrap(HEX.parseHex(UP_POLL))));
  }

  @Test
  void anUpPacketWithThePollBitEncodesToTheSameOctets() {
    assertArrayEquals(HEX.parseHex(UP_POLL), UP_POLL_PACKET.toBytes());
  }

  @Test
  void aDownPacketWithTheFinalBitAndADiagnosticRoundTrips() throws Exception {
    // diag 1 (Control Detection Time Expired), state Down (01), F
    byte[] b = HEX.parseHex("2150011800000007000000000007a120000f424000000000");
    BfdPacket p = BfdPacket.decode(ByteBuffer.wrap(b));
    assertEquals(1, p.diag());
    assertEquals(BfdState.DOWN, p.state());
    assertEquals(true, p.fin());
    assertEquals(500_000, p.desiredMinTx());
    assertEquals(1_000_000, p.requiredMinRx());
    assertArrayEquals(b, p.toBytes());
  }

  @Test
  void aPacketOfAnotherVersionIsDiscarded() {
    byte[] b = HEX.parseHex(UP_POLL);
    b[0] = 0x40; // version 2
    assertThrows(BfdPacket.Malformed.class, () -> BfdPacket.decode(ByteBuffer.wrap(b)));
  }

  @Test
  void aLengthFieldBeyondThePayloadIsDiscarded() {
    byte[] b = HEX.parseHex(UP_POLL);
    b[3] = 25;
    assertThrows(BfdPacket.Malformed.class, () -> BfdPacket.decode(ByteBuffer.wrap(b)));
  }

  @Test
  void aPayloadShorterThan24OctetsIsDiscarded() {
    byte[] b = HEX.parseHex(UP_POLL.substring(0, 46));
    assertThrows(BfdPacket.Malformed.class, () -> BfdPacket.decode(ByteBuffer.wrap(b)));
  }

  @Test
  void aZeroDetectMultIsDiscarded() {
    byte[] b = HEX.parseHex(UP_POLL);
    b[2] = 0;
    assertThrows(BfdPacket.Malformed.class, () -> BfdPacket.decode(ByteBuffer.wrap(b)));
  }

  @Test
  void theMultipointBitIsDiscarded() {
    byte[] b = HEX.parseHex(UP_POLL);
    b[1] |= 0x01;
    assertThrows(BfdPacket.Malformed.class, () -> BfdPacket.decode(ByteBuffer.wrap(b)));
  }

  @Test
  void aZeroMyDiscriminatorIsDiscarded() {
    byte[] b = HEX.parseHex(UP_POLL);
    b[4] = b[5] = b[6] = b[7] = 0;
    assertThrows(BfdPacket.Malformed.class, () -> BfdPacket.decode(ByteBuffer.wrap(b)));
  }
}
