package dev.sart.agent.egress;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * The netlink messages of coil's FoU tunnels (its egress article: "How Foo over UDP tunnel works"),
 * built byte for byte from the kernel's documented attributes; {@link Fou} sends them. The test
 * kernel has neither {@code fou} nor {@code ipip}, so they are checked against the headers' numbers
 * in {@code FouMessagesTest}.
 *
 * <ul>
 *   <li>{@link #getFamily}: the generic netlink controller's CTRL_CMD_GETFAMILY for "fou" (its
 *       family id is dynamic; linux/genetlink.h);
 *   <li>{@link #fouAdd}, {@link #fouDel}: {@code ip fou add|del port P ipproto 4|41} (FOU_CMD_ADD,
 *       FOU_CMD_DEL, linux/fou.h);
 *   <li>{@link #tunnelLink}: {@code ip link add NAME type ipip|ip6tnl remote R local L ttl 225
 *       encap fou encap-sport auto|S encap-dport P} (RTM_NEWLINK with IFLA_IPTUN_* of
 *       linux/if_tunnel.h), or with {@code external} (IFLA_IPTUN_COLLECT_METADATA), coil's
 *       flow-based receiver for replies from a gateway's own address.
 * </ul>
 */
public final class FouMessages {
  private FouMessages() {}

  // linux/netlink.h
  static final int NLM_F_REQUEST = 0x01;
  static final int NLM_F_ACK = 0x04;
  static final int NLM_F_EXCL = 0x200;
  static final int NLM_F_CREATE = 0x400;

  // linux/genetlink.h
  static final int GENL_ID_CTRL = 0x10;
  static final int CTRL_CMD_GETFAMILY = 3;
  static final int CTRL_ATTR_FAMILY_NAME = 2;

  // linux/fou.h
  static final String FOU_GENL_NAME = "fou";
  static final int FOU_GENL_VERSION = 1;
  static final int FOU_CMD_ADD = 1;
  static final int FOU_CMD_DEL = 2;
  static final int FOU_ATTR_PORT = 1;
  static final int FOU_ATTR_AF = 2;
  static final int FOU_ATTR_IPPROTO = 3;
  static final int FOU_ATTR_TYPE = 4;
  static final int FOU_ENCAP_DIRECT = 1;

  // linux/rtnetlink.h, linux/if_link.h
  static final int RTM_NEWLINK = 16;
  static final int IFLA_IFNAME = 3;
  static final int IFLA_LINKINFO = 18;
  static final int IFLA_INFO_KIND = 1;
  static final int IFLA_INFO_DATA = 2;

  // linux/if_tunnel.h
  static final int IFLA_IPTUN_LINK = 1;
  static final int IFLA_IPTUN_LOCAL = 2;
  static final int IFLA_IPTUN_REMOTE = 3;
  static final int IFLA_IPTUN_TTL = 4;
  static final int IFLA_IPTUN_PROTO = 9;
  static final int IFLA_IPTUN_ENCAP_TYPE = 15;
  static final int IFLA_IPTUN_ENCAP_FLAGS = 16;
  static final int IFLA_IPTUN_ENCAP_SPORT = 17;
  static final int IFLA_IPTUN_ENCAP_DPORT = 18;
  static final int IFLA_IPTUN_COLLECT_METADATA = 19;
  static final int TUNNEL_ENCAP_FOU = 1;

  static final int AF_INET = 2;
  static final int AF_INET6 = 10;

  /** IPPROTO_IPIP (RFC 2003) and IPPROTO_IPV6 (RFC 2473): what FoU carries. */
  public static final int IPPROTO_IPIP = 4;

  public static final int IPPROTO_IPV6 = 41;

  /** coil's TTL of the outer header. */
  public static final int TTL = 225;

  /** CTRL_CMD_GETFAMILY for "fou": the answer's CTRL_ATTR_FAMILY_ID is the fou family's id. */
  public static byte[] getFamily(int seq) {
    return message(
        GENL_ID_CTRL,
        NLM_F_REQUEST | NLM_F_ACK,
        seq,
        b -> {
          genl(b, CTRL_CMD_GETFAMILY, 1);
          attr(
              b, CTRL_ATTR_FAMILY_NAME, (FOU_GENL_NAME + "\0").getBytes(StandardCharsets.US_ASCII));
        });
  }

  /**
   * FOU_CMD_ADD: a FoU receiver on UDP {@code port} for {@code ipproto} (4 or 41) packets of {@code
   * family} (AF_INET for an IPv4 listener, AF_INET6).
   */
  public static byte[] fouAdd(int familyId, int seq, int port, boolean ipv6, int ipproto) {
    return fou(FOU_CMD_ADD, familyId, seq, port, ipv6, ipproto);
  }

  /**
   * FOU_CMD_DEL: {@code ip fou del port P [-6]}; the kernel finds the receiver by port, family and
   * protocol (net/ipv4/fou_core.c, parse_nl_config), so the message carries the same attributes.
   */
  public static byte[] fouDel(int familyId, int seq, int port, boolean ipv6, int ipproto) {
    return fou(FOU_CMD_DEL, familyId, seq, port, ipv6, ipproto);
  }

  private static byte[] fou(int cmd, int familyId, int seq, int port, boolean ipv6, int ipproto) {
    return message(
        familyId,
        NLM_F_REQUEST | NLM_F_ACK,
        seq,
        b -> {
          genl(b, cmd, FOU_GENL_VERSION);
          attr(b, FOU_ATTR_PORT, be16(port));
          attr(b, FOU_ATTR_AF, new byte[] {(byte) (ipv6 ? AF_INET6 : AF_INET)});
          attr(b, FOU_ATTR_IPPROTO, new byte[] {(byte) ipproto});
          attr(b, FOU_ATTR_TYPE, new byte[] {(byte) FOU_ENCAP_DIRECT});
        });
  }

  /**
   * RTM_NEWLINK of an {@code ipip} (IPv4) or {@code ip6tnl} mode ip6ip6 (IPv6) link with FoU
   * encapsulation.
   *
   * @param sourcePort the outer UDP source port, 0 for {@code encap-sport auto} (from the flow's
   *     hash: coil's {@code fouSourcePortAuto})
   * @param external a flow-based receiver (no local/remote, IFLA_IPTUN_COLLECT_METADATA)
   */
  public static byte[] tunnelLink(
      int seq,
      String name,
      InetAddress local,
      InetAddress remote,
      int underlay,
      int sourcePort,
      int port,
      boolean external) {
    return tunnelLink(
        seq,
        name,
        (local != null ? local : remote) instanceof Inet6Address,
        local,
        remote,
        underlay,
        sourcePort,
        port,
        external);
  }

  /**
   * The flow-based receiver {@code ip link add NAME type ipip|ip6tnl external encap fou encap-dport
   * P}: takes the decapsulated packets no link with matching addresses takes.
   */
  public static byte[] receiverLink(int seq, String name, boolean ipv6, int port) {
    return tunnelLink(seq, name, ipv6, null, null, 0, 0, port, true);
  }

  private static byte[] tunnelLink(
      int seq,
      String name,
      boolean v6,
      InetAddress local,
      InetAddress remote,
      int underlay,
      int sourcePort,
      int port,
      boolean external) {
    if (local != null && remote != null && (local instanceof Inet4Address) == v6) {
      throw new IllegalArgumentException("local and remote differ in family");
    }
    return message(
        RTM_NEWLINK,
        NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL,
        seq,
        b -> {
          // struct ifinfomsg: family u8, pad u8, type u16, index s32, flags u32, change u32
          b.put((byte) 0).put((byte) 0).putShort((short) 0).putInt(0).putInt(0).putInt(0);
          attr(b, IFLA_IFNAME, (name + "\0").getBytes(StandardCharsets.US_ASCII));
          nested(
              b,
              IFLA_LINKINFO,
              info -> {
                attr(
                    info,
                    IFLA_INFO_KIND,
                    ((v6 ? "ip6tnl" : "ipip") + "\0").getBytes(StandardCharsets.US_ASCII));
                nested(
                    info,
                    IFLA_INFO_DATA,
                    d -> {
                      if (external) {
                        attr(d, IFLA_IPTUN_COLLECT_METADATA, new byte[0]);
                      } else {
                        if (underlay != 0) {
                          attr(d, IFLA_IPTUN_LINK, le32(underlay));
                        }
                        if (local != null) {
                          attr(d, IFLA_IPTUN_LOCAL, local.getAddress());
                        }
                        if (remote != null) {
                          attr(d, IFLA_IPTUN_REMOTE, remote.getAddress());
                        }
                        attr(d, IFLA_IPTUN_TTL, new byte[] {(byte) TTL});
                      }
                      if (v6) {
                        attr(d, IFLA_IPTUN_PROTO, new byte[] {(byte) IPPROTO_IPV6});
                      }
                      attr(d, IFLA_IPTUN_ENCAP_TYPE, le16(TUNNEL_ENCAP_FOU));
                      attr(d, IFLA_IPTUN_ENCAP_FLAGS, le16(0));
                      attr(d, IFLA_IPTUN_ENCAP_SPORT, be16(sourcePort));
                      attr(d, IFLA_IPTUN_ENCAP_DPORT, be16(port));
                    });
              });
        });
  }

  private static byte[] message(int type, int flags, int seq, Consumer<ByteBuffer> body) {
    var b = ByteBuffer.allocate(4096).order(ByteOrder.nativeOrder());
    b.position(16);
    body.accept(b);
    int len = b.position();
    b.putInt(0, len)
        .putShort(4, (short) type)
        .putShort(6, (short) flags)
        .putInt(8, seq)
        .putInt(12, 0);
    var out = new byte[len];
    b.get(0, out);
    return out;
  }

  /** struct genlmsghdr: cmd u8, version u8, reserved u16. */
  private static void genl(ByteBuffer b, int cmd, int version) {
    b.put((byte) cmd).put((byte) version).putShort((short) 0);
  }

  /** struct nlattr: len u16 (header included), type u16, the value, padded to 4 bytes. */
  private static void attr(ByteBuffer b, int type, byte[] value) {
    b.putShort((short) (4 + value.length)).putShort((short) type).put(value);
    pad(b);
  }

  private static void nested(ByteBuffer b, int type, Consumer<ByteBuffer> inner) {
    int start = b.position();
    b.putShort((short) 0).putShort((short) (type | 0x8000)); // NLA_F_NESTED
    inner.accept(b);
    b.putShort(start, (short) (b.position() - start));
  }

  private static void pad(ByteBuffer b) {
    while (b.position() % 4 != 0) {
      b.put((byte) 0);
    }
  }

  private static byte[] be16(int v) {
    return new byte[] {(byte) (v >> 8), (byte) v};
  }

  private static byte[] le16(int v) {
    return ByteBuffer.allocate(2).order(ByteOrder.nativeOrder()).putShort((short) v).array();
  }

  private static byte[] le32(int v) {
    return ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(v).array();
  }
}
