package dev.sart.fib.netlink;

/** Address flags: IFA_F_* in linux/if_addr.h (ifa_flags and the u32 IFA_FLAGS). */
public enum AddressFlag implements BitFlag {
  SECONDARY(0x01),
  /** No duplicate address detection (IPv6): the address is usable at once. */
  NODAD(0x02),
  OPTIMISTIC(0x04),
  DADFAILED(0x08),
  HOMEADDRESS(0x10),
  DEPRECATED(0x20),
  TENTATIVE(0x40),
  PERMANENT(0x80),
  MANAGETEMPADDR(0x100),
  /** No prefix route for the address's subnet. */
  NOPREFIXROUTE(0x200),
  MCAUTOJOIN(0x400),
  STABLE_PRIVACY(0x800);

  private final int bit;

  AddressFlag(int bit) {
    this.bit = bit;
  }

  @Override
  public int bit() {
    return bit;
  }
}
