package dev.sart.fib.netlink;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The {@code struct nlattr} TLVs of a message or of a nested attribute, indexed by type (the last
 * occurrence wins, as in the kernel's nla_parse). Values are read in host byte order.
 */
final class Attributes {
  private static final Attributes EMPTY =
      new Attributes(ByteBuffer.allocate(0), new int[0], new int[0]);

  private final ByteBuffer buf;

  /** offset+1 of each type's value (0 = absent), and its length. */
  private final int[] offsets;

  private final int[] lengths;

  private Attributes(ByteBuffer buf, int[] offsets, int[] lengths) {
    this.buf = buf;
    this.offsets = offsets;
    this.lengths = lengths;
  }

  /** Parses the attributes filling {@code region} (from its position to its limit). */
  static Attributes parse(ByteBuffer region) {
    ByteBuffer b = region.slice().order(ByteOrder.nativeOrder());
    int[] offsets = new int[32];
    int[] lengths = new int[32];
    int p = 0;
    while (p + Rtnl.NLA_HDRLEN <= b.limit()) {
      int len = b.getShort(p) & 0xffff;
      int type = b.getShort(p + 2) & Rtnl.NLA_TYPE_MASK;
      if (len < Rtnl.NLA_HDRLEN || p + len > b.limit()) {
        break; // a truncated attribute ends the list, as nla_ok does
      }
      if (type >= offsets.length) {
        offsets = Arrays.copyOf(offsets, Math.max(type + 1, offsets.length * 2));
        lengths = Arrays.copyOf(lengths, offsets.length);
      }
      offsets[type] = p + Rtnl.NLA_HDRLEN + 1;
      lengths[type] = len - Rtnl.NLA_HDRLEN;
      p += (len + 3) & ~3;
    }
    return new Attributes(b, offsets, lengths);
  }

  /**
   * The attributes after a family header of {@code headerLength} bytes at the start of {@code
   * payload}.
   */
  static Attributes after(ByteBuffer payload, int headerLength) {
    if (payload.remaining() <= headerLength) {
      return EMPTY;
    }
    return parse(
        payload.slice(payload.position() + headerLength, payload.remaining() - headerLength));
  }

  boolean has(int type) {
    return type < offsets.length && offsets[type] != 0;
  }

  int length(int type) {
    return has(type) ? lengths[type] : 0;
  }

  private int offset(int type) {
    if (!has(type)) {
      throw new IllegalArgumentException("attribute " + type + " absent");
    }
    return offsets[type] - 1;
  }

  int u8(int type) {
    return buf.get(offset(type)) & 0xff;
  }

  int u16(int type) {
    return buf.getShort(offset(type)) & 0xffff;
  }

  /** A u16 in network byte order (IFLA_VXLAN_PORT). */
  int be16(int type) {
    return Short.reverseBytes(buf.getShort(offset(type))) & 0xffff;
  }

  int u32(int type) {
    return buf.getInt(offset(type));
  }

  /** The value, or {@code otherwise} when absent. */
  int u32(int type, int otherwise) {
    return has(type) ? u32(type) : otherwise;
  }

  byte[] bytes(int type) {
    byte[] out = new byte[lengths[type]];
    buf.get(offset(type), out);
    return out;
  }

  /** A string without its terminating NUL. */
  String string(int type) {
    int off = offset(type);
    int len = lengths[type];
    while (len > 0 && buf.get(off + len - 1) == 0) {
      len--;
    }
    byte[] s = new byte[len];
    buf.get(off, s);
    return new String(s, StandardCharsets.UTF_8);
  }

  /** The string, or null when absent. */
  String stringOrNull(int type) {
    return has(type) ? string(type) : null;
  }

  /** An IPv4 or IPv6 address, or null when absent. */
  InetAddress address(int type) {
    if (!has(type)) {
      return null;
    }
    try {
      return InetAddress.getByAddress(bytes(type));
    } catch (UnknownHostException e) {
      throw new IllegalStateException(
          "attribute " + type + " is not an address: " + lengths[type] + " bytes", e);
    }
  }

  /** The value as its own buffer (for structures such as rtnexthop lists). */
  ByteBuffer slice(int type) {
    return buf.slice(offset(type), lengths[type]).order(ByteOrder.nativeOrder());
  }

  /** The nested attributes inside {@code type} (empty when absent). */
  Attributes nested(int type) {
    return has(type) ? parse(slice(type)) : EMPTY;
  }
}
