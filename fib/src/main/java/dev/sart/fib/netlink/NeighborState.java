package dev.sart.fib.netlink;

/** Neighbour cache states: NUD_* in linux/neighbour.h (ndm_state). */
public enum NeighborState implements BitFlag {
  INCOMPLETE(0x01),
  REACHABLE(0x02),
  STALE(0x04),
  DELAY(0x08),
  PROBE(0x10),
  FAILED(0x20),
  NOARP(0x40),
  /** Configured, never expires or changes. */
  PERMANENT(0x80);

  private final int bit;

  NeighborState(int bit) {
    this.bit = bit;
  }

  @Override
  public int bit() {
    return bit;
  }
}
