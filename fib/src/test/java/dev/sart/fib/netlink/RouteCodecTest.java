package dev.sart.fib.netlink;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Golden bytes of route messages, in both directions. */
class RouteCodecTest {
  private static final HexFormat HEX = HexFormat.of();

  private static String encode(Route r, boolean delete) {
    MessageWriter w = new MessageWriter();
    RouteCodec.write(w, r, delete);
    ByteBuffer b = w.written();
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return HEX.formatHex(out);
  }

  private static Route decode(String hex) {
    ByteBuffer payload = ByteBuffer.wrap(HEX.parseHex(hex)).order(ByteOrder.nativeOrder());
    return RouteCodec.parse(new Message(Rtnl.RTM_NEWROUTE, 0, 0, 0, payload));
  }

  // ECMP in table 1000 with a weighted IPv4 next hop and an IPv6 one (RTA_VIA, RFC 5549)
  private static final Route ECMP =
      Route.of("198.51.100.0/24")
          .table(1000)
          .protocol(Rtnl.RTPROT_BGP)
          .metric(20)
          .nextHops(List.of(NextHop.via("192.0.2.1", 3).withWeight(2), NextHop.via("fd00::1", 3)))
          .build();
  private static final String ECMP_BYTES =
      ""
          // struct rtmsg: AF_INET, /24, src 0, tos 0, table 0 (in RTA_TABLE), proto 186, universe,
          // unicast, flags 0
          + "02180000"
          + "00ba0001"
          + "00000000"
          + "08000f00"
          + "e8030000" // RTA_TABLE 1000
          + "08000100"
          + "c6336400" // RTA_DST 198.51.100.0
          + "08000600"
          + "14000000" // RTA_PRIORITY 20
          + "34000900" // RTA_MULTIPATH, 52 bytes
          + "1000"
          + "00"
          + "01"
          + "03000000" //   rtnexthop len 16, flags 0, hops 1 (weight 2), ifindex 3
          + "08000500"
          + "c0000201" //     RTA_GATEWAY 192.0.2.1
          + "2000"
          + "00"
          + "00"
          + "03000000" //   rtnexthop len 32, weight 1, ifindex 3
          + "16001200"
          + "0a00" //     RTA_VIA, struct rtvia: AF_INET6
          + "fd000000000000000000000000000001"
          + "0000";

  @Test
  void multipathRouteWithAnIpv6NextHop() {
    assertEquals(ECMP_BYTES, encode(ECMP, false));
    assertEquals(ECMP, decode(ECMP_BYTES));
  }

  @Test
  void singlePathOnlinkRouteInASmallTable() {
    Route r =
        Route.of("203.0.113.0/25").table(120).nextHop(NextHop.onlink("198.51.100.9", 4)).build();
    String bytes =
        "02190000"
            + "78030001"
            + "04000000" // table 120 in rtm_table too; rtm_flags RTNH_F_ONLINK
            + "08000f00"
            + "78000000"
            + "08000100"
            + "cb007100"
            + "08000500"
            + "c6336409" // RTA_GATEWAY
            + "08000400"
            + "04000000"; // RTA_OIF 4
    assertEquals(bytes, encode(r, false));
    assertEquals(r, decode(bytes));
  }

  @Test
  void aDeleteMatchesAnyScope() {
    Route r = Route.of("192.0.2.0/24").type(RouteType.BLACKHOLE).build();
    assertEquals(
        "02180000" + "fe03ff06" + "00000000" + "08000f00" + "fe000000" + "08000100" + "c0000200",
        encode(r, true));
  }

  @Test
  void ipv6RejectRoutesLoseTheLoopbackTheKernelPutsOnThem() {
    String bytes =
        "0a300000"
            + "fe030006"
            + "00000000"
            + "08000f00"
            + "fe000000"
            + "14000100"
            + "20010db8000000000000000000000000"
            + "08000600"
            + "00040000"
            + "08000400"
            + "01000000"; // RTA_OIF lo
    assertEquals(Route.of("2001:db8::/48").type(RouteType.BLACKHOLE).build(), decode(bytes));
  }
}
