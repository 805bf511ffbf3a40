package dev.sart.fib.netlink;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * One received netlink message: the {@code struct nlmsghdr} fields and its payload (the family
 * header and the attributes), in host byte order.
 */
record Message(int type, int flags, int seq, int pid, ByteBuffer payload) {

  /** Splits a datagram into its messages (NLMSG_OK / NLMSG_NEXT in linux/netlink.h). */
  static List<Message> parseAll(ByteBuffer datagram) {
    ByteBuffer b = datagram.duplicate().order(ByteOrder.nativeOrder());
    List<Message> out = new ArrayList<>();
    while (b.remaining() >= Rtnl.NLMSG_HDRLEN) {
      int start = b.position();
      int len = b.getInt(start);
      if (len < Rtnl.NLMSG_HDRLEN || len > b.remaining()) {
        throw new IllegalStateException(
            "malformed netlink message: nlmsg_len "
                + len
                + " with "
                + b.remaining()
                + " bytes left");
      }
      int type = b.getShort(start + 4) & 0xffff;
      int flags = b.getShort(start + 6) & 0xffff;
      int seq = b.getInt(start + 8);
      int pid = b.getInt(start + 12);
      ByteBuffer payload =
          b.slice(start + Rtnl.NLMSG_HDRLEN, len - Rtnl.NLMSG_HDRLEN)
              .order(ByteOrder.nativeOrder());
      out.add(new Message(type, flags, seq, pid, payload));
      b.position(Math.min(b.limit(), start + ((len + 3) & ~3)));
    }
    return out;
  }

  boolean isError() {
    return type == Rtnl.NLMSG_ERROR;
  }

  boolean isDone() {
    return type == Rtnl.NLMSG_DONE;
  }

  boolean dumpInterrupted() {
    return (flags & Rtnl.NLM_F_DUMP_INTR) != 0;
  }

  /**
   * For NLMSG_ERROR: the negative errno (0 for an acknowledgement). For NLMSG_DONE: the dump's
   * status, also a negative errno or 0 (linux/netlink.h, struct nlmsgerr).
   */
  int error() {
    return payload.remaining() >= 4 ? payload.getInt(0) : 0;
  }

  /**
   * The extended-ack text (NLMSGERR_ATTR_MSG) of an NLMSG_ERROR or NLMSG_DONE, or null. The TLVs
   * follow struct nlmsgerr: the error, then the request's header (and its payload unless
   * NLM_F_CAPPED).
   */
  String extAck() {
    if ((flags & Rtnl.NLM_F_ACK_TLVS) == 0) {
      return null;
    }
    int offset;
    if (type == Rtnl.NLMSG_DONE) {
      offset = 4;
    } else {
      if (payload.remaining() < 4 + Rtnl.NLMSG_HDRLEN) {
        return null;
      }
      int requestLen = payload.getInt(4);
      offset = 4 + ((flags & Rtnl.NLM_F_CAPPED) != 0 ? Rtnl.NLMSG_HDRLEN : requestLen);
    }
    if (offset > payload.remaining()) {
      return null;
    }
    Attributes tlvs =
        Attributes.parse(
            payload.slice(offset, payload.remaining() - offset).order(ByteOrder.nativeOrder()));
    return tlvs.has(Rtnl.NLMSGERR_ATTR_MSG) ? tlvs.string(Rtnl.NLMSGERR_ATTR_MSG) : null;
  }

  /** For NLMSG_ERROR: the sequence number of the request it answers (from the echoed header). */
  int errorRequestSeq() {
    return payload.remaining() >= 4 + Rtnl.NLMSG_HDRLEN ? payload.getInt(4 + 8) : seq;
  }
}
