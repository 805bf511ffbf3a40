package dev.sart.testbed;

import dev.sart.net.IpPrefix;

/** The address families the routers exchange in these tests (AFI/SAFI per RFC 4760). */
public enum Family {
  IPV4_UNICAST(1, 1),
  IPV6_UNICAST(2, 1);

  private final int afi;
  private final int safi;

  Family(int afi, int safi) {
    this.afi = afi;
    this.safi = safi;
  }

  public int afi() {
    return afi;
  }

  public int safi() {
    return safi;
  }

  public boolean isIpv4() {
    return this == IPV4_UNICAST;
  }

  /** The unicast family of a prefix. */
  public static Family of(IpPrefix prefix) {
    return prefix.isIpv4() ? IPV4_UNICAST : IPV6_UNICAST;
  }
}
