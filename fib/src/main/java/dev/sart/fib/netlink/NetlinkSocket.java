package dev.sart.fib.netlink;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Requests and replies over one rtnetlink socket: sequence numbers, acknowledgements matched to
 * their request, multi-part dumps (retried when the kernel flags them NLM_F_DUMP_INTR) and batches
 * of many requests per sendmsg. Calls are serialised; replies to earlier requests that nobody waits
 * for any more are skipped by their sequence number.
 */
final class NetlinkSocket implements AutoCloseable {
  /** How often a dump interrupted by concurrent changes is started again. */
  static final int DUMP_ATTEMPTS = 10;

  /**
   * Requests per sendmsg in a batch. The kernel handles them one after another and queues an error
   * for each that fails; this bounds those queued errors well below the receive buffer.
   */
  static final int BATCH_REQUESTS = 256;

  /** Bytes per sendmsg in a batch (well below the socket's send buffer). */
  static final int BATCH_BYTES = 256 * 1024;

  private final Transport transport;
  private final MessageWriter writer = new MessageWriter(64 * 1024);
  private int seq = 1;
  private long dumpRetries;

  NetlinkSocket(Transport transport) {
    this.transport = transport;
  }

  /** A socket in the calling thread's network namespace. */
  static NetlinkSocket open() {
    return new NetlinkSocket(NativeTransport.open());
  }

  /** A socket of another netlink protocol in the calling thread's network namespace. */
  static NetlinkSocket open(int protocol) {
    return new NetlinkSocket(NativeTransport.open(protocol));
  }

  /** Sends a request with NLM_F_ACK and waits for its acknowledgement. */
  synchronized void execute(Request request) {
    query(request);
  }

  /**
   * Sends a request with NLM_F_ACK and returns the replies that came before its acknowledgement (a
   * GET of one object answers with one message).
   */
  synchronized List<Message> query(Request request) {
    int s = nextSeq();
    writer.reset();
    write(request, s, Rtnl.NLM_F_REQUEST | Rtnl.NLM_F_ACK);
    transport.send(writer.written());
    List<Message> replies = new ArrayList<>();
    while (true) {
      for (Message m : receive()) {
        if (m.seq() != s) {
          continue;
        }
        if (m.isError()) {
          if (m.error() != 0) {
            throw new NetlinkException(request.describe(), -m.error(), m.extAck());
          }
          return replies;
        }
        replies.add(m);
      }
    }
  }

  /**
   * Runs a dump (the request carries NLM_F_DUMP) and returns every message of it. When the kernel
   * marks the dump NLM_F_DUMP_INTR (the objects changed while it was being sent, so the result may
   * be inconsistent), the dump starts over, up to {@link #DUMP_ATTEMPTS} times.
   */
  synchronized List<Message> dump(Request request) {
    for (int attempt = 1; attempt <= DUMP_ATTEMPTS; attempt++) {
      int s = nextSeq();
      writer.reset();
      write(request, s, Rtnl.NLM_F_REQUEST);
      transport.send(writer.written());
      List<Message> out = new ArrayList<>();
      boolean interrupted = false;
      boolean done = false;
      while (!done) {
        for (Message m : receive()) {
          if (m.seq() != s || done) {
            continue;
          }
          interrupted |= m.dumpInterrupted();
          if (m.isDone() || m.isError()) {
            if (m.error() != 0) {
              throw new NetlinkException(request.describe(), -m.error(), m.extAck());
            }
            done = true;
          } else {
            out.add(m);
          }
        }
      }
      if (!interrupted) {
        return out;
      }
      dumpRetries++;
    }
    throw new NetlinkException(
        request.describe() + " (interrupted by concurrent changes " + DUMP_ATTEMPTS + " times)",
        Errno.EINTR,
        null);
  }

  /**
   * Sends the requests, many per sendmsg, without asking for an acknowledgement of each: after each
   * chunk, a NLMSG_NOOP with NLM_F_ACK fences it (the kernel acknowledges it once it has handled
   * everything before it, linux/net/netlink/af_netlink.c netlink_rcv_skb), and the errors that
   * arrived before the fence belong to the chunk's requests by sequence number.
   */
  synchronized BatchResult batch(List<Request> requests) {
    Map<Integer, NetlinkException> failures = new HashMap<>();
    int next = 0;
    while (next < requests.size()) {
      writer.reset();
      int firstIndex = next;
      int firstSeq = seq;
      while (next < requests.size()
          && next - firstIndex < BATCH_REQUESTS
          && writer.position() < BATCH_BYTES) {
        write(requests.get(next), nextSeq(), Rtnl.NLM_F_REQUEST);
        next++;
      }
      int fence = nextSeq();
      int start = writer.begin(Rtnl.NLMSG_NOOP, Rtnl.NLM_F_REQUEST | Rtnl.NLM_F_ACK, fence);
      writer.end(start);
      transport.send(writer.written());
      awaitFence(requests, firstIndex, firstSeq, fence, failures);
    }
    return new BatchResult(requests.size(), failures);
  }

  private void awaitFence(
      List<Request> requests,
      int firstIndex,
      int firstSeq,
      int fence,
      Map<Integer, NetlinkException> failures) {
    while (true) {
      List<Message> messages;
      try {
        messages = receive();
      } catch (NetlinkException e) {
        if (e.errno() == Errno.ENOBUFS) {
          throw new NetlinkException(
              "batch of "
                  + requests.size()
                  + " requests: errors of requests "
                  + firstIndex
                  + ".."
                  + (firstIndex + (fence - firstSeq) - 1)
                  + " were lost (receive buffer full);"
                  + " their outcome is unknown",
              Errno.ENOBUFS,
              null);
        }
        throw e;
      }
      boolean fenced = false;
      for (Message m : messages) {
        if (!m.isError()) {
          continue;
        }
        if (m.seq() == fence) {
          fenced = true;
        } else if (m.error() != 0 && m.seq() - firstSeq >= 0 && m.seq() - fence < 0) {
          int index = firstIndex + (m.seq() - firstSeq);
          failures.put(
              index, new NetlinkException(requests.get(index).describe(), -m.error(), m.extAck()));
        }
      }
      if (fenced) {
        return;
      }
    }
  }

  /**
   * Dumps started over because the kernel flagged them NLM_F_DUMP_INTR, since this socket opened.
   */
  synchronized long dumpRetries() {
    return dumpRetries;
  }

  int portId() {
    return transport.portId();
  }

  private void write(Request request, int s, int extraFlags) {
    int start = writer.begin(request.type(), request.flags() | extraFlags, s);
    request.body().accept(writer);
    writer.end(start);
  }

  private List<Message> receive() {
    ByteBuffer d = transport.receive();
    if (d == null) {
      throw new NetlinkException("recvmsg from the kernel (timed out)", Errno.EAGAIN, null);
    }
    return Message.parseAll(d);
  }

  private int nextSeq() {
    return seq++;
  }

  @Override
  public void close() {
    transport.close();
  }
}
