package dev.sart.fib.netlink;

import java.net.InetAddress;

/**
 * A forwarding-database entry of a VXLAN device ({@code bridge fdb ... self}; RTM_NEWNEIGH with
 * family AF_BRIDGE, NTF_SELF): frames to {@code mac} go to the remote VTEP {@code dst} (RFC 7348
 * §4.1).
 *
 * @param index the VXLAN device's index
 * @param mac NDA_LLADDR
 * @param dst NDA_DST, the remote VTEP's address, or null (an entry with no remote)
 */
public record FdbEntry(int index, MacAddress mac, InetAddress dst) {}
