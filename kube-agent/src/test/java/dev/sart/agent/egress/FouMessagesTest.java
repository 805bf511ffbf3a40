package dev.sart.agent.egress;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The FoU messages against the kernel's documented numbers (linux/netlink.h, genetlink.h, fou.h,
 * rtnetlink.h, if_link.h, if_tunnel.h), read back by a walker written here from those headers, not
 * by the encoder's code; plus golden bytes of two messages (x86-64, little-endian host order).
 */
class FouMessagesTest {
  /** The attributes of one nesting level: type (NLA_F_NESTED cleared) → value. */
  private static Map<Integer, byte[]> attributes(ByteBuffer b, int from, int to) {
    var out = new LinkedHashMap<Integer, byte[]>();
    int p = from;
    while (p < to) {
      int len = b.getShort(p) & 0xffff;
      int type = b.getShort(p + 2) & 0x3fff;
      var value = new byte[len - 4];
      b.get(p + 4, value);
      out.put(type, value);
      p += (len + 3) & ~3;
    }
    assertEquals(to, p, "attributes end where the message ends");
    return out;
  }

  private static ByteBuffer le(byte[] m) {
    return ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN);
  }

  @Test
  void getFamilyAsksTheControllerForFou() {
    byte[] m = FouMessages.getFamily(7);
    var b = le(m);
    assertEquals(m.length, b.getInt(0), "nlmsg_len");
    assertEquals(0x10, b.getShort(4), "GENL_ID_CTRL");
    assertEquals(0x01 | 0x04, b.getShort(6), "NLM_F_REQUEST | NLM_F_ACK");
    assertEquals(7, b.getInt(8));
    assertEquals(3, m[16], "CTRL_CMD_GETFAMILY");
    var a = attributes(b, 20, m.length);
    assertArrayEquals("fou\0".getBytes(), a.get(2), "CTRL_ATTR_FAMILY_NAME");
    assertEquals(
        "1c000000100005000700000000000000030100000800020066 6f7500".replace(" ", ""),
        HexFormat.of().formatHex(m));
  }

  @Test
  void fouAddListensForIpipOnThePortInNetworkOrder() {
    byte[] m = FouMessages.fouAdd(0x1b, 1, 5555, false, FouMessages.IPPROTO_IPIP);
    var b = le(m);
    assertEquals(0x1b, b.getShort(4), "the fou family's id");
    assertEquals(1, m[16], "FOU_CMD_ADD");
    assertEquals(1, m[17], "FOU_GENL_VERSION");
    var a = attributes(b, 20, m.length);
    assertArrayEquals(new byte[] {0x15, (byte) 0xb3}, a.get(1), "FOU_ATTR_PORT 5555, big-endian");
    assertArrayEquals(new byte[] {2}, a.get(2), "FOU_ATTR_AF AF_INET");
    assertArrayEquals(new byte[] {4}, a.get(3), "FOU_ATTR_IPPROTO IPIP");
    assertArrayEquals(new byte[] {1}, a.get(4), "FOU_ATTR_TYPE FOU_ENCAP_DIRECT");
    assertEquals(
        "34000000"
            + "1b00"
            + "0500"
            + "01000000"
            + "00000000"
            + "01010000"
            + "0600010015b30000"
            + "0500020002000000"
            + "0500030004000000"
            + "0500040001000000",
        HexFormat.of().formatHex(m));
    // IPv6: AF_INET6 and IPPROTO_IPV6
    byte[] m6 = FouMessages.fouAdd(0x1b, 2, 5555, true, 41);
    var v6 = attributes(le(m6), 20, m6.length);
    assertArrayEquals(new byte[] {10}, v6.get(2));
    assertArrayEquals(new byte[] {41}, v6.get(3));
  }

  @Test
  void anIpipLinkWithFouEncapsulationAsCoilMakesIt() throws Exception {
    byte[] m =
        FouMessages.tunnelLink(
            3,
            "fou4_c0000264",
            InetAddress.getByName("203.0.113.10"),
            InetAddress.getByName("192.0.2.100"),
            2,
            0,
            5555,
            false);
    var b = le(m);
    assertEquals(16, b.getShort(4), "RTM_NEWLINK");
    assertEquals(0x01 | 0x04 | 0x400 | 0x200, b.getShort(6), "REQUEST|ACK|CREATE|EXCL");
    var top = attributes(b, 32, m.length); // after nlmsghdr (16) and ifinfomsg (16)
    assertArrayEquals("fou4_c0000264\0".getBytes(), top.get(3), "IFLA_IFNAME");
    var info = le(top.get(18)); // IFLA_LINKINFO
    var linkinfo = attributes(info, 0, top.get(18).length);
    assertArrayEquals("ipip\0".getBytes(), linkinfo.get(1), "IFLA_INFO_KIND");
    var data = attributes(le(linkinfo.get(2)), 0, linkinfo.get(2).length); // IFLA_INFO_DATA
    assertEquals(2, le(data.get(1)).getInt(0), "IFLA_IPTUN_LINK");
    assertArrayEquals(
        InetAddress.getByName("203.0.113.10").getAddress(), data.get(2), "IFLA_IPTUN_LOCAL");
    assertArrayEquals(
        InetAddress.getByName("192.0.2.100").getAddress(), data.get(3), "IFLA_IPTUN_REMOTE");
    assertArrayEquals(new byte[] {(byte) 225}, data.get(4), "IFLA_IPTUN_TTL");
    assertEquals(1, le(data.get(15)).getShort(0), "IFLA_IPTUN_ENCAP_TYPE TUNNEL_ENCAP_FOU");
    assertEquals(0, le(data.get(16)).getShort(0), "IFLA_IPTUN_ENCAP_FLAGS");
    assertArrayEquals(new byte[] {0, 0}, data.get(17), "IFLA_IPTUN_ENCAP_SPORT auto");
    assertArrayEquals(new byte[] {0x15, (byte) 0xb3}, data.get(18), "IFLA_IPTUN_ENCAP_DPORT 5555");
    assertTrue(!data.containsKey(9), "no IFLA_IPTUN_PROTO for ipip");
    // IFLA_LINKINFO and IFLA_INFO_DATA carry NLA_F_NESTED
    int linkinfoAt = 32 + 20; // after IFLA_IFNAME (4 + 14 bytes, padded to 20)
    assertEquals(0x8000 | 18, b.getShort(linkinfoAt + 2) & 0xffff);
  }

  @Test
  void anIp6ip6LinkAndTheFlowBasedReceiver() throws Exception {
    byte[] v6 =
        FouMessages.tunnelLink(
            4,
            "fou6_x",
            InetAddress.getByName("fd00::10"),
            InetAddress.getByName("fd00::100"),
            0,
            5555,
            5555,
            false);
    var top = attributes(le(v6), 32, v6.length);
    var linkinfo = attributes(le(top.get(18)), 0, top.get(18).length);
    assertArrayEquals("ip6tnl\0".getBytes(), linkinfo.get(1));
    var data = attributes(le(linkinfo.get(2)), 0, linkinfo.get(2).length);
    assertArrayEquals(new byte[] {41}, data.get(9), "IFLA_IPTUN_PROTO IPPROTO_IPV6: ip6ip6");
    assertEquals(16, data.get(2).length, "an IPv6 local address");
    assertArrayEquals(new byte[] {0x15, (byte) 0xb3}, data.get(17), "a fixed source port");

    byte[] rx = FouMessages.tunnelLink(5, "fou4rx", null, null, 0, 0, 5555, true);
    var rxTop = attributes(le(rx), 32, rx.length);
    var rxInfo = attributes(le(rxTop.get(18)), 0, rxTop.get(18).length);
    var rxData = attributes(le(rxInfo.get(2)), 0, rxInfo.get(2).length);
    assertArrayEquals(new byte[0], rxData.get(19), "IFLA_IPTUN_COLLECT_METADATA (a flag)");
    assertTrue(!rxData.containsKey(2) && !rxData.containsKey(3), "no local, no remote");
  }

  @Test
  void fouDelNamesTheReceiverByPortFamilyAndProtocol() {
    // linux/fou.h: FOU_CMD_DEL = 2; the same attributes as FOU_CMD_ADD (fou_core.c parse_nl_config)
    byte[] m = FouMessages.fouDel(0x1b, 9, 5555, true, FouMessages.IPPROTO_IPV6);
    assertEquals(
        "34000000"
            + "1b00"
            + "0500"
            + "09000000"
            + "00000000"
            + "02010000"
            + "0600010015b30000"
            + "050002000a000000"
            + "0500030029000000"
            + "0500040001000000",
        HexFormat.of().formatHex(m));
  }

  @Test
  void theIpv6FlowBasedReceiverIsAnIp6tnlWithCollectMetadata() {
    byte[] m = FouMessages.receiverLink(6, "fou6rx", true, 5555);
    var top = attributes(le(m), 32, m.length);
    assertArrayEquals("fou6rx\0".getBytes(), top.get(3), "IFLA_IFNAME");
    var linkinfo = attributes(le(top.get(18)), 0, top.get(18).length);
    assertArrayEquals("ip6tnl\0".getBytes(), linkinfo.get(1), "IFLA_INFO_KIND");
    var data = attributes(le(linkinfo.get(2)), 0, linkinfo.get(2).length);
    assertArrayEquals(new byte[0], data.get(19), "IFLA_IPTUN_COLLECT_METADATA");
    assertArrayEquals(new byte[] {41}, data.get(9), "IFLA_IPTUN_PROTO IPPROTO_IPV6");
    assertEquals(1, le(data.get(15)).getShort(0), "IFLA_IPTUN_ENCAP_TYPE TUNNEL_ENCAP_FOU");
    assertArrayEquals(new byte[] {0x15, (byte) 0xb3}, data.get(18), "IFLA_IPTUN_ENCAP_DPORT");
    assertEquals(
        List.of(19, 9, 15, 16, 17, 18), List.copyOf(data.keySet()), "no local, remote, ttl");
    byte[] v4 = FouMessages.receiverLink(7, "fou4rx", false, 5555);
    var info4 =
        attributes(
            le(attributes(le(v4), 32, v4.length).get(18)),
            0,
            0 + attributes(le(v4), 32, v4.length).get(18).length);
    assertArrayEquals("ipip\0".getBytes(), info4.get(1));
  }
}
