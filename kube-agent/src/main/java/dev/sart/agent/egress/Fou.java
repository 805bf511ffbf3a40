package dev.sart.agent.egress;

import dev.sart.fib.netlink.Errno;
import dev.sart.fib.netlink.GenericNetlink;
import dev.sart.fib.netlink.Link;
import dev.sart.fib.netlink.Netlink;
import dev.sart.fib.netlink.NetlinkException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.OptionalInt;

/**
 * Sends {@link FouMessages}: FoU receivers (generic netlink family {@code fou}) and the ipip /
 * ip6tnl links with FoU encapsulation of coil's tunnels, with a clear message where the kernel
 * lacks a module (this one has none of {@code fou}, {@code ipip}, {@code ip6_tunnel}).
 */
final class Fou {
  private Fou() {}

  /** The alias our FoU links carry, with the port whose receiver they need. */
  static final String ALIAS = "sart-egress fou port=";

  static final String NO_FOU =
      "FoU: this kernel has no fou module (generic netlink family \"fou\" not found);"
          + " use tunnel: vxlan in the Egress, or a kernel with fou, ipip and ip6_tunnel";

  /** The fou family's id (linux/fou.h FOU_GENL_NAME; dynamic, linux/genetlink.h). */
  static int family(GenericNetlink genl) {
    try {
      return genl.familyId(FouMessages.FOU_GENL_NAME);
    } catch (NetlinkException e) {
      if (e.errno() == Errno.ENOENT) {
        throw new IllegalStateException(NO_FOU, e);
      }
      throw e;
    }
  }

  static int ipproto(boolean ipv6) {
    return ipv6 ? FouMessages.IPPROTO_IPV6 : FouMessages.IPPROTO_IPIP;
  }

  /**
   * {@code ip fou add port P ipproto 4|41 [-6]}; one that exists already is what we want.
   *
   * @return whether this call made it
   */
  static boolean addPort(GenericNetlink genl, int family, int port, boolean ipv6) {
    try {
      genl.execute(
          FouMessages.fouAdd(family, 0, port, ipv6, ipproto(ipv6)),
          "fou add port " + port + " ipproto " + ipproto(ipv6) + (ipv6 ? " -6" : ""));
      return true;
    } catch (NetlinkException e) {
      if (e.errno() != Errno.EEXIST) {
        throw e;
      }
      return false;
    }
  }

  static void deletePort(GenericNetlink genl, int family, int port, boolean ipv6) {
    ClientTunnels.deleteQuietly(
        () ->
            genl.execute(
                FouMessages.fouDel(family, 0, port, ipv6, ipproto(ipv6)),
                "fou del port " + port + (ipv6 ? " -6" : "")));
  }

  /**
   * An ipip (IPv4) or ip6tnl mode ip6ip6 (IPv6) link {@code name} from {@code local} to {@code
   * remote} with FoU encapsulation to UDP {@code port}, up, MTU below the uplink's by the outer
   * headers.
   */
  static void link(
      Netlink nl,
      String name,
      InetAddress local,
      InetAddress remote,
      int sourcePort,
      int port,
      int uplinkMtu) {
    link(
        nl,
        name,
        remote instanceof Inet6Address,
        FouMessages.tunnelLink(0, name, local, remote, 0, sourcePort, port, false),
        " remote " + remote.getHostAddress(),
        port,
        uplinkMtu);
  }

  /** The flow-based receiver {@link EgressIds#fouReceiver} of one family. */
  static void receiver(Netlink nl, boolean ipv6, int port, int uplinkMtu) {
    var name = EgressIds.fouReceiver(ipv6);
    link(
        nl,
        name,
        ipv6,
        FouMessages.receiverLink(0, name, ipv6, port),
        " external",
        port,
        uplinkMtu);
  }

  private static void link(
      Netlink nl, String name, boolean v6, byte[] message, String what, int port, int uplinkMtu) {
    String kind = v6 ? "ip6tnl" : "ipip";
    try {
      nl.execute(message, "add " + kind + " link " + name + what + " encap fou dport " + port);
    } catch (NetlinkException e) {
      if (e.errno() == Errno.EOPNOTSUPP) {
        throw new IllegalStateException(
            "FoU: this kernel has no "
                + (v6 ? "ip6_tunnel" : "ipip")
                + " module (link kind "
                + kind
                + " unknown); use tunnel: vxlan in the Egress",
            e);
      }
      if (e.errno() != Errno.EEXIST) {
        throw e;
      }
    }
    nl.links().setAlias(name, ALIAS + port);
    nl.links().setMtu(name, uplinkMtu - EgressIds.fouOverhead(v6));
    nl.links().setUp(name);
  }

  /** The port an our FoU link's alias names. */
  static OptionalInt port(Link link) {
    var a = link.alias();
    if (a == null || !a.startsWith(ALIAS)) {
      return OptionalInt.empty();
    }
    try {
      return OptionalInt.of(Integer.parseInt(a.substring(ALIAS.length())));
    } catch (NumberFormatException e) {
      return OptionalInt.empty();
    }
  }

  /** Our FoU links: named {@code fou...}, of kind ipip or ip6tnl. */
  static boolean isOurs(Link link) {
    return link.name().startsWith("fou")
        && ("ipip".equals(link.kind()) || "ip6tnl".equals(link.kind()));
  }
}
