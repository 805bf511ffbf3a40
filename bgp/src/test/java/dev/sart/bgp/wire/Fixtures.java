package dev.sart.bgp.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.HexFormat;

/** Builds messages from hex and checks golden fixtures in both directions. */
final class Fixtures {

    private Fixtures() {
    }

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
        assertArrayEquals(bytes, codec.encode(expected), () -> "encoded " + HexFormat.of().formatHex(codec.encode(expected)));
        @SuppressWarnings("unchecked")
        T t = (T) assertInstanceOf(expected.getClass(), decoded);
        return t;
    }

    /** The value of one capability inside an OPEN with a single Capabilities parameter. */
    static byte[] openWith(String capabilitiesHex) {
        byte[] caps = hex(capabilitiesHex);
        String head = "04" + "fde8" + "00b4" + "c0000201";
        return message(1, head + String.format("%02x", caps.length + 2) + "02" + String.format("%02x", caps.length)
                + capabilitiesHex.replaceAll("\\s", ""));
    }
}
