package dev.sart.bgp.wire;

/** Big-endian reads from a byte array; callers check bounds first. */
final class Wire {

  private Wire() {}

  static int u8(byte[] b, int i) {
    return b[i] & 0xff;
  }

  static int u16(byte[] b, int i) {
    return (b[i] & 0xff) << 8 | (b[i + 1] & 0xff);
  }

  static int u24(byte[] b, int i) {
    return (b[i] & 0xff) << 16 | (b[i + 1] & 0xff) << 8 | (b[i + 2] & 0xff);
  }

  /** Four octets as an int (unsigned values above 2^31 come out negative). */
  static int i32(byte[] b, int i) {
    return (b[i] & 0xff) << 24
        | (b[i + 1] & 0xff) << 16
        | (b[i + 2] & 0xff) << 8
        | (b[i + 3] & 0xff);
  }

  static long u32(byte[] b, int i) {
    return i32(b, i) & 0xffff_ffffL;
  }

  static long i64(byte[] b, int i) {
    return (long) i32(b, i) << 32 | (i32(b, i + 4) & 0xffff_ffffL);
  }
}
