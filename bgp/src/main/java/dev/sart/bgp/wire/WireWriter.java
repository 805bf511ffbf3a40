package dev.sart.bgp.wire;

import java.util.Arrays;

/**
 * A growable output buffer for the encoders. Not thread-safe; one per encoding thread (the peer
 * layer copies {@link #array()} up to {@link #length()} into its own buffers).
 */
public final class WireWriter {

  private byte[] buf;
  private int length;

  public WireWriter() {
    this(256);
  }

  public WireWriter(int initialCapacity) {
    buf = new byte[Math.max(16, initialCapacity)];
  }

  /** The bytes written so far are {@code array()[0..length())}. */
  public byte[] array() {
    return buf;
  }

  public int length() {
    return length;
  }

  /** Forgets what was written; keeps the storage. */
  public void clear() {
    length = 0;
  }

  /** Forgets what was written after {@code length}. */
  void truncate(int length) {
    this.length = length;
  }

  public byte[] toByteArray() {
    return Arrays.copyOf(buf, length);
  }

  void ensure(int more) {
    if (length + more > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, length + more));
    }
  }

  void u8(int v) {
    ensure(1);
    buf[length++] = (byte) v;
  }

  void u16(int v) {
    ensure(2);
    buf[length++] = (byte) (v >>> 8);
    buf[length++] = (byte) v;
  }

  void u24(int v) {
    ensure(3);
    buf[length++] = (byte) (v >>> 16);
    buf[length++] = (byte) (v >>> 8);
    buf[length++] = (byte) v;
  }

  void u32(int v) {
    ensure(4);
    buf[length++] = (byte) (v >>> 24);
    buf[length++] = (byte) (v >>> 16);
    buf[length++] = (byte) (v >>> 8);
    buf[length++] = (byte) v;
  }

  void u64(long v) {
    u32((int) (v >>> 32));
    u32((int) v);
  }

  void bytes(byte[] src, int offset, int count) {
    ensure(count);
    System.arraycopy(src, offset, buf, length, count);
    length += count;
  }

  /**
   * Reserves {@code count} bytes to be filled later with {@link #putU16}/{@link #putU8}; returns
   * their position.
   */
  int reserve(int count) {
    ensure(count);
    int at = length;
    length += count;
    return at;
  }

  void putU8(int at, int v) {
    buf[at] = (byte) v;
  }

  void putU16(int at, int v) {
    buf[at] = (byte) (v >>> 8);
    buf[at + 1] = (byte) v;
  }
}
