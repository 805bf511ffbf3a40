package dev.sart.bgp.server;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * RFC 5082 §3 on the listening socket: a classic BPF socket filter that drops segments from a GTSM
 * peer whose TTL (hop limit) is below the peer's minimum, and accepts everything else.
 *
 * <p>IP_MINTTL on an accepted connection comes too late: the SYN and the peer's first segments (its
 * OPEN) have been accepted by then. The listener's filter sees every segment, including the SYN,
 * and accepted connections inherit it. The filter reads the IP header at {@code SKF_NET_OFF} (the
 * socket sees IPv4 and IPv6 packets: the listener is a dual-stack {@code [::]}).
 */
final class GtsmFilter {
  private static final int NET = -0x100000; // SKF_NET_OFF
  private static final int LD_W_ABS = 0x20;
  private static final int LD_B_ABS = 0x30;
  private static final int RSH_K = 0x74;
  private static final int JA = 0x05;
  private static final int JEQ_K = 0x15;
  private static final int JGE_K = 0x35;
  private static final int RET_K = 0x06;
  private static final int ACCEPT = 0xffff_ffff;
  private static final int DROP = 0;

  private GtsmFilter() {}

  private record Insn(int code, int jt, int jf, int k) {}

  /**
   * The program for these peers, as {@code struct sock_filter[]} (8 octets each, host order).
   *
   * @param minTtl per GTSM peer address, the lowest TTL / hop limit it may arrive with
   */
  static ByteBuffer program(Map<InetAddress, Integer> minTtl) {
    List<Insn> v4 = new ArrayList<>();
    List<Insn> v6 = new ArrayList<>();
    minTtl.forEach(
        (address, min) -> {
          byte[] a = address.getAddress();
          ByteBuffer b = ByteBuffer.wrap(a);
          if (address instanceof Inet4Address) {
            v4.add(new Insn(JEQ_K, 0, 4, b.getInt()));
            v4.add(new Insn(LD_B_ABS, 0, 0, NET + 8)); // IPv4 TTL
          } else {
            for (int w = 0; w < 4; w++) {
              v6.add(new Insn(LD_W_ABS, 0, 0, NET + 8 + 4 * w)); // IPv6 source address
              v6.add(new Insn(JEQ_K, 0, 12 - 2 * w - 2, b.getInt()));
            }
            v6.add(new Insn(LD_B_ABS, 0, 0, NET + 7)); // IPv6 hop limit
          }
          List<Insn> to = address instanceof Inet4Address ? v4 : v6;
          to.add(new Insn(JGE_K, 0, 1, min));
          to.add(new Insn(RET_K, 0, 0, ACCEPT));
          to.add(new Insn(RET_K, 0, 0, DROP));
          if (address instanceof Inet4Address) {
            // the source address is what A holds again for the next peer
            to.add(new Insn(LD_W_ABS, 0, 0, NET + 12));
          }
        });
    List<Insn> p = new ArrayList<>();
    p.add(new Insn(LD_B_ABS, 0, 0, NET)); // version and IHL
    p.add(new Insn(RSH_K, 0, 0, 4));
    p.add(new Insn(JEQ_K, 1, 0, 4));
    p.add(new Insn(JA, 0, 0, v4.size() + 2)); // to the IPv6 part
    p.add(new Insn(LD_W_ABS, 0, 0, NET + 12)); // IPv4 source address
    p.addAll(v4);
    p.add(new Insn(RET_K, 0, 0, ACCEPT));
    p.addAll(v6);
    p.add(new Insn(RET_K, 0, 0, ACCEPT));
    ByteBuffer out = ByteBuffer.allocate(8 * p.size()).order(ByteOrder.nativeOrder());
    for (Insn i : p) {
      out.putShort((short) i.code()).put((byte) i.jt()).put((byte) i.jf()).putInt(i.k());
    }
    return out.flip();
  }

  /**
   * RFC 5881 §5 on the BFD receive socket: accept only packets that arrive with a TTL (hop limit)
   * of 255, i.e. from a directly connected system; everything else is dropped before it is read.
   */
  static ByteBuffer exactly255() {
    List<Insn> p = new ArrayList<>();
    p.add(new Insn(LD_B_ABS, 0, 0, NET)); // version and IHL
    p.add(new Insn(RSH_K, 0, 0, 4));
    p.add(new Insn(JEQ_K, 0, 3, 4));
    p.add(new Insn(LD_B_ABS, 0, 0, NET + 8)); // IPv4 TTL
    p.add(new Insn(JEQ_K, 3, 4, 255));
    p.add(new Insn(RET_K, 0, 0, DROP)); // not reached
    p.add(new Insn(LD_B_ABS, 0, 0, NET + 7)); // IPv6 hop limit
    p.add(new Insn(JEQ_K, 0, 1, 255));
    p.add(new Insn(RET_K, 0, 0, ACCEPT));
    p.add(new Insn(RET_K, 0, 0, DROP));
    ByteBuffer out = ByteBuffer.allocate(8 * p.size()).order(ByteOrder.nativeOrder());
    for (Insn i : p) {
      out.putShort((short) i.code()).put((byte) i.jt()).put((byte) i.jf()).putInt(i.k());
    }
    return out.flip();
  }
}
