package dev.sart.fib.netlink;

import java.nio.ByteOrder;

/**
 * A generic netlink socket ({@code NETLINK_GENERIC}, linux/genetlink.h) in one network namespace:
 * resolves a family's dynamic id through the controller and sends messages built elsewhere (e.g.
 * the {@code fou} family's FOU_CMD_ADD). Calls from several threads are serialised.
 */
public final class GenericNetlink implements AutoCloseable {
  private final NetlinkSocket socket;

  GenericNetlink(NetlinkSocket socket) {
    this.socket = socket;
  }

  /** Generic netlink in the calling thread's network namespace. */
  public static GenericNetlink open() {
    return new GenericNetlink(NetlinkSocket.open(Rtnl.NETLINK_GENERIC));
  }

  /** Generic netlink in {@code ns}. */
  public static GenericNetlink open(Netns ns) {
    return ns.run(GenericNetlink::open);
  }

  /**
   * The id of the family named {@code name} (CTRL_CMD_GETFAMILY; the kernel loads the family's
   * module on demand where it can).
   *
   * @throws NetlinkException ENOENT when the kernel has no such family
   */
  public int familyId(String name) {
    var replies =
        socket.query(
            new Request(
                Rtnl.GENL_ID_CTRL,
                0,
                () -> "resolve generic netlink family " + name,
                w -> {
                  w.u8(Rtnl.CTRL_CMD_GETFAMILY).u8(1).u16(0);
                  w.attrString(Rtnl.CTRL_ATTR_FAMILY_NAME, name);
                }));
    for (var m : replies) {
      var payload = m.payload().duplicate().order(ByteOrder.nativeOrder());
      var attrs = Attributes.after(payload, Rtnl.GENL_HDRLEN);
      if (attrs.has(Rtnl.CTRL_ATTR_FAMILY_ID)) {
        return attrs.u16(Rtnl.CTRL_ATTR_FAMILY_ID);
      }
    }
    throw new NetlinkException(
        "resolve generic netlink family " + name + " (no CTRL_ATTR_FAMILY_ID)", Errno.ENOENT, null);
  }

  /** Sends one whole message with NLM_F_ACK and waits for its acknowledgement. */
  public void execute(byte[] message, String description) {
    socket.execute(Request.raw(message, description));
  }

  @Override
  public void close() {
    socket.close();
  }
}
