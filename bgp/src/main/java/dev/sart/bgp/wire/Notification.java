package dev.sart.bgp.wire;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * RFC 4271 §4.5: a NOTIFICATION. Codes and subcodes are kept as numbers, whatever their value;
 * {@link ErrorNames} names them.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * | Error code    | Error subcode |   Data (variable)             |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 */
public record Notification(int code, int subcode, Octets data) implements Message {

  /** RFC 9003 §2: a Shutdown Communication holds at most 255 octets of UTF-8. */
  public static final int MAX_SHUTDOWN_COMMUNICATION = 255;

  public Notification {
    if (code < 0 || code > 0xff || subcode < 0 || subcode > 0xff) {
      throw new IllegalArgumentException("code/subcode out of range: " + code + "/" + subcode);
    }
  }

  public Notification(int code, int subcode) {
    this(code, subcode, Octets.EMPTY);
  }

  /** RFC 8203/9003: Cease / Administrative Shutdown with a message for the operator of the peer. */
  public static Notification administrativeShutdown(String text) {
    return new Notification(
        Iana.ErrorCode.CEASE, Iana.ErrorSubcode.ADMINISTRATIVE_SHUTDOWN, shutdownData(text));
  }

  /** RFC 8203/9003: Cease / Administrative Reset with a message for the operator of the peer. */
  public static Notification administrativeReset(String text) {
    return new Notification(
        Iana.ErrorCode.CEASE, Iana.ErrorSubcode.ADMINISTRATIVE_RESET, shutdownData(text));
  }

  /**
   * RFC 8538 §3: Cease / Hard Reset carrying {@code inner}: its data is the inner error code and
   * subcode, then the inner data.
   */
  public static Notification hardReset(Notification inner) {
    byte[] d = inner.data.toByteArray();
    byte[] out = new byte[2 + d.length];
    out[0] = (byte) inner.code;
    out[1] = (byte) inner.subcode;
    System.arraycopy(d, 0, out, 2, d.length);
    return new Notification(Iana.ErrorCode.CEASE, Iana.ErrorSubcode.HARD_RESET, Octets.of(out));
  }

  /** Whether this is a Cease / Hard Reset (RFC 8538 §3). */
  public boolean isHardReset() {
    return code == Iana.ErrorCode.CEASE && subcode == Iana.ErrorSubcode.HARD_RESET;
  }

  /**
   * RFC 8538 §3: the NOTIFICATION a Hard Reset carries (its data: code, subcode, data), if it is
   * one and holds at least the two octets.
   */
  public Optional<Notification> hardResetReason() {
    if (!isHardReset() || data.length() < 2) {
      return Optional.empty();
    }
    byte[] d = data.toByteArray();
    return Optional.of(
        new Notification(d[0] & 0xff, d[1] & 0xff, Octets.copyOf(d, 2, d.length - 2)));
  }

  /**
   * The error for a log line: {@link ErrorNames#describe}, and for a Hard Reset the error it
   * carries ({@code Cease / Hard Reset (6/9) of Cease / Administrative Reset (6/4)}).
   */
  public String describe() {
    String d = ErrorNames.describe(code, subcode);
    return hardResetReason()
        .map(r -> d + " of " + ErrorNames.describe(r.code(), r.subcode()))
        .orElse(d);
  }

  /**
   * RFC 9003 §2: the Shutdown Communication of a Cease / Administrative Shutdown or Reset, if the
   * data is a well-formed one (a length octet, then that many octets of UTF-8).
   */
  public Optional<String> shutdownCommunication() {
    if (code != Iana.ErrorCode.CEASE
        || (subcode != Iana.ErrorSubcode.ADMINISTRATIVE_SHUTDOWN
            && subcode != Iana.ErrorSubcode.ADMINISTRATIVE_RESET)
        || data.isEmpty()) {
      return Optional.empty();
    }
    byte[] bytes = data.toByteArray();
    int length = bytes[0] & 0xff;
    if (length + 1 > bytes.length) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes, 1, length))
              .toString());
    } catch (CharacterCodingException e) {
      return Optional.empty();
    }
  }

  /** RFC 9003 §2: UTF-8, cut at a character boundary so that it fits 255 octets. */
  private static Octets shutdownData(String text) {
    ByteBuffer out = ByteBuffer.allocate(1 + MAX_SHUTDOWN_COMMUNICATION);
    out.position(1);
    StandardCharsets.UTF_8
        .newEncoder()
        .onMalformedInput(CodingErrorAction.REPLACE)
        .onUnmappableCharacter(CodingErrorAction.REPLACE)
        .encode(CharBuffer.wrap(text), out, true);
    int length = out.position() - 1;
    out.put(0, (byte) length);
    return Octets.copyOf(out.array(), 0, length + 1);
  }

  @Override
  public int type() {
    return Iana.MessageType.NOTIFICATION;
  }

  @Override
  public String toString() {
    return "Notification[" + ErrorNames.describe(code, subcode) + ", data=" + data + "]";
  }
}
