package dev.sart.fib.netlink;

import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One rtnetlink request: its type and flags (NLM_F_REQUEST and the acknowledgement flags are added
 * when it is sent), what it does in words for error messages (computed only on failure), and a
 * writer for the family header and attributes after the {@code struct nlmsghdr}.
 */
record Request(int type, int flags, Supplier<String> description, Consumer<MessageWriter> body) {

  /** A request of a message built elsewhere: its type, flags and body after the nlmsghdr. */
  static Request raw(byte[] message, String description) {
    var b = java.nio.ByteBuffer.wrap(message).order(java.nio.ByteOrder.nativeOrder());
    if (message.length < Rtnl.NLMSG_HDRLEN || b.getInt(0) != message.length) {
      throw new IllegalArgumentException("not one netlink message: " + description);
    }
    int type = b.getShort(4) & 0xffff;
    int flags = b.getShort(6) & 0xffff & ~(Rtnl.NLM_F_REQUEST | Rtnl.NLM_F_ACK);
    var body = java.util.Arrays.copyOfRange(message, Rtnl.NLMSG_HDRLEN, message.length);
    return new Request(type, flags, () -> description, w -> w.bytes(body));
  }

  String describe() {
    return description.get();
  }
}
