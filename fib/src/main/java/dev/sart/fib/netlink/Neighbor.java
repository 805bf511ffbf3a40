package dev.sart.fib.netlink;

import dev.sart.net.Ip;
import java.net.InetAddress;
import java.util.Set;

/**
 * An ARP or NDP neighbour entry (RTM_NEWNEIGH: struct ndmsg and NDA_* in linux/neighbour.h).
 *
 * @param index the interface's index
 * @param address NDA_DST, the neighbour's IP address
 * @param mac NDA_LLADDR, or null while unresolved
 * @param state ndm_state
 * @param flags ndm_flags
 */
public record Neighbor(
    int index,
    InetAddress address,
    MacAddress mac,
    Set<NeighborState> state,
    Set<NeighborFlag> flags) {

  public Neighbor {
    state = BitFlag.copy(NeighborState.class, state);
    flags = BitFlag.copy(NeighborFlag.class, flags);
  }

  /** A permanent entry: {@code address} is at {@code mac} on link {@code index}. */
  public static Neighbor permanent(int index, InetAddress address, MacAddress mac) {
    return new Neighbor(index, address, mac, Set.of(NeighborState.PERMANENT), Set.of());
  }

  public Family family() {
    return Family.of(address);
  }

  String describe() {
    return "neighbour "
        + Ip.format(address)
        + (mac == null ? "" : " lladdr " + mac)
        + " dev #"
        + index;
  }
}
