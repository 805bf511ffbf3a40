package dev.sart.fib.netlink;

/**
 * The numbers of the Linux rtnetlink ABI, named as in the kernel's UAPI headers so that a reader
 * can grep for them there. Closed code sets the library exposes are also enums ({@link RouteType},
 * {@link Scope}, ...), whose codes come from here.
 */
public final class Rtnl {
  private Rtnl() {}

  // ---- linux/socket.h, linux/netlink.h: sockets --------------------------------------------
  public static final int AF_UNSPEC = 0;
  public static final int AF_INET = 2;
  public static final int AF_BRIDGE = 7;
  public static final int AF_INET6 = 10;
  public static final int AF_NETLINK = 16;
  public static final int NETLINK_ROUTE = 0;
  public static final int NETLINK_GENERIC = 16;
  public static final int SOL_NETLINK = 270;
  public static final int NETLINK_ADD_MEMBERSHIP = 1;
  public static final int NETLINK_DROP_MEMBERSHIP = 2;
  public static final int NETLINK_CAP_ACK = 10;
  public static final int NETLINK_EXT_ACK = 11;
  public static final int NETLINK_GET_STRICT_CHK = 12;

  // ---- linux/netlink.h: message header and flags --------------------------------------------
  /** sizeof(struct nlmsghdr): len u32, type u16, flags u16, seq u32, pid u32. */
  public static final int NLMSG_HDRLEN = 16;

  public static final int NLMSG_NOOP = 1;
  public static final int NLMSG_ERROR = 2;
  public static final int NLMSG_DONE = 3;
  public static final int NLMSG_OVERRUN = 4;
  public static final int NLM_F_REQUEST = 0x01;
  public static final int NLM_F_MULTI = 0x02;
  public static final int NLM_F_ACK = 0x04;
  public static final int NLM_F_ECHO = 0x08;
  public static final int NLM_F_DUMP_INTR = 0x10;
  public static final int NLM_F_DUMP_FILTERED = 0x20;
  // modifiers to GET requests
  public static final int NLM_F_ROOT = 0x100;
  public static final int NLM_F_MATCH = 0x200;
  public static final int NLM_F_DUMP = NLM_F_ROOT | NLM_F_MATCH;
  // modifiers to NEW requests
  public static final int NLM_F_REPLACE = 0x100;
  public static final int NLM_F_EXCL = 0x200;
  public static final int NLM_F_CREATE = 0x400;
  public static final int NLM_F_APPEND = 0x800;
  // flags of an acknowledgement (NLMSG_ERROR)
  public static final int NLM_F_CAPPED = 0x100;
  public static final int NLM_F_ACK_TLVS = 0x200;

  /** enum nlmsgerr_attrs: the extended-ack TLVs after struct nlmsgerr. */
  public static final int NLMSGERR_ATTR_MSG = 1;

  public static final int NLMSGERR_ATTR_OFFS = 2;

  /** struct nlattr: len u16, type u16. */
  public static final int NLA_HDRLEN = 4;

  public static final int NLA_F_NESTED = 0x8000;
  public static final int NLA_F_NET_BYTEORDER = 0x4000;
  public static final int NLA_TYPE_MASK = ~(NLA_F_NESTED | NLA_F_NET_BYTEORDER) & 0xffff;

  // ---- linux/genetlink.h: the generic netlink controller -----------------------------------
  /** sizeof(struct genlmsghdr): cmd u8, version u8, reserved u16. */
  public static final int GENL_HDRLEN = 4;

  public static final int GENL_ID_CTRL = 0x10;
  public static final int CTRL_CMD_GETFAMILY = 3;
  public static final int CTRL_ATTR_FAMILY_ID = 1;
  public static final int CTRL_ATTR_FAMILY_NAME = 2;

  // ---- linux/rtnetlink.h: message types -----------------------------------------------------
  public static final int RTM_NEWLINK = 16;
  public static final int RTM_DELLINK = 17;
  public static final int RTM_GETLINK = 18;
  public static final int RTM_SETLINK = 19;
  public static final int RTM_NEWADDR = 20;
  public static final int RTM_DELADDR = 21;
  public static final int RTM_GETADDR = 22;
  public static final int RTM_NEWROUTE = 24;
  public static final int RTM_DELROUTE = 25;
  public static final int RTM_GETROUTE = 26;
  public static final int RTM_NEWNEIGH = 28;
  public static final int RTM_DELNEIGH = 29;
  public static final int RTM_GETNEIGH = 30;
  public static final int RTM_NEWRULE = 32;
  public static final int RTM_DELRULE = 33;
  public static final int RTM_GETRULE = 34;

  // ---- linux/rtnetlink.h: multicast groups (enum rtnetlink_groups) ---------------------------
  public static final int RTNLGRP_LINK = 1;
  public static final int RTNLGRP_NEIGH = 3;
  public static final int RTNLGRP_IPV4_IFADDR = 5;
  public static final int RTNLGRP_IPV4_ROUTE = 7;
  public static final int RTNLGRP_IPV4_RULE = 8;
  public static final int RTNLGRP_IPV6_IFADDR = 9;
  public static final int RTNLGRP_IPV6_ROUTE = 11;
  public static final int RTNLGRP_IPV6_RULE = 19;

  // ---- linux/rtnetlink.h: struct rtmsg and routes -------------------------------------------
  /**
   * sizeof(struct rtmsg): family, dst_len, src_len, tos, table, protocol, scope, type (u8 each),
   * flags u32.
   */
  public static final int RTMSG_LEN = 12;

  /** Route protocols (rtm_protocol): an open registry, so plain ints. */
  public static final int RTPROT_UNSPEC = 0;

  public static final int RTPROT_REDIRECT = 1;
  public static final int RTPROT_KERNEL = 2;
  public static final int RTPROT_BOOT = 3;
  public static final int RTPROT_STATIC = 4;
  public static final int RTPROT_RA = 9;
  public static final int RTPROT_ZEBRA = 11;
  public static final int RTPROT_BIRD = 12;
  public static final int RTPROT_DHCP = 16;
  public static final int RTPROT_BGP = 186;
  public static final int RTPROT_ISIS = 187;
  public static final int RTPROT_OSPF = 188;

  /** enum rt_class_t: reserved table ids (RTA_TABLE carries ids above 255). */
  public static final int RT_TABLE_UNSPEC = 0;

  public static final int RT_TABLE_DEFAULT = 253;
  public static final int RT_TABLE_MAIN = 254;
  public static final int RT_TABLE_LOCAL = 255;

  /** rtm_flags. */
  public static final int RTM_F_NOTIFY = 0x100;

  public static final int RTM_F_CLONED = 0x200;
  public static final int RTM_F_LOOKUP_TABLE = 0x1000;
  public static final int RTM_F_FIB_MATCH = 0x2000;

  /** enum rtattr_type_t. */
  public static final int RTA_DST = 1;

  public static final int RTA_SRC = 2;
  public static final int RTA_IIF = 3;
  public static final int RTA_OIF = 4;
  public static final int RTA_GATEWAY = 5;
  public static final int RTA_PRIORITY = 6;
  public static final int RTA_PREFSRC = 7;
  public static final int RTA_METRICS = 8;
  public static final int RTA_MULTIPATH = 9;
  public static final int RTA_FLOW = 11;
  public static final int RTA_CACHEINFO = 12;
  public static final int RTA_TABLE = 15;
  public static final int RTA_MARK = 16;
  public static final int RTA_VIA = 18;
  public static final int RTA_PREF = 20;
  public static final int RTA_ENCAP_TYPE = 21;
  public static final int RTA_ENCAP = 22;
  public static final int RTA_EXPIRES = 23;
  public static final int RTA_NH_ID = 30;

  /** sizeof(struct rtnexthop): len u16, flags u8, hops u8, ifindex s32. */
  public static final int RTNH_LEN = 8;

  /** rtnh_flags. */
  public static final int RTNH_F_DEAD = 1;

  public static final int RTNH_F_PERVASIVE = 2;
  public static final int RTNH_F_ONLINK = 4;
  public static final int RTNH_F_OFFLOAD = 8;
  public static final int RTNH_F_LINKDOWN = 16;
  public static final int RTNH_F_UNRESOLVED = 32;
  public static final int RTNH_F_TRAP = 64;

  // ---- linux/rtnetlink.h + linux/if_link.h: links -------------------------------------------
  /** sizeof(struct ifinfomsg): family u8, pad u8, type u16, index s32, flags u32, change u32. */
  public static final int IFINFOMSG_LEN = 16;

  public static final int IFLA_ADDRESS = 1;
  public static final int IFLA_BROADCAST = 2;
  public static final int IFLA_IFNAME = 3;
  public static final int IFLA_MTU = 4;
  public static final int IFLA_LINK = 5;
  public static final int IFLA_MASTER = 10;
  public static final int IFLA_TXQLEN = 13;
  public static final int IFLA_OPERSTATE = 16;
  public static final int IFLA_LINKINFO = 18;
  public static final int IFLA_NET_NS_PID = 19;
  public static final int IFLA_IFALIAS = 20;
  public static final int IFLA_NET_NS_FD = 28;
  public static final int IFLA_EXT_MASK = 29;
  public static final int IFLA_CARRIER = 33;
  public static final int IFLA_LINK_NETNSID = 37;

  /** IFLA_LINKINFO nested attributes. */
  public static final int IFLA_INFO_KIND = 1;

  public static final int IFLA_INFO_DATA = 2;
  public static final int IFLA_INFO_SLAVE_KIND = 4;

  /** linux/veth.h: IFLA_INFO_DATA of a veth holds the peer's ifinfomsg and attributes. */
  public static final int VETH_INFO_PEER = 1;

  /** IFLA_VXLAN_* (IFLA_INFO_DATA of a vxlan link). */
  public static final int IFLA_VXLAN_ID = 1;

  public static final int IFLA_VXLAN_GROUP = 2;
  public static final int IFLA_VXLAN_LINK = 3;
  public static final int IFLA_VXLAN_LOCAL = 4;
  public static final int IFLA_VXLAN_TTL = 5;
  public static final int IFLA_VXLAN_LEARNING = 7;

  /** Big-endian u16. */
  public static final int IFLA_VXLAN_PORT = 15;

  public static final int IFLA_VXLAN_GROUP6 = 16;
  public static final int IFLA_VXLAN_LOCAL6 = 17;

  /** IFLA_BR_* (IFLA_INFO_DATA of a bridge). */
  public static final int IFLA_BR_VLAN_FILTERING = 7;

  /** linux/if.h: net_device_flags (ifi_flags). */
  public static final int IFF_UP = 0x1;

  // ---- linux/if_addr.h: addresses -----------------------------------------------------------
  /** sizeof(struct ifaddrmsg): family u8, prefixlen u8, flags u8, scope u8, index u32. */
  public static final int IFADDRMSG_LEN = 8;

  public static final int IFA_ADDRESS = 1;
  public static final int IFA_LOCAL = 2;
  public static final int IFA_LABEL = 3;
  public static final int IFA_BROADCAST = 4;
  public static final int IFA_CACHEINFO = 6;

  /** u32 flags, superseding the u8 ifa_flags. */
  public static final int IFA_FLAGS = 8;

  // ---- linux/neighbour.h --------------------------------------------------------------------
  /**
   * sizeof(struct ndmsg): family u8, pad u8, pad u16, ifindex s32, state u16, flags u8, type u8.
   */
  public static final int NDMSG_LEN = 12;

  public static final int NDA_DST = 1;
  public static final int NDA_LLADDR = 2;
  public static final int NDA_CACHEINFO = 3;
  public static final int NDA_PROBES = 4;

  // ---- linux/fib_rules.h --------------------------------------------------------------------
  /**
   * sizeof(struct fib_rule_hdr): family, dst_len, src_len, tos, table, res1, res2, action (u8
   * each), flags u32.
   */
  public static final int FIB_RULE_HDR_LEN = 12;

  public static final int FRA_DST = 1;
  public static final int FRA_SRC = 2;
  public static final int FRA_IIFNAME = 3;
  public static final int FRA_GOTO = 4;
  public static final int FRA_PRIORITY = 6;
  public static final int FRA_FWMARK = 10;
  public static final int FRA_TABLE = 15;
  public static final int FRA_FWMASK = 16;
  public static final int FRA_OIFNAME = 17;
  public static final int FRA_PROTOCOL = 21;
  public static final int FIB_RULE_INVERT = 0x2;
}
