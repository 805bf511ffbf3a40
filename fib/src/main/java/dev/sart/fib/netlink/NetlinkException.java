package dev.sart.fib.netlink;

/**
 * A netlink request or a system call failed. The message names the operation and its object, the
 * error and, when the kernel sent one, its extended-ack text (NETLINK_EXT_ACK): {@code add route
 * 192.0.2.0/24 table 120: File exists (EEXIST)}.
 */
public final class NetlinkException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String operation;
  private final int errno;
  private final String extAck;

  /**
   * @param operation what was attempted, with its object ("add route 192.0.2.0/24 table 120")
   * @param errno the positive errno
   * @param extAck the kernel's extended-ack message, or null
   */
  public NetlinkException(String operation, int errno, String extAck) {
    super(
        operation
            + ": "
            + Errno.describe(errno)
            + (extAck == null || extAck.isEmpty() ? "" : ": " + extAck));
    this.operation = operation;
    this.errno = errno;
    this.extAck = extAck;
  }

  public String operation() {
    return operation;
  }

  /** The positive errno, e.g. {@link Errno#EEXIST}. */
  public int errno() {
    return errno;
  }

  /** The kernel's extended-ack message, or null when it sent none. */
  public String extAck() {
    return extAck;
  }
}
