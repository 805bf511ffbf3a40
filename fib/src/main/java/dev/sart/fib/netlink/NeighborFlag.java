package dev.sart.fib.netlink;

/** Neighbour entry flags: NTF_* in linux/neighbour.h (ndm_flags). */
public enum NeighborFlag implements BitFlag {
  USE(0x01),
  SELF(0x02),
  MASTER(0x04),
  PROXY(0x08),
  EXT_LEARNED(0x10),
  OFFLOADED(0x20),
  STICKY(0x40),
  /** The neighbour is an IPv6 router. */
  ROUTER(0x80);

  private final int bit;

  NeighborFlag(int bit) {
    this.bit = bit;
  }

  @Override
  public int bit() {
    return bit;
  }
}
