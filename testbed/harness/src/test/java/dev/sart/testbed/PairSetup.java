package dev.sart.testbed;

/**
 * Two routers on one veth: {@code left} is AS 65001 at 192.0.2.1 / 2001:db8::1, {@code right} AS
 * 65002 at 192.0.2.2 / 2001:db8::2, one IPv4 and one IPv6 session between them. Each originates one
 * IPv4 and one IPv6 prefix.
 */
record PairSetup(Router left, Router right) {
  static final String LEFT_V4 = "192.0.2.1";
  static final String RIGHT_V4 = "192.0.2.2";
  static final String LEFT_V6 = "2001:db8::1";
  static final String RIGHT_V6 = "2001:db8::2";
  static final String LEFT_PREFIX_V4 = "203.0.113.0/24";
  static final String LEFT_PREFIX_V6 = "2001:db8:1::/48";
  static final String RIGHT_PREFIX_V4 = "198.51.100.0/24";
  static final String RIGHT_PREFIX_V6 = "2001:db8:2::/48";

  /**
   * The pair, with both ends configured alike except for the neighbour options {@code
   * leftToRight}/{@code rightToLeft} apply.
   */
  static PairSetup create(
      Topology t,
      RouterKind leftKind,
      RouterKind rightKind,
      java.util.function.UnaryOperator<Neighbor> leftToRight,
      java.util.function.UnaryOperator<Neighbor> rightToLeft) {
    Node l = t.node("left");
    Node r = t.node("right");
    t.link(l, r)
        .addresses(LEFT_V4 + "/30", RIGHT_V4 + "/30")
        .addresses(LEFT_V6 + "/64", RIGHT_V6 + "/64");
    Router left =
        leftKind.create(
            l,
            RouterConfig.of(65001, LEFT_V4)
                .neighbor(leftToRight.apply(Neighbor.of(RIGHT_V4, 65002)))
                .neighbor(leftToRight.apply(Neighbor.of(RIGHT_V6, 65002)))
                .originate(LEFT_PREFIX_V4, LEFT_PREFIX_V6));
    Router right =
        rightKind.create(
            r,
            RouterConfig.of(65002, RIGHT_V4)
                .neighbor(rightToLeft.apply(Neighbor.of(LEFT_V4, 65001)))
                .neighbor(rightToLeft.apply(Neighbor.of(LEFT_V6, 65001)))
                .originate(RIGHT_PREFIX_V4, RIGHT_PREFIX_V6));
    left.start();
    right.start();
    return new PairSetup(left, right);
  }

  static PairSetup create(Topology t, RouterKind leftKind, RouterKind rightKind) {
    return create(t, leftKind, rightKind, n -> n, n -> n);
  }
}
