package dev.sart.agent.ipam;

import java.net.InetAddress;
import java.util.List;

/**
 * The addresses given to one attachment: at most one per family, from the blocks of one pool.
 *
 * @param attachment the container and interface
 * @param pool the AddressPool the addresses come from
 * @param addresses one IPv4 and/or one IPv6 address
 */
public record Allocation(Attachment attachment, String pool, List<InetAddress> addresses) {
  public Allocation {
    addresses = List.copyOf(addresses);
  }
}
