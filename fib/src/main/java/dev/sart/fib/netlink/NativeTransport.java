package dev.sart.fib.netlink;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An {@code AF_NETLINK} socket ({@code NETLINK_ROUTE} unless opened for another protocol) through
 * {@code java.lang.foreign}. It lives in the network namespace of the thread that opened it (see
 * {@link Netns#run}), whichever thread uses it afterwards. Not thread-safe: its owner serialises
 * calls.
 */
final class NativeTransport implements Transport {
  /** Dump replies are at most 32 KiB (netlink_dump); events and acks are smaller. */
  private static final int RECEIVE_BUFFER = 64 * 1024;

  /** Kernel-side socket buffers: room for the acks and errors of a whole batch chunk. */
  private static final int KERNEL_BUFFER = 4 * 1024 * 1024;

  private final int fd;
  private final int portId;
  private final Arena arena = Arena.ofShared();
  private final MemorySegment receiveBuffer;
  private MemorySegment sendBuffer;
  private final AtomicBoolean closed = new AtomicBoolean();

  private NativeTransport(int fd) {
    this.fd = fd;
    this.receiveBuffer = arena.allocate(RECEIVE_BUFFER, 8);
    this.sendBuffer = arena.allocate(64 * 1024, 8);
    try {
      // struct sockaddr_nl: nl_family u16, nl_pad u16, nl_pid u32, nl_groups u32
      MemorySegment addr = arena.allocate(12, 4);
      addr.set(JAVA_SHORT, 0, (short) Rtnl.AF_NETLINK);
      Libc.bind(fd, addr);
      MemorySegment len = arena.allocate(JAVA_INT);
      len.set(JAVA_INT, 0, 12);
      Libc.getsockname(fd, addr, len);
      this.portId = addr.get(JAVA_INT, 4);
    } catch (RuntimeException e) {
      Libc.close(fd);
      arena.close();
      throw e;
    }
  }

  /**
   * Opens a socket in the calling thread's network namespace, with extended acks, capped acks and
   * strict checking of dump requests (so that the kernel filters dumps by table).
   */
  static NativeTransport open() {
    return open(Rtnl.NETLINK_ROUTE);
  }

  /** The same for another netlink protocol ({@link Rtnl#NETLINK_GENERIC}). */
  static NativeTransport open(int protocol) {
    NativeTransport t =
        new NativeTransport(
            Libc.socket(Rtnl.AF_NETLINK, Libc.SOCK_RAW | Libc.SOCK_CLOEXEC, protocol));
    try {
      t.setIntOption(Rtnl.SOL_NETLINK, Rtnl.NETLINK_EXT_ACK, 1, "NETLINK_EXT_ACK");
      t.setIntOption(Rtnl.SOL_NETLINK, Rtnl.NETLINK_CAP_ACK, 1, "NETLINK_CAP_ACK");
      t.setIntOption(Rtnl.SOL_NETLINK, Rtnl.NETLINK_GET_STRICT_CHK, 1, "NETLINK_GET_STRICT_CHK");
      t.setBuffers();
      return t;
    } catch (RuntimeException e) {
      t.close();
      throw e;
    }
  }

  /** Joins a multicast group (enum rtnetlink_groups). */
  void join(int group) {
    setIntOption(
        Rtnl.SOL_NETLINK, Rtnl.NETLINK_ADD_MEMBERSHIP, group, "NETLINK_ADD_MEMBERSHIP " + group);
  }

  /** Makes {@link #receive} return null after {@code timeout} without a datagram. */
  void receiveTimeout(Duration timeout) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment tv = a.allocate(16, 8); // struct timeval: tv_sec, tv_usec
      tv.set(JAVA_LONG, 0, timeout.toSeconds());
      tv.set(JAVA_LONG, 8, timeout.toMillisPart() * 1000L);
      if (Libc.setsockoptRaw(fd, Libc.SOL_SOCKET, Libc.SO_RCVTIMEO, tv) < 0) {
        throw new NetlinkException("setsockopt SO_RCVTIMEO", Libc.errno(), null);
      }
    }
  }

  private void setBuffers() {
    // root may exceed net.core.{r,w}mem_max with the *FORCE options; others get what the sysctl
    // allows
    if (trySetInt(Libc.SOL_SOCKET, Libc.SO_RCVBUFFORCE, KERNEL_BUFFER) < 0) {
      trySetInt(Libc.SOL_SOCKET, Libc.SO_RCVBUF, KERNEL_BUFFER);
    }
    if (trySetInt(Libc.SOL_SOCKET, Libc.SO_SNDBUFFORCE, KERNEL_BUFFER) < 0) {
      trySetInt(Libc.SOL_SOCKET, Libc.SO_SNDBUF, KERNEL_BUFFER);
    }
  }

  private void setIntOption(int level, int name, int value, String what) {
    if (trySetInt(level, name, value) < 0) {
      throw new NetlinkException("setsockopt " + what, Libc.errno(), null);
    }
  }

  private int trySetInt(int level, int name, int value) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment v = a.allocate(JAVA_INT);
      v.set(JAVA_INT, 0, value);
      return Libc.setsockoptRaw(fd, level, name, v);
    }
  }

  @Override
  public void send(ByteBuffer datagram) {
    int len = datagram.remaining();
    if (sendBuffer.byteSize() < len) {
      sendBuffer = arena.allocate(Math.max(len, sendBuffer.byteSize() * 2), 8);
    }
    MemorySegment.copy(MemorySegment.ofBuffer(datagram), 0, sendBuffer, 0, len);
    while (true) {
      long n = Libc.sendRaw(fd, sendBuffer, len, 0);
      if (n >= 0) {
        return;
      }
      int errno = Libc.errno();
      if (errno != Errno.EINTR) {
        throw new NetlinkException("sendmsg to the kernel (" + len + " bytes)", errno, null);
      }
    }
  }

  @Override
  public ByteBuffer receive() {
    while (true) {
      long n = Libc.recvRaw(fd, receiveBuffer, RECEIVE_BUFFER, 0);
      if (n >= 0) {
        ByteBuffer copy = ByteBuffer.allocate((int) n).order(ByteOrder.nativeOrder());
        MemorySegment.copy(receiveBuffer, 0, MemorySegment.ofBuffer(copy), 0, n);
        return copy;
      }
      int errno = Libc.errno();
      if (errno == Errno.EAGAIN) {
        return null;
      }
      if (errno != Errno.EINTR) {
        throw new NetlinkException("recvmsg from the kernel", errno, null);
      }
    }
  }

  @Override
  public int portId() {
    return portId;
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      try {
        Libc.close(fd);
      } finally {
        arena.close();
      }
    }
  }
}
