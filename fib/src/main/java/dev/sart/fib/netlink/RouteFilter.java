package dev.sart.fib.netlink;

/**
 * Which routes a dump returns. The kernel filters by table and protocol itself (with
 * NETLINK_GET_STRICT_CHK; net/ipv4/fib_frontend.c ip_valid_fib_dump_req).
 *
 * @param family INET, INET6, or null for both
 * @param table a table id, or 0 for every table
 * @param protocol a protocol number, or 0 for every protocol
 */
public record RouteFilter(Family family, int table, int protocol) {
  /** Every IPv4 and IPv6 route of every table. */
  public static final RouteFilter ALL = new RouteFilter(null, 0, 0);

  public RouteFilter family(Family f) {
    return new RouteFilter(f, table, protocol);
  }

  public RouteFilter table(int t) {
    return new RouteFilter(family, t, protocol);
  }

  public RouteFilter protocol(int p) {
    return new RouteFilter(family, table, p);
  }

  boolean matches(Route r) {
    return (family == null || r.family() == family)
        && (table == 0 || r.table() == table)
        && (protocol == 0 || r.protocol() == protocol);
  }
}
