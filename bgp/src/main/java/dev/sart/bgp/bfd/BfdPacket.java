package dev.sart.bgp.bfd;

import java.nio.ByteBuffer;

/**
 * A BFD Control packet without authentication (RFC 5880 §4.1). Authentication (§4.2, §6.7) is not
 * implemented: a packet with the A bit is refused on reception (§6.8.6).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |Vers |  Diag   |Sta|P|F|C|A|D|M|  Detect Mult  |    Length     |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                       My Discriminator                        |
 * |                      Your Discriminator                       |
 * |                    Desired Min TX Interval                    |
 * |                   Required Min RX Interval                    |
 * |                 Required Min Echo RX Interval                 |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * Intervals are in microseconds, discriminators unsigned 32-bit values held in an {@code int}.
 */
public record BfdPacket(
    int diag,
    BfdState state,
    boolean poll,
    boolean fin,
    boolean controlPlaneIndependent,
    boolean authentication,
    boolean demand,
    boolean multipoint,
    int detectMult,
    int myDiscriminator,
    int yourDiscriminator,
    long desiredMinTx,
    long requiredMinRx,
    long requiredMinEchoRx) {

  /** The version this implements (§4.1). */
  public static final int VERSION = 1;

  /** The length of a packet without an authentication section (§4.1). */
  public static final int LENGTH = 24;

  /** Diagnostic codes (§4.1). */
  public static final int DIAG_NONE = 0;

  public static final int DIAG_CONTROL_DETECTION_TIME_EXPIRED = 1;
  public static final int DIAG_NEIGHBOR_SIGNALED_SESSION_DOWN = 3;
  public static final int DIAG_ADMINISTRATIVELY_DOWN = 7;

  private static final int P = 0x20;
  private static final int F = 0x10;
  private static final int C = 0x08;
  private static final int A = 0x04;
  private static final int D = 0x02;
  private static final int M = 0x01;

  /** Why a packet is discarded before it reaches a session (§6.8.6, the first checks). */
  public static final class Malformed extends Exception {
    Malformed(String why) {
      super(why, null, false, false);
    }
  }

  /** Writes the 24 octets. */
  public void encode(ByteBuffer out) {
    out.put((byte) (VERSION << 5 | diag & 0x1f));
    out.put(
        (byte)
            (state.code() << 6
                | (poll ? P : 0)
                | (fin ? F : 0)
                | (controlPlaneIndependent ? C : 0)
                | (authentication ? A : 0)
                | (demand ? D : 0)
                | (multipoint ? M : 0)));
    out.put((byte) detectMult);
    out.put((byte) LENGTH);
    out.putInt(myDiscriminator);
    out.putInt(yourDiscriminator);
    out.putInt((int) desiredMinTx);
    out.putInt((int) requiredMinRx);
    out.putInt((int) requiredMinEchoRx);
  }

  public byte[] toBytes() {
    ByteBuffer b = ByteBuffer.allocate(LENGTH);
    encode(b);
    return b.array();
  }

  /**
   * Reads a packet of {@code in.remaining()} octets (a whole UDP payload), with the checks of
   * §6.8.6 that need no session: version, length, Detect Mult, Multipoint, My Discriminator.
   */
  public static BfdPacket decode(ByteBuffer in) throws Malformed {
    int size = in.remaining();
    if (size < LENGTH) {
      throw new Malformed("shorter than 24 octets: " + size);
    }
    int b0 = in.get() & 0xff;
    int b1 = in.get() & 0xff;
    int mult = in.get() & 0xff;
    int length = in.get() & 0xff;
    if (b0 >>> 5 != VERSION) {
      throw new Malformed("version " + (b0 >>> 5));
    }
    boolean auth = (b1 & A) != 0;
    // §6.8.6: "less than the minimum correct value (24 if the A bit is clear, 26 otherwise)", or
    // "greater than the payload of the encapsulating protocol"
    if (length < (auth ? 26 : LENGTH) || length > size) {
      throw new Malformed("length field " + length + " in a payload of " + size);
    }
    if (mult == 0) {
      throw new Malformed("Detect Mult 0");
    }
    if ((b1 & M) != 0) {
      throw new Malformed("Multipoint bit set");
    }
    int my = in.getInt();
    if (my == 0) {
      throw new Malformed("My Discriminator 0");
    }
    return new BfdPacket(
        b0 & 0x1f,
        BfdState.of(b1 >>> 6),
        (b1 & P) != 0,
        (b1 & F) != 0,
        (b1 & C) != 0,
        auth,
        (b1 & D) != 0,
        false,
        mult,
        my,
        in.getInt(),
        Integer.toUnsignedLong(in.getInt()),
        Integer.toUnsignedLong(in.getInt()),
        Integer.toUnsignedLong(in.getInt()));
  }
}
