package dev.sart.bgp.wire;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * An immutable run of octets with value semantics, so that records holding bytes compare by content
 * (a record holding a {@code byte[]} would compare by identity).
 */
public final class Octets {

  public static final Octets EMPTY = new Octets(new byte[0]);

  private static final HexFormat HEX = HexFormat.of();

  private final byte[] bytes;

  private Octets(byte[] bytes) {
    this.bytes = bytes;
  }

  /** A copy of {@code bytes}. */
  public static Octets of(byte... bytes) {
    return bytes.length == 0 ? EMPTY : new Octets(bytes.clone());
  }

  /** A copy of {@code length} bytes of {@code bytes} from {@code offset}. */
  public static Octets copyOf(byte[] bytes, int offset, int length) {
    return length == 0 ? EMPTY : new Octets(Arrays.copyOfRange(bytes, offset, offset + length));
  }

  /** Parses hex digits; spaces, newlines and colons between them are ignored. */
  public static Octets fromHex(String hex) {
    return of(HEX.parseHex(hex.replaceAll("[\\s:]", "")));
  }

  public int length() {
    return bytes.length;
  }

  public boolean isEmpty() {
    return bytes.length == 0;
  }

  /** The octet at {@code index} as an unsigned value. */
  public int get(int index) {
    return bytes[index] & 0xff;
  }

  public byte[] toByteArray() {
    return bytes.clone();
  }

  void writeTo(WireWriter out) {
    out.bytes(bytes, 0, bytes.length);
  }

  public String toHex() {
    return HEX.formatHex(bytes);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Octets other && Arrays.equals(bytes, other.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  @Override
  public String toString() {
    return "0x" + toHex();
  }
}
