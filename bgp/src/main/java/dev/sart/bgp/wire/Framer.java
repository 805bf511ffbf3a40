package dev.sart.bgp.wire;

import static dev.sart.bgp.wire.Iana.ErrorCode.MESSAGE_HEADER;
import static dev.sart.bgp.wire.Iana.ErrorSubcode.BAD_MESSAGE_LENGTH;
import static dev.sart.bgp.wire.Iana.ErrorSubcode.BAD_MESSAGE_TYPE;
import static dev.sart.bgp.wire.Iana.ErrorSubcode.CONNECTION_NOT_SYNCHRONIZED;

/**
 * Cuts a TCP byte stream into BGP messages, checking the header before anything is parsed.
 *
 * <pre>
 * RFC 4271 §4.1
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                                                               |
 * +                                                               +
 * |                           Marker                              |
 * +                                                               +
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |          Length               |      Type     |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * A buffer holding less than a whole message is not an error: {@link #frameLength} answers {@link
 * #NEED_MORE} and the caller waits for more bytes (sart's bug #44 was to reset the session on a
 * partial buffer).
 */
public final class Framer {

  public static final int HEADER_LENGTH = 19;
  public static final int MARKER_LENGTH = 16;

  /** RFC 4271 §4: the maximum message size. */
  public static final int MAX_LENGTH = 4096;

  /** RFC 8654 §4: the maximum once the Extended Message capability is negotiated. */
  public static final int MAX_EXTENDED_LENGTH = 65535;

  /** Returned by {@link #frameLength} while the next message is incomplete. */
  public static final int NEED_MORE = -1;

  // RFC 4271 §4.2-§4.5, RFC 2918 §3: the smallest valid length of each message type
  static final int MIN_OPEN = 29;
  static final int MIN_UPDATE = 23;
  static final int MIN_NOTIFICATION = 21;
  static final int KEEPALIVE_LENGTH = 19;
  static final int MIN_ROUTE_REFRESH = 23;

  private Framer() {}

  /**
   * The length of the message starting at {@code offset}, once all of it is in {@code buf[offset,
   * offset + available)}; {@link #NEED_MORE} before that.
   *
   * @param extendedMessage whether RFC 8654 Extended Messages were negotiated
   * @throws NotificationException a Message Header Error (RFC 4271 §6.1)
   */
  public static int frameLength(byte[] buf, int offset, int available, boolean extendedMessage)
      throws NotificationException {
    if (available < HEADER_LENGTH) {
      return NEED_MORE;
    }
    int length = checkHeader(buf, offset, extendedMessage);
    return available < length ? NEED_MORE : length;
  }

  /**
   * RFC 4271 §6.1: checks the marker, the length (against the message type) and the type of the
   * header at {@code offset}, which must hold at least {@link #HEADER_LENGTH} bytes.
   *
   * @return the message length
   */
  static int checkHeader(byte[] buf, int offset, boolean extendedMessage)
      throws NotificationException {
    if (Wire.i64(buf, offset) != -1L || Wire.i64(buf, offset + 8) != -1L) {
      throw new NotificationException(
          MESSAGE_HEADER, CONNECTION_NOT_SYNCHRONIZED, "marker is not all ones");
    }
    int length = Wire.u16(buf, offset + 16);
    int type = Wire.u8(buf, offset + 18);
    if (length < HEADER_LENGTH || length > max(extendedMessage)) {
      throw badLength(length, type);
    }
    boolean ok =
        switch (type) {
          case Iana.MessageType.OPEN ->
              length >= MIN_OPEN && length <= MAX_LENGTH; // RFC 8654 §4: OPEN stays ≤ 4096
          case Iana.MessageType.UPDATE -> length >= MIN_UPDATE;
          case Iana.MessageType.NOTIFICATION -> length >= MIN_NOTIFICATION;
          case Iana.MessageType.KEEPALIVE -> length == KEEPALIVE_LENGTH;
          case Iana.MessageType.ROUTE_REFRESH -> length >= MIN_ROUTE_REFRESH;
          default ->
              throw new NotificationException(
                  MESSAGE_HEADER,
                  BAD_MESSAGE_TYPE,
                  Octets.of((byte) type),
                  "unknown message type " + type);
        };
    if (!ok) {
      throw badLength(length, type);
    }
    return length;
  }

  private static NotificationException badLength(int length, int type) {
    return new NotificationException(
        MESSAGE_HEADER,
        BAD_MESSAGE_LENGTH,
        Octets.of((byte) (length >>> 8), (byte) length),
        "length " + length + " for message type " + type);
  }

  private static int max(boolean extendedMessage) {
    return extendedMessage ? MAX_EXTENDED_LENGTH : MAX_LENGTH;
  }
}
