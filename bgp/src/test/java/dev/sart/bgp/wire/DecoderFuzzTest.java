package dev.sart.bgp.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Arrays;
import java.util.Set;

/**
 * Coverage-guided fuzzing of the decoder with Jazzer: whatever the bytes, decoding ends in a
 * message or a {@link NotificationException}; UPDATE problems only as RFC 7606 outcomes. A message
 * that decodes cleanly also survives encode → decode unchanged.
 *
 * <p>Input layout: octet 0 picks the session options (one bit each); octet 1 bit 7 set means the
 * rest is a raw stream handed to the framer, else bits 0-2 are a message type and the rest its
 * body, behind a correct header (so that the fuzzer reaches the parsers quickly).
 *
 * <p>{@code mvn test} fuzzes for the duration below with the seeds in {@code
 * src/test/resources/dev/sart/bgp/wire/DecoderFuzzTestInputs/}; see README.md for a longer run.
 */
class DecoderFuzzTest {

  @FuzzTest(maxDuration = "45s")
  void decodingAnyBytesYieldsAMessageOrANotification(byte[] input) {
    if (input.length < 2) {
      return;
    }
    SessionOptions options = options(input[0]);
    BgpCodec codec = new BgpCodec(options);
    byte[] stream;
    if ((input[1] & 0x80) != 0) {
      stream = Arrays.copyOfRange(input, 2, input.length);
    } else {
      int length = Math.min(input.length - 2 + Framer.HEADER_LENGTH, 0xffff);
      stream = new byte[length];
      Arrays.fill(stream, 0, Framer.MARKER_LENGTH, (byte) 0xff);
      stream[16] = (byte) (length >>> 8);
      stream[17] = (byte) length;
      stream[18] = (byte) (input[1] & 0x07);
      System.arraycopy(input, 2, stream, Framer.HEADER_LENGTH, length - Framer.HEADER_LENGTH);
    }
    int offset = 0;
    while (offset < stream.length) {
      Message message;
      int length;
      try {
        length = codec.frameLength(stream, offset, stream.length - offset);
        if (length == Framer.NEED_MORE) {
          return;
        }
        message = codec.decode(stream, offset, length);
      } catch (NotificationException e) {
        return; // a session-fatal error, as the RFCs prescribe: fine
      }
      checkRoundTrip(options, message);
      offset += length;
    }
  }

  /**
   * What decoded without complaint encodes (with the sending side's view of ADD-PATH) and decodes
   * to itself.
   */
  private static void checkRoundTrip(SessionOptions options, Message message) {
    if (message instanceof Update u && u.action() != UpdateError.Action.NONE) {
      return;
    }
    SessionOptions sender = options.withAddPath(options.addPathReceive(), options.addPathReceive());
    byte[] encoded;
    try {
      encoded = new BgpCodec(sender).encode(message);
    } catch (IllegalArgumentException e) {
      // only a message that grows past the limit may be refused: a 2-octet session adds
      // AS4_PATH, so an UPDATE near 4096 octets can outgrow it
      if (!e.getMessage().contains("exceeds")) {
        throw e;
      }
      return;
    }
    try {
      Message again = new BgpCodec(options).decode(encoded, 0, encoded.length);
      assertEquals(message, again);
    } catch (NotificationException e) {
      throw new AssertionError("re-encoded " + message + " does not decode: " + e.getMessage(), e);
    }
  }

  private static SessionOptions options(byte bits) {
    Set<Family> addPath =
        switch (bits & 0x0c) {
          case 0x04 -> Set.of(Family.IPV4_UNICAST);
          case 0x08 -> Set.of(Family.IPV6_UNICAST);
          case 0x0c -> Set.of(Family.IPV4_UNICAST, Family.IPV6_UNICAST);
          default -> Set.of();
        };
    return new SessionOptions(
        (bits & 0x01) != 0,
        addPath,
        Set.of(),
        (bits & 0x02) != 0,
        (bits & 0x10) != 0 ? Set.of(Family.IPV4_UNICAST) : Set.of(),
        (bits & 0x20) != 0);
  }
}
