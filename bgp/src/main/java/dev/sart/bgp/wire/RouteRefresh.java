package dev.sart.bgp.wire;

/**
 * RFC 2918 §3, RFC 7313 §3: a request to re-send the Adj-RIB-Out of one family, or the
 * beginning/end markers of such a re-send.
 *
 * <pre>
 *  0       7      15      23      31
 *  +-------+-------+-------+-------+
 *  |      AFI      |SubType| SAFI  |
 *  +-------+-------+-------+-------+
 * </pre>
 *
 * Subtypes other than 0, 1 and 2 are kept as they are; RFC 7313 §5 says to ignore such a message.
 */
public record RouteRefresh(Family family, int subtype) implements Message {

  public RouteRefresh {
    if (subtype < 0 || subtype > 0xff) {
      throw new IllegalArgumentException("subtype out of range: " + subtype);
    }
  }

  public static RouteRefresh request(Family family) {
    return new RouteRefresh(family, Iana.RouteRefreshSubtype.NORMAL);
  }

  public static RouteRefresh beginning(Family family) {
    return new RouteRefresh(family, Iana.RouteRefreshSubtype.BEGINNING_OF_ROUTE_REFRESH);
  }

  public static RouteRefresh end(Family family) {
    return new RouteRefresh(family, Iana.RouteRefreshSubtype.END_OF_ROUTE_REFRESH);
  }

  @Override
  public int type() {
    return Iana.MessageType.ROUTE_REFRESH;
  }
}
