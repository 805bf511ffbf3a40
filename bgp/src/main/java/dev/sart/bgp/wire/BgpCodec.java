package dev.sart.bgp.wire;

import static dev.sart.bgp.wire.Iana.ErrorCode.ROUTE_REFRESH_MESSAGE;
import static dev.sart.bgp.wire.Iana.ErrorSubcode.INVALID_MESSAGE_LENGTH;

import java.nio.ByteBuffer;

/**
 * The codec of one session: frames, decodes and encodes messages under the session's {@link
 * SessionOptions}. Immutable and thread-safe; a new instance once the OPENs are exchanged ({@link
 * #withOptions}).
 *
 * <p>Decoding never throws anything but {@link NotificationException}, whatever the input; UPDATE
 * problems that RFC 7606 lets a session survive come back inside the {@link Update}. Encoding
 * throws {@link IllegalArgumentException} for messages that cannot be sent on this session (too
 * long, Path Identifiers that were not negotiated): those are bugs of the caller.
 */
public final class BgpCodec {

  private static final byte[] MARKER = {
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
  };

  private final SessionOptions options;

  public BgpCodec(SessionOptions options) {
    this.options = options;
  }

  public SessionOptions options() {
    return options;
  }

  public BgpCodec withOptions(SessionOptions newOptions) {
    return new BgpCodec(newOptions);
  }

  /**
   * The length of the message at the start of {@code buf[offset, offset + available)}, or {@link
   * Framer#NEED_MORE} until all of it has arrived.
   */
  public int frameLength(byte[] buf, int offset, int available) throws NotificationException {
    return Framer.frameLength(buf, offset, available, options.extendedMessage());
  }

  /** Decodes the one whole message in {@code buf[offset, offset + length)}, header included. */
  public Message decode(byte[] buf, int offset, int length) throws NotificationException {
    if (offset < 0 || length < 0 || offset + length > buf.length) {
      throw new IllegalArgumentException("range outside the buffer");
    }
    if (length < Framer.HEADER_LENGTH) {
      throw badLength(length);
    }
    int messageLength = Framer.checkHeader(buf, offset, options.extendedMessage());
    if (messageLength != length) {
      throw badLength(messageLength);
    }
    int at = offset + Framer.HEADER_LENGTH;
    int end = offset + length;
    return switch (buf[offset + 18]) {
      case Iana.MessageType.OPEN -> OpenCodec.decode(buf, at, end);
      case Iana.MessageType.UPDATE -> UpdateDecoder.decode(buf, at, end, options);
      case Iana.MessageType.NOTIFICATION ->
          new Notification(
              Wire.u8(buf, at), Wire.u8(buf, at + 1), Octets.copyOf(buf, at + 2, end - at - 2));
      case Iana.MessageType.KEEPALIVE -> Keepalive.INSTANCE;
      case Iana.MessageType.ROUTE_REFRESH -> decodeRouteRefresh(buf, offset, at, end);
      default -> throw new IllegalStateException("the header check lets no other type through");
    };
  }

  /** Decodes the whole message between the buffer's position and limit, without moving them. */
  public Message decode(ByteBuffer message) throws NotificationException {
    if (message.hasArray()) {
      return decode(
          message.array(), message.arrayOffset() + message.position(), message.remaining());
    }
    byte[] copy = new byte[message.remaining()];
    message.get(message.position(), copy);
    return decode(copy, 0, copy.length);
  }

  /** RFC 2918 §3, RFC 7313 §5. */
  private static RouteRefresh decodeRouteRefresh(byte[] buf, int offset, int at, int end)
      throws NotificationException {
    int subtype = Wire.u8(buf, at + 2);
    // RFC 7313 §5: BoRR/EoRR of another length than 4 (after the header): 7/1 with the message
    if (end - at != 4
        && (subtype == Iana.RouteRefreshSubtype.BEGINNING_OF_ROUTE_REFRESH
            || subtype == Iana.RouteRefreshSubtype.END_OF_ROUTE_REFRESH)) {
      throw new NotificationException(
          ROUTE_REFRESH_MESSAGE,
          INVALID_MESSAGE_LENGTH,
          Octets.copyOf(buf, offset, end - offset),
          "ROUTE-REFRESH of length " + (end - offset));
    }
    // a longer normal request carries ORFs (RFC 5291), which this speaker does not negotiate:
    // the request is honoured for the whole family
    return new RouteRefresh(Family.of(Wire.u16(buf, at), Wire.u8(buf, at + 3)), subtype);
  }

  private static NotificationException badLength(int length) {
    return new NotificationException(
        Iana.ErrorCode.MESSAGE_HEADER,
        Iana.ErrorSubcode.BAD_MESSAGE_LENGTH,
        Octets.of((byte) (length >>> 8), (byte) length),
        "message length " + length);
  }

  /** Appends the encoded message to {@code out}. */
  public void encode(Message message, WireWriter out) {
    int start = out.length();
    out.bytes(MARKER, 0, MARKER.length);
    int lengthAt = out.reserve(2);
    out.u8(message.type());
    switch (message) {
      case Open o -> OpenCodec.encode(o, out);
      case Update u -> UpdateEncoder.encode(u, options, out);
      case Notification n -> {
        out.u8(n.code());
        out.u8(n.subcode());
        n.data().writeTo(out);
      }
      case Keepalive k -> {}
      case RouteRefresh r -> {
        out.u16(r.family().afi());
        out.u8(r.subtype());
        out.u8(r.family().safi());
      }
    }
    int length = out.length() - start;
    // RFC 8654 §4: OPEN and KEEPALIVE stay within 4096 octets in any case
    int max = message instanceof Open ? Framer.MAX_LENGTH : options.maxMessageLength();
    if (length > max) {
      out.truncate(start);
      throw new IllegalArgumentException(
          "a " + message.getClass().getSimpleName() + " of " + length + " octets exceeds " + max);
    }
    out.putU16(lengthAt, length);
  }

  public byte[] encode(Message message) {
    WireWriter out = new WireWriter();
    encode(message, out);
    return out.toByteArray();
  }
}
