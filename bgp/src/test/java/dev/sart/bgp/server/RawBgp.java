package dev.sart.bgp.server;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.function.Predicate;

/**
 * A BGP peer played by hand, for tests that must fix the order of events: whole messages (RFC 4271
 * §4.1: 16-octet marker, length, type) read from and written to a plain socket opened in the peer's
 * namespace. Messages read are shown as "OPEN" (an OPEN's content varies with our configuration) or
 * as their bytes in hex, so that a test can compare them with the bytes the RFC prescribes.
 */
final class RawBgp {
  static final int OPEN = 1;
  static final int NOTIFICATION = 3;
  static final int KEEPALIVE = 4;
  static final HexFormat HEX = HexFormat.of();
  static final String MARKER = "ffffffffffffffffffffffffffffffff";
  static final String KEEPALIVE_HEX = MARKER + "0013" + "04";

  private RawBgp() {}

  /** A listener on the BGP port of {@code address}, opened by a thread of the peer's namespace. */
  static ServerSocket listen(ExecutorService peerSide, String address) throws Exception {
    return peerSide
        .submit(
            () -> {
              ServerSocket s = new ServerSocket();
              s.bind(new InetSocketAddress(InetAddress.getByName(address), 179));
              return s;
            })
        .get();
  }

  /** One whole message, header included; fails at the end of the stream. */
  static byte[] read(Socket s) throws IOException {
    DataInputStream in = new DataInputStream(s.getInputStream());
    byte[] header = new byte[19];
    in.readFully(header);
    int length = ((header[16] & 0xff) << 8) | (header[17] & 0xff);
    byte[] m = Arrays.copyOf(header, length);
    in.readFully(m, 19, length - 19);
    return m;
  }

  /**
   * The messages that arrive until the connection ends (closed or reset), or until one for which
   * {@code last} holds: an OPEN as "OPEN", anything else as its bytes in hex.
   */
  static List<String> readUntil(Socket s, Predicate<String> last) throws IOException {
    List<String> got = new ArrayList<>();
    while (true) {
      byte[] m;
      try {
        m = read(s);
      } catch (EOFException | SocketException e) {
        return got;
      }
      String shown = m[18] == OPEN ? "OPEN" : HEX.formatHex(m);
      got.add(shown);
      if (last.test(shown)) {
        return got;
      }
    }
  }

  /** The messages that arrive until the connection ends, shown as {@link #readUntil} shows them. */
  static List<String> readUntilClosed(Socket s) throws IOException {
    return readUntil(s, m -> false);
  }

  static void send(Socket s, byte[] m) throws IOException {
    OutputStream out = s.getOutputStream();
    out.write(m);
    out.flush();
  }

  static void send(Socket s, String hex) throws IOException {
    send(s, HEX.parseHex(hex));
  }

  /**
   * An OPEN (RFC 4271 §4.2), hold time 90 s, with the multiprotocol (IPv4 unicast, RFC 4760) and
   * 4-octet AS (RFC 6793) capabilities.
   */
  static byte[] open(int asn, String id) throws IOException {
    return open(asn, id, 90);
  }

  /** An OPEN offering {@code holdTime} seconds. */
  static byte[] open(int asn, String id, int holdTime) throws IOException {
    byte[] caps = {2, 12, 1, 4, 0, 1, 0, 1, 65, 4, 0, 0, (byte) (asn >> 8), (byte) asn};
    ByteBuffer b = ByteBuffer.allocate(19 + 10 + caps.length);
    header(b, b.capacity(), OPEN);
    b.put((byte) 4)
        .putShort((short) asn)
        .putShort((short) holdTime)
        .put(InetAddress.getByName(id).getAddress())
        .put((byte) caps.length)
        .put(caps);
    return b.array();
  }

  static byte[] keepalive() {
    ByteBuffer b = ByteBuffer.allocate(19);
    header(b, 19, KEEPALIVE);
    return b.array();
  }

  /** A NOTIFICATION without data (RFC 4271 §4.5), e.g. Cease / Connection Collision Resolution. */
  static byte[] notification(int code, int subcode) {
    ByteBuffer b = ByteBuffer.allocate(21);
    header(b, 21, NOTIFICATION);
    b.put((byte) code).put((byte) subcode);
    return b.array();
  }

  private static void header(ByteBuffer b, int length, int type) {
    for (int i = 0; i < 16; i++) {
      b.put((byte) 0xff);
    }
    b.putShort((short) length).put((byte) type);
  }
}
