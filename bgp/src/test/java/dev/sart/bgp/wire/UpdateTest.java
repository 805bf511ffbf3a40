package dev.sart.bgp.wire;

import static dev.sart.bgp.wire.Fixtures.assertGolden;
import static dev.sart.bgp.wire.Fixtures.attr;
import static dev.sart.bgp.wire.Fixtures.decodeUpdate;
import static dev.sart.bgp.wire.Fixtures.update;
import static dev.sart.bgp.wire.Fixtures.v4;
import static dev.sart.bgp.wire.Fixtures.v6;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class UpdateTest {

  private static final SessionOptions EBGP = SessionOptions.FOUR_OCTET_AS;
  private static final String ORIGIN_PATH_NEXT_HOP =
      "40 01 01 00 | 40 02 06 02 01 0000fde9 | 40 03 04 c0000201";
  private static final PathAttributes BASIC =
      PathAttributes.of(Origin.IGP, AsPath.sequence(65001), NextHop.of("192.0.2.1"));

  @Test
  void anUpdateWithIpv4NlriAndWithdrawnRoutesRoundTrips() throws Exception {
    byte[] bytes =
        update(
            "18 cb0071 | 00", ORIGIN_PATH_NEXT_HOP, "18 c63364 | 20 c6336401 | 10 c633 | 09 c680");
    Update u =
        assertGolden(
            EBGP,
            bytes,
            new Update(
                v4("203.0.113.0/24", "0.0.0.0/0"),
                BASIC,
                v4("198.51.100.0/24", "198.51.100.1/32", "198.51.0.0/16", "198.128.0.0/9")));
    assertEquals(4, u.nlri().size());
    assertEquals("198.128.0.0/9", u.nlri().toString(3));
    assertEquals(UpdateError.Action.NONE, u.action());
  }

  @Test
  void hostBitsBeyondThePrefixLengthAreCleared() throws Exception {
    Update u = decodeUpdate(EBGP, update("", ORIGIN_PATH_NEXT_HOP, "17 c63365"));
    assertEquals(v4("198.51.100.0/23"), u.nlri());
  }

  @Test
  void aTypicalEbgpUpdateWithCommunitiesAndLargeCommunitiesRoundTrips() throws Exception {
    String attributes =
        "40 01 01 00 | 40 02 0a 02 02 0000fde9 fa56ea01 | 40 03 04 c0000201 | 80 04 04 00000000"
            + "| c0 08 08 fde80064 ffffff01 | c0 20 0c fa56ea01 00000001 00000002";
    PathAttributes expected =
        PathAttributes.of(
            Origin.IGP,
            AsPath.sequence(65001, 4200000001L),
            NextHop.of("192.0.2.1"),
            new MultiExitDisc(0),
            Communities.of(Communities.community(65000, 100), Iana.WellKnownCommunity.NO_EXPORT),
            LargeCommunities.of(4200000001L, 1, 2));
    assertGolden(
        EBGP,
        update("", attributes, "18 c63364"),
        new Update(Ipv4Prefixes.EMPTY, expected, v4("198.51.100.0/24")));
  }

  @Test
  void anIpv6UpdateNeedsNoNextHopAttribute() throws Exception {
    String attributes =
        "40 01 01 00 | 40 02 06 02 01 0000fde9"
            + "|"
            + attr("80 0e", "0002 01 10 20010db8000000000000000000000001 00 40 20010db800000001");
    Update u =
        assertGolden(
            EBGP,
            update("", attributes, ""),
            new Update(
                Ipv4Prefixes.EMPTY,
                PathAttributes.of(
                    Origin.IGP,
                    AsPath.sequence(65001),
                    new MpReachNlri(
                        Family.IPV6_UNICAST,
                        MpNextHop.V6.of("2001:db8::1"),
                        v6("2001:db8:0:1::/64"))),
                Ipv4Prefixes.EMPTY));
    assertEquals(UpdateError.Action.NONE, u.action());
    assertEquals(v6("2001:db8:0:1::/64"), u.mpReach().nlri());
  }

  @Test
  void addPathPutsAPathIdentifierBeforeEveryPrefixOfTheNegotiatedFamilies() throws Exception {
    SessionOptions addPath =
        EBGP.withAddPath(
            Set.of(Family.IPV4_UNICAST, Family.IPV6_UNICAST),
            Set.of(Family.IPV4_UNICAST, Family.IPV6_UNICAST));
    String attributes =
        ORIGIN_PATH_NEXT_HOP
            + "|"
            + attr(
                "80 0e",
                "0002 01 10 20010db8000000000000000000000001 00 00000007 40 20010db800000001");
    byte[] bytes =
        update("00000003 18 cb0071", attributes, "00000001 18 c63364 | 00000002 18 c63364");
    Update expected =
        new Update(
            Ipv4Prefixes.builderWithPathIds().add(3, "203.0.113.0/24").build(),
            BASIC.with(
                new MpReachNlri(
                    Family.IPV6_UNICAST,
                    MpNextHop.V6.of("2001:db8::1"),
                    Ipv6Prefixes.builderWithPathIds().add(7, "2001:db8:0:1::/64").build())),
            Ipv4Prefixes.builderWithPathIds()
                .add(1, "198.51.100.0/24")
                .add(2, "198.51.100.0/24")
                .build());
    Update u = assertGolden(addPath, bytes, expected);
    assertEquals(2, u.nlri().pathId(1));
  }

  @Test
  void prefixesWithoutPathIdentifiersCannotBeSentWhereAddPathWasNegotiated() {
    SessionOptions addPath = EBGP.withAddPath(Set.of(), Set.of(Family.IPV4_UNICAST));
    Update u = new Update(Ipv4Prefixes.EMPTY, BASIC, v4("198.51.100.0/24"));
    assertThrows(IllegalArgumentException.class, () -> new BgpCodec(addPath).encode(u));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new BgpCodec(EBGP)
                .encode(
                    new Update(
                        Ipv4Prefixes.EMPTY,
                        BASIC,
                        Ipv4Prefixes.builderWithPathIds().add(1, "198.51.100.0/24").build())));
  }

  @Test
  void endOfRibMarkersAreAnEmptyUpdateForIpv4AndAnEmptyMpUnreachForTheOthers() throws Exception {
    Update v4 = assertGolden(EBGP, update("", "", ""), Update.endOfRib(Family.IPV4_UNICAST));
    assertEquals(Optional.of(Family.IPV4_UNICAST), v4.endOfRibFamily());
    Update v6 =
        assertGolden(
            EBGP, update("", "80 0f 03 0002 01", ""), Update.endOfRib(Family.IPV6_UNICAST));
    assertEquals(Optional.of(Family.IPV6_UNICAST), v6.endOfRibFamily());
    Update notEor = decodeUpdate(EBGP, update("18 cb0071", "", ""));
    assertEquals(Optional.empty(), notEor.endOfRibFamily());
  }

  @Test
  void anUpdateLongerThan4096OctetsIsRefusedUnlessExtendedMessagesAreNegotiated() throws Exception {
    Ipv4Prefixes.Builder many = Ipv4Prefixes.builder();
    for (int i = 0; i < 1100; i++) {
      many.add(0x0a000000 | i << 8, 24);
    }
    Update big = new Update(Ipv4Prefixes.EMPTY, BASIC, many.build());
    assertThrows(IllegalArgumentException.class, () -> new BgpCodec(EBGP).encode(big));
    SessionOptions extended = EBGP.withExtendedMessage(true);
    byte[] bytes = new BgpCodec(extended).encode(big);
    assertEquals(19 + 4 + 20 + 1100 * 4, bytes.length);
    assertEquals(big, decodeUpdate(extended, bytes));
  }

  @Test
  void onA2OctetSessionAs4PathAndAs4AggregatorAreMergedIntoAsPathAndAggregator() throws Exception {
    // an OLD speaker 65001 passed on a path from NEW speakers: AS_PATH 65001 23456 23456,
    // AS4_PATH 4200000001 4200000002, AGGREGATOR 23456, AS4_AGGREGATOR 4200000001
    String attributes =
        "40 01 01 00 | 40 02 08 02 03 fde9 5ba0 5ba0 | 40 03 04 c0000201"
            + "| c0 07 06 5ba0 c0000201 | c0 11 0a 02 02 fa56ea01 fa56ea02 | c0 12 08 fa56ea01 c0000201";
    PathAttributes merged =
        PathAttributes.of(
            Origin.IGP,
            AsPath.sequence(65001, 4200000001L, 4200000002L),
            NextHop.of("192.0.2.1"),
            new Aggregator(4200000001L, Ip.parseV4("192.0.2.1")));
    Update u = decodeUpdate(SessionOptions.DEFAULT, update("", attributes, "18 c63364"));
    assertEquals(new Update(Ipv4Prefixes.EMPTY, merged, v4("198.51.100.0/24")), u);
    assertEquals(UpdateError.Action.NONE, u.action());

    // sent to an OLD speaker, AS4_PATH carries the whole path (RFC 6793 §4.2.2)
    String sent =
        "40 01 01 00 | 40 02 08 02 03 fde9 5ba0 5ba0 | 40 03 04 c0000201 | c0 07 06 5ba0 c0000201"
            + "| c0 11 0e 02 03 0000fde9 fa56ea01 fa56ea02 | c0 12 08 fa56ea01 c0000201";
    assertGolden(
        SessionOptions.DEFAULT,
        update("", sent, "18 c63364"),
        new Update(Ipv4Prefixes.EMPTY, merged, v4("198.51.100.0/24")));
  }

  @Test
  void as4PathGoesBeforeHigherAttributeTypesWhenSplitForA2OctetSession() {
    Update u =
        new Update(
            Ipv4Prefixes.EMPTY,
            PathAttributes.of(
                Origin.IGP,
                AsPath.sequence(4200000001L),
                NextHop.of("192.0.2.1"),
                LargeCommunities.of(1, 2, 3)),
            v4("198.51.100.0/24"));
    String attributes =
        "40 01 01 00 | 40 02 04 02 01 5ba0 | 40 03 04 c0000201 | c0 11 06 02 01 fa56ea01"
            + "| c0 20 0c 00000001 00000002 00000003";
    assertEquals(
        Octets.of(update("", attributes, "18 c63364")),
        Octets.of(new BgpCodec(SessionOptions.DEFAULT).encode(u)));
  }

  @Test
  void a2OctetPathGetsNoAs4Path() throws Exception {
    assertGolden(
        SessionOptions.DEFAULT,
        update("", "40 01 01 00 | 40 02 04 02 01 fde9 | 40 03 04 c0000201", "18 c63364"),
        new Update(Ipv4Prefixes.EMPTY, BASIC, v4("198.51.100.0/24")));
  }

  @Test
  void as4AttributesAreIgnoredWhenAnOldSpeakerAggregatedOrAs4PathIsLongerThanAsPath()
      throws Exception {
    String oldAggregator =
        "40 01 01 00 | 40 02 06 02 02 fde9 5ba0 | 40 03 04 c0000201"
            + "| c0 07 06 fdea c0000201 | c0 11 06 02 01 fa56ea01 | c0 12 08 fa56ea01 c0000201";
    Update u = decodeUpdate(SessionOptions.DEFAULT, update("", oldAggregator, "18 c63364"));
    assertEquals(AsPath.sequence(65001, 23456), u.attributes().orNull(AsPath.class));
    assertEquals(
        new Aggregator(65002, Ip.parseV4("192.0.2.1")), u.attributes().orNull(Aggregator.class));
    assertEquals(null, u.attributes().orNull(As4Path.class));

    String longer =
        "40 01 01 00 | 40 02 04 02 01 5ba0 | 40 03 04 c0000201 | c0 11 0a 02 02 fa56ea01 fa56ea02";
    Update v = decodeUpdate(SessionOptions.DEFAULT, update("", longer, "18 c63364"));
    assertEquals(AsPath.sequence(23456), v.attributes().orNull(AsPath.class));
  }

  @Test
  void theMergeKeepsLeadingSetsAndConfederationSegmentsOfAsPath() {
    AsPath asPath =
        AsPath.builder()
            .segment(3, 65100)
            .segment(2, 65001, 23456)
            .segment(1, 23456, 65003)
            .build();
    AsPath as4Path =
        AsPath.builder().segment(2, 4200000001L).segment(1, 4200000002L, 65003).build();
    assertEquals(
        AsPath.builder()
            .segment(3, 65100)
            .segment(2, 65001, 4200000001L)
            .segment(1, 4200000002L, 65003)
            .build(),
        As4Translation.mergePath(asPath, as4Path));
  }

  @Test
  void onA4OctetSessionAs4AttributesAreDiscarded() throws Exception {
    String attributes = ORIGIN_PATH_NEXT_HOP + "| c0 11 06 02 01 fa56ea01";
    Update u = decodeUpdate(EBGP, update("", attributes, "18 c63364"));
    assertEquals(BASIC, u.attributes());
    assertEquals(UpdateError.Action.ATTRIBUTE_DISCARD, u.action());
    assertEquals(Iana.AttributeType.AS4_PATH, u.errors().get(0).typeCode());
  }

  @Test
  void forReadvertisementUnknownTransitiveAttributesGetPartialAndNonTransitiveOnesGo() {
    PathAttributes received =
        PathAttributes.of(
            Origin.IGP,
            new UnknownAttribute(0x63, 0xc0, Octets.fromHex("ab")),
            new UnknownAttribute(0x64, 0x80, Octets.fromHex("cd")),
            Communities.of(1));
    PathAttributes passedOn = received.forReadvertisement();
    assertEquals(3, passedOn.size());
    assertEquals(new UnknownAttribute(0x63, 0xe0, Octets.fromHex("ab")), passedOn.get(1));
    assertEquals(0xe0, passedOn.flags(1));
    assertEquals(Communities.of(1), passedOn.get(2));
  }

  @Test
  void equalAttributeSetsFromDifferentMessagesAreEqualAndHashAlike() throws Exception {
    Update a = decodeUpdate(EBGP, update("", ORIGIN_PATH_NEXT_HOP, "18 c63364"));
    Update b = decodeUpdate(EBGP, update("", ORIGIN_PATH_NEXT_HOP, "18 cb0071"));
    assertEquals(a.attributes(), b.attributes());
    assertEquals(a.attributes().hashCode(), b.attributes().hashCode());
    assertEquals(List.of(), a.errors());
  }

  @Test
  void asPathReportsLengthNeighbourAndLoops() {
    AsPath p =
        AsPath.builder()
            .segment(3, 65100)
            .segment(2, 65001, 65002)
            .segment(1, 65003, 65004)
            .build();
    assertEquals(3, p.pathLength());
    assertEquals(-1, p.firstAs());
    assertEquals(65001, AsPath.sequence(65001, 65002).firstAs());
    assertEquals(true, p.contains(65004));
    assertEquals(AsPath.sequence(65000, 65001), AsPath.sequence(65001).prepend(65000));
    assertEquals("AsPath[(65100) 65001 65002 {65003 65004}]", p.toString());
  }
}
