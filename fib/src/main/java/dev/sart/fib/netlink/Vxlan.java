package dev.sart.fib.netlink;

import java.net.InetAddress;

/**
 * The configuration of a VXLAN link (IFLA_VXLAN_* in linux/if_link.h; RFC 7348).
 *
 * @param vni the VXLAN network identifier, 0..2^24-1
 * @param local the source address of the outer packets, or null
 * @param remote the unicast remote VTEP or the multicast group (IFLA_VXLAN_GROUP or _GROUP6), or
 *     null
 * @param port the UDP destination port (4789 is IANA's; the kernel's default when 0 is 8472)
 * @param underlay the index of the link the outer packets leave by (IFLA_VXLAN_LINK), or 0
 * @param learning whether the device learns remote MAC addresses from received packets
 */
public record Vxlan(
    int vni, InetAddress local, InetAddress remote, int port, int underlay, boolean learning) {
  /** IANA's VXLAN port (RFC 7348 §5). */
  public static final int IANA_PORT = 4789;

  public Vxlan {
    if (vni < 0 || vni >= 1 << 24) {
      throw new IllegalArgumentException("a VNI has 24 bits: " + vni);
    }
    if (port < 0 || port > 0xffff) {
      throw new IllegalArgumentException("port out of range: " + port);
    }
    if (local != null && remote != null && Family.of(local) != Family.of(remote)) {
      throw new IllegalArgumentException(
          "local " + local + " and remote " + remote + " differ in family");
    }
  }

  /** A VXLAN on IANA's port without learning, local address or underlay. */
  public static Vxlan of(int vni, InetAddress remote) {
    return new Vxlan(vni, null, remote, IANA_PORT, 0, false);
  }
}
