package dev.sart.bgp.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.HexFormat;

/** Builds messages from hex and checks golden fixtures in both directions. */
final class Fixtures {

  private Fixtures() {}

  static byte[] hex(String hex) {
    return HexFormat.of().parseHex(hex.replaceAll("[\\s:|]", ""));
  }

  /** A whole message: marker, length, {@code type}, then the body given in hex. */
  static byte[] message(int type, String bodyHex) {
    byte[] body = hex(bodyHex);
    byte[] m = new byte[19 + body.length];
    java.util.Arrays.fill(m, 0, 16, (byte) 0xff);
    m[16] = (byte) (m.length >>> 8);
    m[17] = (byte) m.length;
    m[18] = (byte) type;
    System.arraycopy(body, 0, m, 19, body.length);
    return m;
  }

  static Message decode(SessionOptions options, byte[] bytes) throws NotificationException {
    return new BgpCodec(options).decode(bytes, 0, bytes.length);
  }

  /** bytes → message equals {@code expected}, and {@code expected} → the same bytes. */
  static <T extends Message> T assertGolden(SessionOptions options, byte[] bytes, T expected)
      throws NotificationException {
    BgpCodec codec = new BgpCodec(options);
    Message decoded = codec.decode(bytes, 0, bytes.length);
    assertEquals(expected, decoded);
    assertArrayEquals(
        bytes,
        codec.encode(expected),
        () -> "encoded " + HexFormat.of().formatHex(codec.encode(expected)));
    @SuppressWarnings("unchecked")
    T t = (T) assertInstanceOf(expected.getClass(), decoded);
    return t;
  }

  /** The value of one capability inside an OPEN with a single Capabilities parameter. */
  static byte[] openWith(String capabilitiesHex) {
    byte[] caps = hex(capabilitiesHex);
    String head = "04" + "fde8" + "00b4" + "c0000201";
    return message(
        1,
        head
            + String.format("%02x", caps.length + 2)
            + "02"
            + String.format("%02x", caps.length)
            + capabilitiesHex.replaceAll("\\s", ""));
  }

  /** An UPDATE message from its three fields in hex; the two length fields are computed. */
  static byte[] update(String withdrawnHex, String attributesHex, String nlriHex) {
    byte[] w = hex(withdrawnHex);
    byte[] a = hex(attributesHex);
    return message(
        2,
        String.format("%04x", w.length)
            + withdrawnHex.replaceAll("[\\s|]", "")
            + String.format("%04x", a.length)
            + attributesHex.replaceAll("[\\s|]", "")
            + nlriHex.replaceAll("[\\s|]", ""));
  }

  static Update decodeUpdate(SessionOptions options, byte[] bytes) throws NotificationException {
    return (Update) decode(options, bytes);
  }

  static Ipv4Prefixes v4(String... cidrs) {
    Ipv4Prefixes.Builder b = Ipv4Prefixes.builder();
    for (String c : cidrs) {
      b.add(c);
    }
    return b.build();
  }

  static Ipv6Prefixes v6(String... cidrs) {
    Ipv6Prefixes.Builder b = Ipv6Prefixes.builder();
    for (String c : cidrs) {
      b.add(c);
    }
    return b.build();
  }

  /**
   * One attribute in hex: flags and type as given ("80 0e"), then the computed length, then the
   * value.
   */
  static String attr(String flagsAndType, String valueHex) {
    int length = hex(valueHex).length;
    boolean extended = (hex(flagsAndType)[0] & 0x10) != 0;
    return flagsAndType
        + (extended ? String.format(" %04x ", length) : String.format(" %02x ", length))
        + valueHex;
  }
}
