package dev.sart.fib.netlink;

import dev.sart.net.Ip;
import java.net.InetAddress;
import java.util.List;
import java.util.Objects;

/** Routes of any table, IPv4 and IPv6: add, replace, delete, list, and the kernel's lookup. */
public final class Routes {
  private final NetlinkSocket socket;

  Routes(NetlinkSocket socket) {
    this.socket = socket;
  }

  /** Adds a route; EEXIST when the table has one for the destination (and metric) already. */
  public void add(Route r) {
    socket.execute(addRequest(r));
  }

  /** Adds a route or replaces the one for the same destination (and metric), next hops and all. */
  public void replace(Route r) {
    socket.execute(replaceRequest(r));
  }

  /**
   * Deletes the route matching {@code r}: destination, table, metric, type, protocol (unless 0) and
   * next hops (unless none are given); ESRCH when there is none.
   */
  public void delete(Route r) {
    socket.execute(deleteRequest(r));
  }

  /** Every IPv4 and IPv6 route of every table. */
  public List<Route> list() {
    return list(RouteFilter.ALL);
  }

  /** The routes of one table. */
  public List<Route> list(int table) {
    return list(RouteFilter.ALL.table(table));
  }

  /** The routes {@code filter} selects (RTM_GETROUTE dump; cached clones are left out). */
  public List<Route> list(RouteFilter filter) {
    int af = filter.family() == null ? Rtnl.AF_UNSPEC : filter.family().code();
    Request dump =
        new Request(
            Rtnl.RTM_GETROUTE,
            Rtnl.NLM_F_DUMP,
            () ->
                "list routes"
                    + (filter.table() != 0 ? " table " + filter.table() : "")
                    + (filter.protocol() != 0 ? " proto " + filter.protocol() : ""),
            w -> {
              RouteCodec.header(
                  w, af, 0, filter.table() < 256 ? filter.table() : 0, filter.protocol(), 0, 0, 0);
              if (filter.table() != 0) {
                w.attrU32(Rtnl.RTA_TABLE, filter.table());
              }
            });
    List<Message> messages;
    try {
      messages = socket.dump(dump);
    } catch (NetlinkException e) {
      if (e.errno() == Errno.ENOENT && filter.table() != 0) {
        return List.of(); // "FIB table does not exist": no routes in it
      }
      throw e;
    }
    return messages.stream()
        .filter(m -> m.type() == Rtnl.RTM_NEWROUTE)
        .map(RouteCodec::parse)
        .filter(Objects::nonNull)
        .filter(filter::matches)
        .toList();
  }

  /**
   * The route the kernel would use for {@code destination}, from the table it is in (RTM_GETROUTE
   * with RTM_F_FIB_MATCH).
   */
  public Route get(InetAddress destination) {
    return get(destination, 0);
  }

  /**
   * The route the kernel would use for a packet to {@code destination} carrying firewall mark
   * {@code mark} (0 for none), as the policy rules select it; ENETUNREACH when there is none.
   */
  public Route get(InetAddress destination, int mark) {
    Family f = Family.of(destination);
    List<Message> replies =
        socket.query(
            new Request(
                Rtnl.RTM_GETROUTE,
                0,
                () ->
                    "get route "
                        + Ip.format(destination)
                        + (mark != 0 ? " mark 0x" + Integer.toHexString(mark) : ""),
                w -> {
                  // IPv4 reports main unless asked for the table the rules led to
                  // (net/ipv4/route.c); IPv6
                  // always reports the route's own table and rejects the flag (net/ipv6/route.c)
                  int flags =
                      Rtnl.RTM_F_FIB_MATCH | (f == Family.INET ? Rtnl.RTM_F_LOOKUP_TABLE : 0);
                  RouteCodec.header(w, f.code(), f.maxPrefixLength(), 0, 0, 0, 0, flags);
                  w.attrAddress(Rtnl.RTA_DST, destination);
                  if (mark != 0) {
                    w.attrU32(Rtnl.RTA_MARK, mark);
                  }
                }));
    return replies.stream()
        .filter(m -> m.type() == Rtnl.RTM_NEWROUTE)
        .map(RouteCodec::parse)
        .filter(Objects::nonNull)
        .findFirst()
        .orElseThrow(
            () ->
                new NetlinkException(
                    "get route " + Ip.format(destination), Errno.ENETUNREACH, null));
  }

  static Request addRequest(Route r) {
    return new Request(
        Rtnl.RTM_NEWROUTE,
        Rtnl.NLM_F_CREATE | Rtnl.NLM_F_EXCL,
        () -> "add route " + r.describe(),
        w -> RouteCodec.write(w, r, false));
  }

  static Request replaceRequest(Route r) {
    return new Request(
        Rtnl.RTM_NEWROUTE,
        Rtnl.NLM_F_CREATE | Rtnl.NLM_F_REPLACE,
        () -> "replace route " + r.describe(),
        w -> RouteCodec.write(w, r, false));
  }

  static Request deleteRequest(Route r) {
    return new Request(
        Rtnl.RTM_DELROUTE,
        0,
        () -> "delete route " + r.describe(),
        w -> RouteCodec.write(w, r, true));
  }
}
