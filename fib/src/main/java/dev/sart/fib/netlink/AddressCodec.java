package dev.sart.fib.netlink;

import java.nio.ByteBuffer;

/** struct ifaddrmsg and the IFA_* attributes (linux/if_addr.h). */
final class AddressCodec {
  private AddressCodec() {}

  /** struct ifaddrmsg: family u8, prefixlen u8, flags u8, scope u8, index u32. */
  static void header(
      MessageWriter w, int family, int prefixLength, int flags, int scope, int index) {
    w.u8(family).u8(prefixLength).u8(flags & 0xff).u8(scope).u32(index);
  }

  /** The body of RTM_NEWADDR / RTM_DELADDR for {@code a}. */
  static void write(MessageWriter w, Address a, boolean withDetails) {
    int flags = BitFlag.encode(a.flags());
    header(w, a.family().code(), a.prefixLength(), flags, a.scope().code(), a.index());
    // IFA_LOCAL is the address; IFA_ADDRESS the peer's, the same without one (if_addr.h)
    w.attrAddress(Rtnl.IFA_LOCAL, a.address());
    w.attrAddress(Rtnl.IFA_ADDRESS, a.address());
    if (withDetails) {
      if (flags > 0xff) {
        w.attrU32(Rtnl.IFA_FLAGS, flags);
      }
      if (a.label() != null) {
        w.attrString(Rtnl.IFA_LABEL, a.label());
      }
    }
  }

  static Address parse(Message m) {
    ByteBuffer p = m.payload();
    int family = p.get(0) & 0xff;
    int prefixLength = p.get(1) & 0xff;
    int flags = p.get(2) & 0xff;
    int scope = p.get(3) & 0xff;
    int index = p.getInt(4);
    Attributes a = Attributes.after(p, Rtnl.IFADDRMSG_LEN);
    var address =
        family == Rtnl.AF_INET && a.has(Rtnl.IFA_LOCAL)
            ? a.address(Rtnl.IFA_LOCAL)
            : a.address(Rtnl.IFA_ADDRESS);
    return new Address(
        index,
        address,
        prefixLength,
        Scope.of(scope),
        BitFlag.decode(AddressFlag.class, a.u32(Rtnl.IFA_FLAGS, flags)),
        a.stringOrNull(Rtnl.IFA_LABEL));
  }
}
