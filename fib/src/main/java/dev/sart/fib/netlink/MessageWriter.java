package dev.sart.fib.netlink;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Writes netlink messages, one after another, into a growable buffer in host byte order
 * (linux/netlink.h): a {@code struct nlmsghdr}, the family header, then {@code struct nlattr} TLVs,
 * each padded to 4 bytes; nested attributes carry {@code NLA_F_NESTED}.
 *
 * <pre>
 *  0               1               2               3
 * +---------------+---------------+---------------+---------------+
 * |                          nlmsg_len                            |
 * +---------------+---------------+---------------+---------------+
 * |          nlmsg_type           |          nlmsg_flags          |
 * +---------------+---------------+---------------+---------------+
 * |                          nlmsg_seq                            |
 * +---------------+---------------+---------------+---------------+
 * |                          nlmsg_pid                            |
 * +---------------+---------------+---------------+---------------+
 * | family header (rtmsg, ifinfomsg, ...) | nla_len | nla_type | value | pad ...
 * </pre>
 */
final class MessageWriter {
  private ByteBuffer buf;

  MessageWriter(int initialCapacity) {
    buf = ByteBuffer.allocate(initialCapacity).order(ByteOrder.nativeOrder());
  }

  MessageWriter() {
    this(4096);
  }

  /** Forgets everything written. */
  void reset() {
    buf.clear();
  }

  int position() {
    return buf.position();
  }

  /** The bytes written so far, as a read-only view (position 0, limit at the end). */
  ByteBuffer written() {
    return buf.duplicate().flip().asReadOnlyBuffer().order(ByteOrder.nativeOrder());
  }

  /** Starts a message; returns its offset for {@link #end}. */
  int begin(int type, int flags, int seq) {
    int start = buf.position();
    ensure(Rtnl.NLMSG_HDRLEN);
    buf.putInt(0).putShort((short) type).putShort((short) flags).putInt(seq).putInt(0);
    return start;
  }

  /** Ends the message begun at {@code start}: sets nlmsg_len and pads to 4 bytes. */
  void end(int start) {
    buf.putInt(start, buf.position() - start);
    pad();
  }

  /** Drops a message that was begun but cannot be finished. */
  void truncate(int position) {
    buf.position(position);
  }

  MessageWriter u8(int v) {
    ensure(1);
    buf.put((byte) v);
    return this;
  }

  MessageWriter u16(int v) {
    ensure(2);
    buf.putShort((short) v);
    return this;
  }

  MessageWriter u32(int v) {
    ensure(4);
    buf.putInt(v);
    return this;
  }

  MessageWriter bytes(byte[] v) {
    ensure(v.length);
    buf.put(v);
    return this;
  }

  /** Writes zero bytes up to the next 4-byte boundary (NLMSG_ALIGN / NLA_ALIGN). */
  void pad() {
    int n = (4 - (buf.position() & 3)) & 3;
    ensure(n);
    for (int i = 0; i < n; i++) {
      buf.put((byte) 0);
    }
  }

  /** An attribute with raw bytes. */
  MessageWriter attr(int type, byte[] value) {
    ensure(Rtnl.NLA_HDRLEN + value.length + 3);
    buf.putShort((short) (Rtnl.NLA_HDRLEN + value.length)).putShort((short) type).put(value);
    pad();
    return this;
  }

  /** An attribute without a value (a flag). */
  MessageWriter attrFlag(int type) {
    return attr(type, new byte[0]);
  }

  MessageWriter attrU8(int type, int v) {
    ensure(8);
    buf.putShort((short) 5).putShort((short) type).put((byte) v);
    pad();
    return this;
  }

  MessageWriter attrU16(int type, int v) {
    ensure(8);
    buf.putShort((short) 6).putShort((short) type).putShort((short) v);
    pad();
    return this;
  }

  /** A u16 in network byte order (e.g. IFLA_VXLAN_PORT). */
  MessageWriter attrBe16(int type, int v) {
    return attrU16(type, Short.reverseBytes((short) v) & 0xffff);
  }

  MessageWriter attrU32(int type, int v) {
    ensure(8);
    buf.putShort((short) 8).putShort((short) type).putInt(v);
    return this;
  }

  /** A NUL-terminated string (NLA_NUL_STRING / NLA_STRING). */
  MessageWriter attrString(int type, String v) {
    byte[] s = v.getBytes(StandardCharsets.UTF_8);
    byte[] z = new byte[s.length + 1];
    System.arraycopy(s, 0, z, 0, s.length);
    return attr(type, z);
  }

  /** An IPv4 or IPv6 address in network byte order. */
  MessageWriter attrAddress(int type, InetAddress a) {
    return attr(type, a.getAddress());
  }

  /** Starts a nested attribute; returns its offset for {@link #endNested}. */
  int beginNested(int type) {
    int start = buf.position();
    ensure(Rtnl.NLA_HDRLEN);
    buf.putShort((short) 0).putShort((short) (type | Rtnl.NLA_F_NESTED));
    return start;
  }

  /**
   * Starts an attribute whose value is a sequence of structures rather than attributes
   * (RTA_MULTIPATH, VETH_INFO_PEER), so without NLA_F_NESTED.
   */
  int beginStruct(int type) {
    int start = buf.position();
    ensure(Rtnl.NLA_HDRLEN);
    buf.putShort((short) 0).putShort((short) type);
    return start;
  }

  /** Ends an attribute begun with {@link #beginNested} or {@link #beginStruct}. */
  void endNested(int start) {
    buf.putShort(start, (short) (buf.position() - start));
    pad();
  }

  /** Writes a u16 at an absolute offset (for length fields known only later, e.g. rtnh_len). */
  void putU16At(int offset, int v) {
    buf.putShort(offset, (short) v);
  }

  private void ensure(int n) {
    if (buf.remaining() < n) {
      ByteBuffer bigger =
          ByteBuffer.allocate(Math.max(buf.capacity() * 2, buf.position() + n))
              .order(ByteOrder.nativeOrder());
      buf.flip();
      bigger.put(buf);
      buf = bigger;
    }
  }
}
