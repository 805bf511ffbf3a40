package dev.sart.fib.netlink;

import java.util.List;

/** Interface addresses, IPv4 and IPv6: add, delete, list. */
public final class Addresses {
  private final NetlinkSocket socket;

  Addresses(NetlinkSocket socket) {
    this.socket = socket;
  }

  /** Adds an address; EEXIST when the link has it already. */
  public void add(Address a) {
    socket.execute(addRequest(a, Rtnl.NLM_F_CREATE | Rtnl.NLM_F_EXCL, "add"));
  }

  /** Adds an address or updates its flags and scope. */
  public void replace(Address a) {
    socket.execute(addRequest(a, Rtnl.NLM_F_CREATE | Rtnl.NLM_F_REPLACE, "replace"));
  }

  /** Removes an address; EADDRNOTAVAIL when the link does not have it. */
  public void delete(Address a) {
    socket.execute(deleteRequest(a));
  }

  /** Every address of every link, both families. */
  public List<Address> list() {
    return list(null, 0);
  }

  /** The addresses of one link (by index), both families. */
  public List<Address> list(int index) {
    return list(null, index);
  }

  /** The addresses of {@code family} (null: both) on link {@code index} (0: all links). */
  public List<Address> list(Family family, int index) {
    int af = family == null ? Rtnl.AF_UNSPEC : family.code();
    return socket
        .dump(
            new Request(
                Rtnl.RTM_GETADDR,
                Rtnl.NLM_F_DUMP,
                () -> "list addresses",
                w -> AddressCodec.header(w, af, 0, 0, 0, index)))
        .stream()
        .filter(m -> m.type() == Rtnl.RTM_NEWADDR)
        .map(AddressCodec::parse)
        .filter(a -> index == 0 || a.index() == index)
        .toList();
  }

  static Request addRequest(Address a, int flags, String verb) {
    return new Request(
        Rtnl.RTM_NEWADDR,
        flags,
        () -> verb + " address " + a.cidr() + " dev #" + a.index(),
        w -> AddressCodec.write(w, a, true));
  }

  static Request deleteRequest(Address a) {
    return new Request(
        Rtnl.RTM_DELADDR,
        0,
        () -> "delete address " + a.cidr() + " dev #" + a.index(),
        w -> AddressCodec.write(w, a, false));
  }
}
