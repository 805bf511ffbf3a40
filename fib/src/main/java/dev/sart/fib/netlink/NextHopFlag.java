package dev.sart.fib.netlink;

/**
 * Flags of a next hop: RTNH_F_* in linux/rtnetlink.h (rtnh_flags, and rtm_flags of a single-path
 * route).
 */
public enum NextHopFlag implements BitFlag {
  DEAD(Rtnl.RTNH_F_DEAD),
  PERVASIVE(Rtnl.RTNH_F_PERVASIVE),
  /** The gateway is on the link even if no address's subnet says so. */
  ONLINK(Rtnl.RTNH_F_ONLINK),
  OFFLOAD(Rtnl.RTNH_F_OFFLOAD),
  /** The kernel sets it while the link's carrier is down. */
  LINKDOWN(Rtnl.RTNH_F_LINKDOWN),
  UNRESOLVED(Rtnl.RTNH_F_UNRESOLVED),
  TRAP(Rtnl.RTNH_F_TRAP);

  private final int bit;

  NextHopFlag(int bit) {
    this.bit = bit;
  }

  @Override
  public int bit() {
    return bit;
  }
}
