package dev.sart.fib.netlink;

import dev.sart.net.Ip;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;

/** ARP and NDP neighbour entries: add, replace, delete, list (struct ndmsg, linux/neighbour.h). */
public final class Neighbors {
  private final NetlinkSocket socket;

  Neighbors(NetlinkSocket socket) {
    this.socket = socket;
  }

  /**
   * Adds an entry (usually {@link Neighbor#permanent}); EEXIST when there is one for the address.
   */
  public void add(Neighbor n) {
    socket.execute(addRequest(n, Rtnl.NLM_F_CREATE | Rtnl.NLM_F_EXCL, "add"));
  }

  /** Adds an entry or overwrites the one for the address. */
  public void replace(Neighbor n) {
    socket.execute(addRequest(n, Rtnl.NLM_F_CREATE | Rtnl.NLM_F_REPLACE, "replace"));
  }

  /** Deletes the entry for {@code n}'s address on its link; ENOENT when there is none. */
  public void delete(Neighbor n) {
    socket.execute(deleteRequest(n));
  }

  /** Every IPv4 and IPv6 neighbour entry. */
  public List<Neighbor> list() {
    return list(null, 0);
  }

  /** The entries of {@code family} (null: both) on link {@code index} (0: all links). */
  public List<Neighbor> list(Family family, int index) {
    int af = family == null ? Rtnl.AF_UNSPEC : family.code();
    return socket
        .dump(
            new Request(
                Rtnl.RTM_GETNEIGH,
                Rtnl.NLM_F_DUMP,
                () -> "list neighbours",
                w -> header(w, af, 0, 0, 0)))
        .stream()
        .filter(m -> m.type() == Rtnl.RTM_NEWNEIGH)
        .map(Neighbors::parse)
        .filter(Objects::nonNull)
        .filter(n -> index == 0 || n.index() == index)
        .toList();
  }

  /**
   * Adds or overwrites the permanent FDB entry "{@code mac} is behind {@code dst}" of the VXLAN
   * device {@code index} ({@code bridge fdb replace MAC dev DEV dst DST self permanent}).
   */
  public void replaceFdb(int index, MacAddress mac, InetAddress dst) {
    socket.execute(
        new Request(
            Rtnl.RTM_NEWNEIGH,
            Rtnl.NLM_F_CREATE | Rtnl.NLM_F_REPLACE,
            () -> "replace fdb " + mac + " dst " + Ip.format(dst) + " dev #" + index,
            w -> {
              header(w, Rtnl.AF_BRIDGE, index, NUD_PERMANENT, NTF_SELF);
              w.attr(Rtnl.NDA_LLADDR, mac.bytes());
              w.attrAddress(Rtnl.NDA_DST, dst);
            }));
  }

  /** Deletes that FDB entry; ENOENT when there is none. */
  public void deleteFdb(int index, MacAddress mac, InetAddress dst) {
    socket.execute(
        new Request(
            Rtnl.RTM_DELNEIGH,
            0,
            () -> "delete fdb " + mac + " dst " + Ip.format(dst) + " dev #" + index,
            w -> {
              header(w, Rtnl.AF_BRIDGE, index, 0, NTF_SELF);
              w.attr(Rtnl.NDA_LLADDR, mac.bytes());
              w.attrAddress(Rtnl.NDA_DST, dst);
            }));
  }

  /** The FDB entries of device {@code index} (0: every device). */
  public List<FdbEntry> listFdb(int index) {
    return socket
        .dump(
            new Request(
                Rtnl.RTM_GETNEIGH,
                Rtnl.NLM_F_DUMP,
                () -> "list fdb",
                w -> header(w, Rtnl.AF_BRIDGE, 0, 0, 0)))
        .stream()
        .filter(m -> m.type() == Rtnl.RTM_NEWNEIGH)
        .map(Neighbors::parseFdb)
        .filter(Objects::nonNull)
        .filter(e -> index == 0 || e.index() == index)
        .toList();
  }

  private static FdbEntry parseFdb(Message m) {
    ByteBuffer p = m.payload();
    if ((p.get(0) & 0xff) != Rtnl.AF_BRIDGE) {
      return null;
    }
    Attributes a = Attributes.after(p, Rtnl.NDMSG_LEN);
    if (!a.has(Rtnl.NDA_LLADDR)) {
      return null;
    }
    return new FdbEntry(
        p.getInt(4),
        MacAddress.ofOrNull(a.bytes(Rtnl.NDA_LLADDR)),
        a.has(Rtnl.NDA_DST) ? a.address(Rtnl.NDA_DST) : null);
  }

  /** ndm_state NUD_PERMANENT, ndm_flags NTF_SELF (linux/neighbour.h): the device's own table. */
  private static final int NUD_PERMANENT = 0x80;

  private static final int NTF_SELF = 0x02;

  /** struct ndmsg: family u8, pad u8, pad u16, ifindex s32, state u16, flags u8, type u8. */
  private static void header(MessageWriter w, int family, int index, int state, int flags) {
    w.u8(family).u8(0).u16(0).u32(index).u16(state).u8(flags).u8(0);
  }

  static Request addRequest(Neighbor n, int flags, String verb) {
    return new Request(
        Rtnl.RTM_NEWNEIGH,
        flags,
        () -> verb + " " + n.describe(),
        w -> {
          header(
              w,
              n.family().code(),
              n.index(),
              BitFlag.encode(n.state()),
              BitFlag.encode(n.flags()));
          w.attrAddress(Rtnl.NDA_DST, n.address());
          if (n.mac() != null) {
            w.attr(Rtnl.NDA_LLADDR, n.mac().bytes());
          }
        });
  }

  static Request deleteRequest(Neighbor n) {
    return new Request(
        Rtnl.RTM_DELNEIGH,
        0,
        () -> "delete " + n.describe(),
        w -> {
          header(w, n.family().code(), n.index(), 0, 0);
          w.attrAddress(Rtnl.NDA_DST, n.address());
        });
  }

  /**
   * Decodes an RTM_NEWNEIGH or RTM_DELNEIGH; null for a family other than IPv4 and IPv6 (bridge
   * FDB).
   */
  static Neighbor parse(Message m) {
    ByteBuffer p = m.payload();
    Family family = Family.ofCode(p.get(0) & 0xff);
    if (family == null) {
      return null;
    }
    int index = p.getInt(4);
    int state = p.getShort(8) & 0xffff;
    int flags = p.get(10) & 0xff;
    Attributes a = Attributes.after(p, Rtnl.NDMSG_LEN);
    if (!a.has(Rtnl.NDA_DST)) {
      return null;
    }
    return new Neighbor(
        index,
        a.address(Rtnl.NDA_DST),
        a.has(Rtnl.NDA_LLADDR) ? MacAddress.ofOrNull(a.bytes(Rtnl.NDA_LLADDR)) : null,
        BitFlag.decode(NeighborState.class, state),
        BitFlag.decode(NeighborFlag.class, flags));
  }
}
