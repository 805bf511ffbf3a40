package dev.sart.fib.netlink;

import java.net.InetAddress;
import java.nio.ByteBuffer;

/**
 * struct ifinfomsg and the IFLA_* attributes (linux/rtnetlink.h, linux/if_link.h, linux/veth.h).
 */
final class LinkCodec {
  private LinkCodec() {}

  /**
   * struct ifinfomsg: family u8, pad u8, type u16, index s32, flags u32, change u32. A zero index
   * makes the kernel find the link by IFLA_IFNAME.
   */
  static void header(MessageWriter w, int index, int flags, int change) {
    w.u8(Rtnl.AF_UNSPEC).u8(0).u16(0).u32(index).u32(flags).u32(change);
  }

  /**
   * IFLA_LINKINFO { IFLA_INFO_KIND kind } with an IFLA_INFO_DATA written by {@code data} (may be
   * null).
   */
  static void linkInfo(
      MessageWriter w, String kind, java.util.function.Consumer<MessageWriter> data) {
    int info = w.beginNested(Rtnl.IFLA_LINKINFO);
    w.attrString(Rtnl.IFLA_INFO_KIND, kind);
    if (data != null) {
      int d = w.beginNested(Rtnl.IFLA_INFO_DATA);
      data.accept(w);
      w.endNested(d);
    }
    w.endNested(info);
  }

  /**
   * A veth's IFLA_INFO_DATA: VETH_INFO_PEER holds a whole struct ifinfomsg followed by the peer's
   * attributes (its name and, to create it in another namespace, IFLA_NET_NS_FD).
   */
  static void vethPeer(MessageWriter w, String peerName, Netns peerNamespace) {
    int peer = w.beginStruct(Rtnl.VETH_INFO_PEER);
    header(w, 0, 0, 0);
    w.attrString(Rtnl.IFLA_IFNAME, peerName);
    if (peerNamespace != null) {
      w.attrU32(Rtnl.IFLA_NET_NS_FD, peerNamespace.fd());
    }
    w.endNested(peer);
  }

  /** A vxlan's IFLA_INFO_DATA. */
  static void vxlanData(MessageWriter w, Vxlan v) {
    w.attrU32(Rtnl.IFLA_VXLAN_ID, v.vni());
    if (v.remote() != null) {
      w.attrAddress(
          Family.of(v.remote()) == Family.INET ? Rtnl.IFLA_VXLAN_GROUP : Rtnl.IFLA_VXLAN_GROUP6,
          v.remote());
    }
    if (v.local() != null) {
      w.attrAddress(
          Family.of(v.local()) == Family.INET ? Rtnl.IFLA_VXLAN_LOCAL : Rtnl.IFLA_VXLAN_LOCAL6,
          v.local());
    }
    if (v.underlay() != 0) {
      w.attrU32(Rtnl.IFLA_VXLAN_LINK, v.underlay());
    }
    if (v.port() != 0) {
      w.attrBe16(Rtnl.IFLA_VXLAN_PORT, v.port());
    }
    w.attrU8(Rtnl.IFLA_VXLAN_LEARNING, v.learning() ? 1 : 0);
  }

  /** Decodes an RTM_NEWLINK (a dump entry, a GET reply or an event). */
  static Link parse(Message m) {
    ByteBuffer p = m.payload();
    int index = p.getInt(4);
    int flags = p.getInt(8);
    Attributes a = Attributes.after(p, Rtnl.IFINFOMSG_LEN);
    Attributes info = a.nested(Rtnl.IFLA_LINKINFO);
    String kind = info.has(Rtnl.IFLA_INFO_KIND) ? info.string(Rtnl.IFLA_INFO_KIND) : "";
    Vxlan vxlan = kind.equals("vxlan") ? parseVxlan(info.nested(Rtnl.IFLA_INFO_DATA)) : null;
    String alias = a.stringOrNull(Rtnl.IFLA_IFALIAS);
    return new Link(
        index,
        a.stringOrNull(Rtnl.IFLA_IFNAME),
        kind,
        BitFlag.decode(LinkFlag.class, flags),
        OperState.of(a.has(Rtnl.IFLA_OPERSTATE) ? a.u8(Rtnl.IFLA_OPERSTATE) : 0),
        a.u32(Rtnl.IFLA_MTU, 0),
        a.has(Rtnl.IFLA_ADDRESS) ? MacAddress.ofOrNull(a.bytes(Rtnl.IFLA_ADDRESS)) : null,
        alias == null || alias.isEmpty() ? null : alias,
        a.u32(Rtnl.IFLA_MASTER, 0),
        a.u32(Rtnl.IFLA_LINK, 0),
        vxlan);
  }

  private static Vxlan parseVxlan(Attributes d) {
    InetAddress remote =
        d.has(Rtnl.IFLA_VXLAN_GROUP)
            ? d.address(Rtnl.IFLA_VXLAN_GROUP)
            : d.address(Rtnl.IFLA_VXLAN_GROUP6);
    InetAddress local =
        d.has(Rtnl.IFLA_VXLAN_LOCAL)
            ? d.address(Rtnl.IFLA_VXLAN_LOCAL)
            : d.address(Rtnl.IFLA_VXLAN_LOCAL6);
    return new Vxlan(
        d.u32(Rtnl.IFLA_VXLAN_ID, 0),
        local,
        remote,
        d.has(Rtnl.IFLA_VXLAN_PORT) ? d.be16(Rtnl.IFLA_VXLAN_PORT) : 0,
        d.u32(Rtnl.IFLA_VXLAN_LINK, 0),
        d.has(Rtnl.IFLA_VXLAN_LEARNING) && d.u8(Rtnl.IFLA_VXLAN_LEARNING) != 0);
  }
}
