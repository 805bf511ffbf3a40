package dev.sart.bgp.wire;

import static dev.sart.bgp.wire.Fixtures.assertGolden;
import static dev.sart.bgp.wire.Fixtures.attr;
import static dev.sart.bgp.wire.Fixtures.update;
import static dev.sart.bgp.wire.Fixtures.v4;
import static dev.sart.bgp.wire.Fixtures.v6;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One golden fixture per path attribute: an UPDATE carrying only that attribute (no NLRI, so that
 * nothing is mandatory), bytes to record and record to bytes.
 */
class AttributeGoldenTest {

  /** An internal session with 4-octet AS numbers and nothing else negotiated. */
  private static final SessionOptions IBGP = SessionOptions.FOUR_OCTET_AS.withExternal(false);

  static Stream<Arguments> attributes() {
    return Stream.of(
        Arguments.of("40 01 01 00", Origin.IGP),
        Arguments.of("40 01 01 01", Origin.EGP),
        Arguments.of("40 01 01 02", Origin.INCOMPLETE),
        Arguments.of("40 02 00", AsPath.EMPTY),
        Arguments.of(
            "40 02 0e 02 03 0000fde9 0000fdea fa56ea01",
            AsPath.sequence(65001, 65002, 4200000001L)),
        Arguments.of(
            "40 02 1a 03 01 0000fde8 02 02 0000fde9 0000fdea 01 02 0000fdeb 0000fdec",
            AsPath.builder()
                .segment(3, 65000)
                .segment(2, 65001, 65002)
                .segment(1, 65003, 65004)
                .build()),
        Arguments.of("40 02 06 04 01 0000fde8", AsPath.builder().segment(4, 65000).build()),
        Arguments.of("40 03 04 c0000201", NextHop.of("192.0.2.1")),
        Arguments.of("80 04 04 00000064", new MultiExitDisc(100)),
        Arguments.of("80 04 04 ffffffff", new MultiExitDisc(0xffffffffL)),
        Arguments.of("40 05 04 00000064", new LocalPref(100)),
        Arguments.of("40 06 00", AtomicAggregate.INSTANCE),
        Arguments.of(
            "c0 07 08 fa56ea01 c0000201", new Aggregator(4200000001L, Ip.parseV4("192.0.2.1"))),
        Arguments.of(
            "c0 08 10 fde80064 ffffff01 ffffff02 ffff029a",
            Communities.of(
                Communities.community(65000, 100),
                Iana.WellKnownCommunity.NO_EXPORT,
                Iana.WellKnownCommunity.NO_ADVERTISE,
                Iana.WellKnownCommunity.BLACKHOLE)),
        Arguments.of("80 09 04 c0000201", new OriginatorId(Ip.parseV4("192.0.2.1"))),
        Arguments.of(
            "80 0a 08 c0000201 c0000202",
            ClusterList.of(Ip.parseV4("192.0.2.1"), Ip.parseV4("192.0.2.2"))),
        Arguments.of(
            "c0 10 10 0002fde800000064 0102030405060708",
            ExtendedCommunities.of(
                ExtendedCommunities.routeTarget(65000, 100), 0x0102030405060708L)),
        Arguments.of(
            "c0 20 18 fa56ea01 00000001 00000002 0000fde8 ffffffff 00000000",
            LargeCommunities.of(4200000001L, 1, 2, 65000, 0xffffffffL, 0)),
        Arguments.of("c0 23 04 0000fde9", new OnlyToCustomer(65001)),
        Arguments.of("c0 63 02 abcd", new UnknownAttribute(0x63, 0xc0, Octets.fromHex("abcd"))),
        Arguments.of("e0 63 02 abcd", new UnknownAttribute(0x63, 0xe0, Octets.fromHex("abcd"))),
        Arguments.of("80 64 01 ff", new UnknownAttribute(0x64, 0x80, Octets.fromHex("ff"))),
        Arguments.of(
            attr(
                "80 0e",
                "0002 01 10 20010db8000000000000000000000001 00 40 20010db800000001 30 20010db80002"),
            new MpReachNlri(
                Family.IPV6_UNICAST,
                MpNextHop.V6.of("2001:db8::1"),
                v6("2001:db8:0:1::/64", "2001:db8:2::/48"))),
        Arguments.of(
            attr(
                "80 0e",
                "0002 01 20 20010db8000000000000000000000001 fe800000000000000000000000000001 00"
                    + " 40 20010db800000001"),
            new MpReachNlri(
                Family.IPV6_UNICAST,
                MpNextHop.V6WithLinkLocal.of("2001:db8::1", "fe80::1"),
                v6("2001:db8:0:1::/64"))),
        Arguments.of(
            attr("80 0e", "0001 01 04 c0000201 00 18 c63364"),
            new MpReachNlri(
                Family.IPV4_UNICAST,
                new MpNextHop.V4(Ip.parseV4("192.0.2.1")),
                v4("198.51.100.0/24"))),
        Arguments.of(
            attr("80 0e", "0001 46 04 c0000201 00 abcdef"),
            new MpReachNlri(
                new Family(1, 70),
                new MpNextHop.Opaque(Octets.fromHex("c0000201")),
                new OpaqueNlri(Octets.fromHex("abcdef")))),
        Arguments.of(
            "80 0f 0c 0002 01 40 20010db800000001",
            new MpUnreachNlri(Family.IPV6_UNICAST, v6("2001:db8:0:1::/64"))),
        Arguments.of(
            "80 0f 03 0002 01", new MpUnreachNlri(Family.IPV6_UNICAST, Ipv6Prefixes.EMPTY)),
        // the Extended Length flag is kept when the value would fit one octet
        Arguments.of("50 02 0006 02 01 0000fde9", AsPath.sequence(65001)));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("attributes")
  void everyAttributeDecodesToItsRecordAndEncodesBackToTheSameBytes(
      String hex, PathAttribute attribute) throws Exception {
    // ORIGIN and AS_PATH in front, as MP_REACH_NLRI with NLRI needs them (RFC 7606 §3 (d))
    boolean mandatory = attribute.typeCode() <= Iana.AttributeType.AS_PATH;
    byte[] bytes = update("", (mandatory ? "" : "40 01 01 00 | 40 02 00 |") + hex, "");
    int flags = Fixtures.hex(hex)[0] & 0xff;
    PathAttributes.Builder attributes = PathAttributes.builder();
    if (!mandatory) {
      attributes.add(Origin.IGP).add(AsPath.EMPTY);
    }
    Update expected =
        new Update(
            Ipv4Prefixes.EMPTY, attributes.add(attribute, flags).build(), Ipv4Prefixes.EMPTY);
    Update decoded = assertGolden(IBGP, bytes, expected);
    assertEquals(UpdateError.Action.NONE, decoded.action());
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("attributes")
  void attributesBuiltWithTheirRfcFlagsEncodeLikeTheFixturesExceptForPartialAndExtended(
      String hex, PathAttribute attribute) {
    int flags = Fixtures.hex(hex)[0] & 0xff;
    if ((flags & (Iana.AttributeFlag.PARTIAL | Iana.AttributeFlag.EXTENDED_LENGTH)) != 0) {
      return;
    }
    byte[] encoded =
        new BgpCodec(IBGP)
            .encode(
                new Update(Ipv4Prefixes.EMPTY, PathAttributes.of(attribute), Ipv4Prefixes.EMPTY));
    assertEquals(Octets.of(update("", hex, "")), Octets.of(encoded));
  }

  @org.junit.jupiter.api.Test
  void aValueLongerThan255OctetsGetsTheExtendedLengthFlag() throws Exception {
    int[] many = new int[70];
    StringBuilder hex = new StringBuilder();
    for (int i = 0; i < many.length; i++) {
      many[i] = Communities.community(65000, i);
      hex.append(String.format("fde8%04x", i));
    }
    byte[] bytes = update("", "d0 08 0118 " + hex, "");
    assertGolden(
        IBGP,
        bytes,
        new Update(
            Ipv4Prefixes.EMPTY, PathAttributes.of(Communities.of(many)), Ipv4Prefixes.EMPTY));
  }

  @org.junit.jupiter.api.Test
  void anIpv4RouteWithAnIpv6NextHopDecodesOnceRfc8950IsNegotiated() throws Exception {
    SessionOptions enhe = IBGP.withExtendedNextHop(Set.of(Family.IPV4_UNICAST));
    byte[] bytes =
        update(
            "",
            "40 01 01 00 | 40 02 00 |"
                + attr("80 0e", "0001 01 10 20010db8000000000000000000000001 00 18 c63364"),
            "");
    assertGolden(
        enhe,
        bytes,
        new Update(
            Ipv4Prefixes.EMPTY,
            PathAttributes.of(
                Origin.IGP,
                AsPath.EMPTY,
                new MpReachNlri(
                    Family.IPV4_UNICAST, MpNextHop.V6.of("2001:db8::1"), v4("198.51.100.0/24"))),
            Ipv4Prefixes.EMPTY));
  }
}
