package dev.sart.fib.netlink;

import java.util.HexFormat;

/** A 48-bit link-layer address, immutable and compared by value ("02:00:00:00:00:01"). */
public record MacAddress(long value) {
  private static final HexFormat HEX = HexFormat.ofDelimiter(":");

  public MacAddress {
    if ((value >>> 48) != 0) {
      throw new IllegalArgumentException("a MAC address has 48 bits: " + Long.toHexString(value));
    }
  }

  public static MacAddress parse(String text) {
    byte[] b = HEX.parseHex(text.toLowerCase(java.util.Locale.ROOT));
    if (b.length != 6) {
      throw new IllegalArgumentException("not a MAC address: " + text);
    }
    return of(b);
  }

  public static MacAddress of(byte[] b) {
    if (b.length != 6) {
      throw new IllegalArgumentException("a MAC address has 6 bytes, not " + b.length);
    }
    long v = 0;
    for (byte x : b) {
      v = (v << 8) | (x & 0xff);
    }
    return new MacAddress(v);
  }

  /** The address of a link-layer attribute, or null when it is not 6 bytes long. */
  static MacAddress ofOrNull(byte[] b) {
    return b != null && b.length == 6 ? of(b) : null;
  }

  public byte[] bytes() {
    byte[] b = new byte[6];
    for (int i = 5; i >= 0; i--) {
      b[i] = (byte) (value >>> (8 * (5 - i)));
    }
    return b;
  }

  @Override
  public String toString() {
    return HEX.formatHex(bytes());
  }
}
