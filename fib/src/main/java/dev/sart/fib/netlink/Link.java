package dev.sart.fib.netlink;

import java.util.Set;

/**
 * A network interface as the kernel reports it (RTM_NEWLINK: struct ifinfomsg and IFLA_*).
 *
 * @param index the interface index
 * @param name IFLA_IFNAME
 * @param kind IFLA_INFO_KIND ("veth", "bridge", "vxlan"), or "" for a device without one (lo)
 * @param flags ifi_flags
 * @param operState IFLA_OPERSTATE
 * @param mtu IFLA_MTU
 * @param mac IFLA_ADDRESS when it is a 48-bit MAC address, else null
 * @param alias IFLA_IFALIAS, or null when none is set
 * @param masterIndex IFLA_MASTER (the bridge a port belongs to), or 0
 * @param linkIndex IFLA_LINK (a veth's peer, possibly in another namespace), or 0
 * @param vxlan the VXLAN configuration when {@code kind} is "vxlan", else null
 */
public record Link(
    int index,
    String name,
    String kind,
    Set<LinkFlag> flags,
    OperState operState,
    int mtu,
    MacAddress mac,
    String alias,
    int masterIndex,
    int linkIndex,
    Vxlan vxlan) {

  public Link {
    flags = BitFlag.copy(LinkFlag.class, flags);
  }

  /** Administratively up (IFF_UP). */
  public boolean isUp() {
    return flags.contains(LinkFlag.UP);
  }
}
