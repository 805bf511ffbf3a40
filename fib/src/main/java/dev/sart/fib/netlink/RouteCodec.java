package dev.sart.fib.netlink;

import dev.sart.net.IpPrefix;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * struct rtmsg and the RTA_* attributes of a route (linux/rtnetlink.h).
 *
 * <pre>
 * struct rtmsg { u8 family, dst_len, src_len, tos, table, protocol, scope, type; u32 flags; }
 * RTA_MULTIPATH: a sequence of
 *   struct rtnexthop { u16 len; u8 flags; u8 hops (weight - 1); s32 ifindex; } + RTA_GATEWAY | RTA_VIA
 * RTA_VIA: struct rtvia { u16 family; u8 addr[]; }  (a gateway of another family, RFC 5549)
 * </pre>
 */
final class RouteCodec {
  /** A delete matches a route of any scope (iproute2 does the same). */
  private static final int DELETE_SCOPE = Scope.NOWHERE.code();

  private RouteCodec() {}

  /** struct rtmsg. */
  static void header(
      MessageWriter w,
      int family,
      int dstLen,
      int table,
      int protocol,
      int scope,
      int type,
      int flags) {
    w.u8(family).u8(dstLen).u8(0).u8(0).u8(table).u8(protocol).u8(scope).u8(type).u32(flags);
  }

  /** The body of RTM_NEWROUTE, or of RTM_DELROUTE when {@code delete}. */
  static void write(MessageWriter w, Route r, boolean delete) {
    List<NextHop> hops = r.nextHops();
    int flags = hops.size() == 1 ? hops.getFirst().requestFlags() : 0;
    int table = r.table() < 256 ? r.table() : Rtnl.RT_TABLE_UNSPEC;
    header(
        w,
        r.family().code(),
        r.destination().length(),
        table,
        r.protocol(),
        delete ? DELETE_SCOPE : r.scope().code(),
        r.type().code(),
        flags);
    w.attrU32(Rtnl.RTA_TABLE, r.table());
    if (r.destination().length() > 0) {
      w.attrAddress(Rtnl.RTA_DST, r.destination().address());
    }
    if (r.metric() != 0) {
      w.attrU32(Rtnl.RTA_PRIORITY, r.metric());
    }
    if (r.preferredSource() != null) {
      w.attrAddress(Rtnl.RTA_PREFSRC, r.preferredSource());
    }
    if (hops.size() == 1) {
      NextHop h = hops.getFirst();
      gateway(w, r.family(), h.gateway());
      if (h.index() != 0) {
        w.attrU32(Rtnl.RTA_OIF, h.index());
      }
    } else if (hops.size() > 1) {
      int mp = w.beginStruct(Rtnl.RTA_MULTIPATH);
      for (NextHop h : hops) {
        int start = w.position();
        w.u16(0).u8(h.requestFlags()).u8(h.weight() - 1).u32(h.index());
        gateway(w, r.family(), h.gateway());
        w.putU16At(start, w.position() - start);
      }
      w.endNested(mp);
    }
  }

  /**
   * RTA_GATEWAY for a gateway of the route's family, RTA_VIA for an IPv6 gateway of an IPv4 route.
   */
  private static void gateway(MessageWriter w, Family routeFamily, InetAddress gateway) {
    if (gateway == null) {
      return;
    }
    Family gf = Family.of(gateway);
    if (gf == routeFamily) {
      w.attrAddress(Rtnl.RTA_GATEWAY, gateway);
    } else {
      byte[] a = gateway.getAddress();
      ByteBuffer via = ByteBuffer.allocate(2 + a.length).order(java.nio.ByteOrder.nativeOrder());
      via.putShort((short) gf.code()).put(a);
      w.attr(Rtnl.RTA_VIA, via.array());
    }
  }

  /** The table of a route message: RTA_TABLE, else rtm_table. */
  static int table(Message m) {
    return Attributes.after(m.payload(), Rtnl.RTMSG_LEN)
        .u32(Rtnl.RTA_TABLE, m.payload().get(4) & 0xff);
  }

  /**
   * Decodes an RTM_NEWROUTE or RTM_DELROUTE; null for a family other than IPv4 and IPv6 (multicast,
   * MPLS).
   */
  static Route parse(Message m) {
    ByteBuffer p = m.payload();
    Family family = Family.ofCode(p.get(0) & 0xff);
    if (family == null) {
      return null;
    }
    int dstLen = p.get(1) & 0xff;
    int protocol = p.get(5) & 0xff;
    int scope = p.get(6) & 0xff;
    int type = p.get(7) & 0xff;
    int rtmFlags = p.getInt(8);
    Attributes a = Attributes.after(p, Rtnl.RTMSG_LEN);
    InetAddress dst = a.has(Rtnl.RTA_DST) ? a.address(Rtnl.RTA_DST) : zero(family);
    List<NextHop> hops = new ArrayList<>();
    if (a.has(Rtnl.RTA_MULTIPATH)) {
      ByteBuffer mp = a.slice(Rtnl.RTA_MULTIPATH);
      int pos = 0;
      while (pos + Rtnl.RTNH_LEN <= mp.limit()) {
        int len = mp.getShort(pos) & 0xffff;
        if (len < Rtnl.RTNH_LEN || pos + len > mp.limit()) {
          break;
        }
        int flags = mp.get(pos + 2) & 0xff;
        int weight = (mp.get(pos + 3) & 0xff) + 1;
        int index = mp.getInt(pos + 4);
        Attributes nh = Attributes.parse(mp.slice(pos + Rtnl.RTNH_LEN, len - Rtnl.RTNH_LEN));
        hops.add(new NextHop(gateway(nh), index, weight, BitFlag.decode(NextHopFlag.class, flags)));
        pos += (len + 3) & ~3;
      }
    } else {
      InetAddress gw = gateway(a);
      int oif = a.u32(Rtnl.RTA_OIF, 0);
      if (gw != null || oif != 0) {
        hops.add(new NextHop(gw, oif, 1, BitFlag.decode(NextHopFlag.class, rtmFlags & 0xff)));
      }
    }
    RouteType rt = RouteType.of(type);
    if (rt == RouteType.BLACKHOLE
        || rt == RouteType.UNREACHABLE
        || rt == RouteType.PROHIBIT
        || rt == RouteType.THROW) {
      hops.clear(); // IPv6 reports these on "dev lo" (net/ipv6/route.c), which says nothing about
      // them
    }
    return new Route(
        new IpPrefix(dst, dstLen),
        table(m),
        protocol,
        Scope.of(scope),
        rt,
        a.u32(Rtnl.RTA_PRIORITY, 0),
        a.address(Rtnl.RTA_PREFSRC),
        hops);
  }

  private static InetAddress gateway(Attributes a) {
    if (a.has(Rtnl.RTA_GATEWAY)) {
      return a.address(Rtnl.RTA_GATEWAY);
    }
    if (a.has(Rtnl.RTA_VIA)) {
      ByteBuffer via = a.slice(Rtnl.RTA_VIA);
      byte[] addr = new byte[via.limit() - 2];
      via.get(2, addr);
      return address(addr);
    }
    return null;
  }

  private static InetAddress zero(Family f) {
    return address(new byte[f.addressLength()]);
  }

  private static InetAddress address(byte[] b) {
    try {
      return InetAddress.getByAddress(b);
    } catch (UnknownHostException e) {
      throw new IllegalStateException("not an address: " + b.length + " bytes", e);
    }
  }
}
