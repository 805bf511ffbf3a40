package dev.sart.fib.netlink;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * A kernel stand-in: records every datagram sent and answers each message of it through a script,
 * which writes reply datagrams. For tests of {@link NetlinkSocket}'s request logic.
 */
final class ScriptedTransport implements Transport {
  /** The script: gets each message sent and a sink for reply datagrams. */
  interface Kernel extends BiConsumer<Message, Replies> {}

  /** Where the script puts replies. */
  final class Replies {
    void datagram(MessageWriter w) {
      queue.add(w.written());
    }
  }

  final List<ByteBuffer> sent = new ArrayList<>();
  private final Deque<ByteBuffer> queue = new ArrayDeque<>();
  private final Kernel kernel;

  ScriptedTransport(Kernel kernel) {
    this.kernel = kernel;
  }

  @Override
  public void send(ByteBuffer datagram) {
    ByteBuffer copy = ByteBuffer.allocate(datagram.remaining()).order(datagram.order());
    copy.put(datagram.duplicate()).flip();
    sent.add(copy);
    for (Message m : Message.parseAll(copy)) {
      kernel.accept(m, new Replies());
    }
  }

  @Override
  public ByteBuffer receive() {
    return queue.poll();
  }

  @Override
  public int portId() {
    return 4242;
  }

  @Override
  public void close() {}

  /**
   * An NLMSG_ERROR answering {@code request}: an ack when errno is 0, with an extended-ack text
   * when given.
   */
  static MessageWriter ack(Message request, int errno, String extAck) {
    MessageWriter w = new MessageWriter();
    int flags = Rtnl.NLM_F_CAPPED | (extAck != null ? Rtnl.NLM_F_ACK_TLVS : 0);
    int start = w.begin(Rtnl.NLMSG_ERROR, flags, request.seq());
    w.u32(-errno);
    // the request's header, capped
    w.u32(Rtnl.NLMSG_HDRLEN + request.payload().remaining())
        .u16(request.type())
        .u16(request.flags())
        .u32(request.seq())
        .u32(request.pid());
    if (extAck != null) {
      w.attrString(Rtnl.NLMSGERR_ATTR_MSG, extAck);
    }
    w.end(start);
    return w;
  }

  /** NLMSG_DONE for {@code seq} with {@code flags} and a status (0 or a negative errno). */
  static void done(MessageWriter w, int seq, int flags, int status) {
    int start = w.begin(Rtnl.NLMSG_DONE, Rtnl.NLM_F_MULTI | flags, seq);
    w.u32(status);
    w.end(start);
  }
}
