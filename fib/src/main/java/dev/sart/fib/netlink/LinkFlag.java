package dev.sart.fib.netlink;

/** Interface flags: enum net_device_flags in linux/if.h (ifi_flags). */
public enum LinkFlag implements BitFlag {
  UP(1),
  BROADCAST(1 << 1),
  DEBUG(1 << 2),
  LOOPBACK(1 << 3),
  POINTOPOINT(1 << 4),
  NOTRAILERS(1 << 5),
  RUNNING(1 << 6),
  NOARP(1 << 7),
  PROMISC(1 << 8),
  ALLMULTI(1 << 9),
  MASTER(1 << 10),
  SLAVE(1 << 11),
  MULTICAST(1 << 12),
  PORTSEL(1 << 13),
  AUTOMEDIA(1 << 14),
  DYNAMIC(1 << 15),
  LOWER_UP(1 << 16),
  DORMANT(1 << 17),
  ECHO(1 << 18);

  private final int bit;

  LinkFlag(int bit) {
    this.bit = bit;
  }

  @Override
  public int bit() {
    return bit;
  }
}
