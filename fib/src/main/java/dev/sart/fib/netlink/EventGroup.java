package dev.sart.fib.netlink;

/**
 * The rtnetlink multicast groups an {@link EventStream} can join: enum rtnetlink_groups in
 * linux/rtnetlink.h.
 */
public enum EventGroup {
  LINK(Rtnl.RTNLGRP_LINK),
  IPV4_ADDRESS(Rtnl.RTNLGRP_IPV4_IFADDR),
  IPV6_ADDRESS(Rtnl.RTNLGRP_IPV6_IFADDR),
  IPV4_ROUTE(Rtnl.RTNLGRP_IPV4_ROUTE),
  IPV6_ROUTE(Rtnl.RTNLGRP_IPV6_ROUTE),
  NEIGHBOR(Rtnl.RTNLGRP_NEIGH),
  IPV4_RULE(Rtnl.RTNLGRP_IPV4_RULE),
  IPV6_RULE(Rtnl.RTNLGRP_IPV6_RULE);

  private final int group;

  EventGroup(int group) {
    this.group = group;
  }

  /** The RTNLGRP_* number. */
  public int group() {
    return group;
  }
}
