package dev.sart.fib.daemon;

import dev.sart.fib.netlink.Rtnl;

/**
 * Administrative distances (sart.v1 {@code AdministrativeDistance}, the values routers commonly
 * use): per destination the route with the lowest distance wins, and the installed route's metric
 * is its distance.
 */
public final class Distance {
  public static final int CONNECTED = 0;
  public static final int STATIC = 1;
  public static final int EBGP = 20;
  public static final int OSPF = 110;
  public static final int RIP = 120;
  public static final int IBGP = 200;

  private Distance() {}

  /** The distance of a route a kernel table holds, by who installed it (rtm_protocol). */
  static int ofKernelProtocol(int protocol) {
    return switch (protocol) {
      case Rtnl.RTPROT_KERNEL -> CONNECTED;
      case Rtnl.RTPROT_BGP -> EBGP;
      case Rtnl.RTPROT_OSPF -> OSPF;
      case 189 -> RIP; // RTPROT_RIP
      default -> STATIC; // boot, static, dhcp, routing daemons: configured routes
    };
  }

  /** iBGP when the path came from a peer of our own AS (RFC 4271 §1.1: internal peer). */
  static int ofBgp(long peerAs, long localAs) {
    return peerAs == localAs ? IBGP : EBGP;
  }
}
