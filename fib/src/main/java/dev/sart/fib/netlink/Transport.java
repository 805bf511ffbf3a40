package dev.sart.fib.netlink;

import java.nio.ByteBuffer;

/**
 * Datagrams to and from the kernel: the seam between {@link NetlinkSocket}'s request logic and the
 * system calls, so that the logic can be tested with scripted replies.
 */
interface Transport extends AutoCloseable {
  /** Sends one datagram holding one or more messages (one sendmsg). */
  void send(ByteBuffer datagram);

  /**
   * Receives one datagram; blocks until one arrives, or returns null once the receive timeout (if
   * any) passes. Throws {@link NetlinkException} with ENOBUFS when the kernel dropped messages
   * because the receive buffer was full.
   */
  ByteBuffer receive();

  /** The socket's netlink port id (nl_pid). */
  int portId();

  @Override
  void close();
}
