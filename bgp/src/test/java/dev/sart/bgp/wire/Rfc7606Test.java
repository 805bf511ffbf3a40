package dev.sart.bgp.wire;

import static dev.sart.bgp.wire.Fixtures.attr;
import static dev.sart.bgp.wire.Fixtures.decodeUpdate;
import static dev.sart.bgp.wire.Fixtures.message;
import static dev.sart.bgp.wire.Fixtures.update;
import static dev.sart.bgp.wire.Fixtures.v4;
import static dev.sart.bgp.wire.UpdateError.Action.AFI_SAFI_DISABLE;
import static dev.sart.bgp.wire.UpdateError.Action.ATTRIBUTE_DISCARD;
import static dev.sart.bgp.wire.UpdateError.Action.NONE;
import static dev.sart.bgp.wire.UpdateError.Action.SESSION_RESET;
import static dev.sart.bgp.wire.UpdateError.Action.TREAT_AS_WITHDRAW;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The malformed UPDATEs of RFC 7606 §4-§7 and the outcome the decoder reports for each: the action,
 * the attribute, and the UPDATE Message Error subcode naming the problem.
 */
class Rfc7606Test {

  private static final SessionOptions EBGP = SessionOptions.FOUR_OCTET_AS;
  private static final SessionOptions IBGP = EBGP.withExternal(false);
  private static final SessionOptions OLD = SessionOptions.DEFAULT;

  private static final String ORIGIN = "40 01 01 00";
  private static final String AS_PATH = "40 02 06 02 01 0000fde9";
  private static final String NEXT_HOP = "40 03 04 c0000201";
  private static final String BASE = ORIGIN + AS_PATH + NEXT_HOP;
  private static final String NLRI = "18 c63364";
  private static final String V6_NEXT_HOP = "20010db8000000000000000000000001";

  record Case(
      String name,
      SessionOptions options,
      String attributes,
      String nlri,
      UpdateError.Action action,
      int typeCode,
      int subcode) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        // §7.1 ORIGIN
        new Case(
            "ORIGIN of length 2 is treat-as-withdraw",
            EBGP,
            "40 01 02 0000" + AS_PATH + NEXT_HOP,
            NLRI,
            TREAT_AS_WITHDRAW,
            1,
            5),
        new Case(
            "ORIGIN 3 is treat-as-withdraw",
            EBGP,
            "40 01 01 03" + AS_PATH + NEXT_HOP,
            NLRI,
            TREAT_AS_WITHDRAW,
            1,
            6),
        // §7.2 AS_PATH
        new Case(
            "AS_PATH segment type 5 is treat-as-withdraw",
            EBGP,
            ORIGIN + "40 02 06 05 01 0000fde9" + NEXT_HOP,
            NLRI,
            TREAT_AS_WITHDRAW,
            2,
            11),
        new Case(
            "AS_PATH segment of length 0 is treat-as-withdraw",
            EBGP,
            ORIGIN + "40 02 02 02 00" + NEXT_HOP,
            NLRI,
            TREAT_AS_WITHDRAW,
            2,
            11),
        new Case(
            "AS_PATH segment overrun is treat-as-withdraw",
            EBGP,
            ORIGIN + "40 02 06 02 02 0000fde9" + NEXT_HOP,
            NLRI,
            TREAT_AS_WITHDRAW,
            2,
            11),
        new Case(
            "AS_PATH with one octet left over is treat-as-withdraw",
            EBGP,
            ORIGIN + "40 02 07 02 01 0000fde9 02" + NEXT_HOP,
            NLRI,
            TREAT_AS_WITHDRAW,
            2,
            11),
        new Case(
            "AS_CONFED_SEQUENCE from an external peer is treat-as-withdraw",
            EBGP,
            ORIGIN + "40 02 06 03 01 0000fde9" + NEXT_HOP,
            NLRI,
            TREAT_AS_WITHDRAW,
            2,
            11),
        new Case(
            "AS_CONFED_SET from an internal peer is fine",
            IBGP,
            ORIGIN + "40 02 06 04 01 0000fde9" + NEXT_HOP,
            NLRI,
            NONE,
            0,
            0),
        // §7.3-7.5
        new Case(
            "NEXT_HOP of length 5 is treat-as-withdraw",
            EBGP,
            ORIGIN + AS_PATH + "40 03 05 c000020100",
            NLRI,
            TREAT_AS_WITHDRAW,
            3,
            5),
        new Case(
            "MULTI_EXIT_DISC of length 3 is treat-as-withdraw",
            EBGP,
            BASE + "80 04 03 000064",
            NLRI,
            TREAT_AS_WITHDRAW,
            4,
            5),
        new Case(
            "LOCAL_PREF of length 2 from an internal peer is treat-as-withdraw",
            IBGP,
            BASE + "40 05 02 0064",
            NLRI,
            TREAT_AS_WITHDRAW,
            5,
            5),
        new Case(
            "LOCAL_PREF from an external peer is discarded",
            EBGP,
            BASE + "40 05 04 00000064",
            NLRI,
            ATTRIBUTE_DISCARD,
            5,
            0),
        new Case(
            "malformed LOCAL_PREF from an external peer is discarded too",
            EBGP,
            BASE + "40 05 01 00",
            NLRI,
            ATTRIBUTE_DISCARD,
            5,
            0),
        // §7.6, §7.7
        new Case(
            "ATOMIC_AGGREGATE of length 1 is discarded",
            EBGP,
            BASE + "40 06 01 00",
            NLRI,
            ATTRIBUTE_DISCARD,
            6,
            5),
        new Case(
            "AGGREGATOR of length 6 on a 4-octet session is discarded",
            EBGP,
            BASE + "c0 07 06 fde9 c0000201",
            NLRI,
            ATTRIBUTE_DISCARD,
            7,
            5),
        new Case(
            "AGGREGATOR of length 8 on a 2-octet session is discarded",
            OLD,
            ORIGIN + "40 02 04 02 01 fde9" + NEXT_HOP + "c0 07 08 0000fde9 c0000201",
            NLRI,
            ATTRIBUTE_DISCARD,
            7,
            5),
        // §7.8, §7.14, RFC 8092 §5
        new Case(
            "empty COMMUNITIES is treat-as-withdraw",
            EBGP,
            BASE + "c0 08 00",
            NLRI,
            TREAT_AS_WITHDRAW,
            8,
            5),
        new Case(
            "COMMUNITIES of length 5 is treat-as-withdraw",
            EBGP,
            BASE + "c0 08 05 0000000000",
            NLRI,
            TREAT_AS_WITHDRAW,
            8,
            5),
        new Case(
            "EXTENDED_COMMUNITIES of length 4 is treat-as-withdraw",
            EBGP,
            BASE + "c0 10 04 00000000",
            NLRI,
            TREAT_AS_WITHDRAW,
            16,
            5),
        new Case(
            "LARGE_COMMUNITY of length 8 is treat-as-withdraw",
            EBGP,
            BASE + "c0 20 08 0000000000000000",
            NLRI,
            TREAT_AS_WITHDRAW,
            32,
            5),
        // §7.9, §7.10
        new Case(
            "ORIGINATOR_ID of length 3 from an internal peer is treat-as-withdraw",
            IBGP,
            BASE + "80 09 03 c00002",
            NLRI,
            TREAT_AS_WITHDRAW,
            9,
            5),
        new Case(
            "ORIGINATOR_ID from an external peer is discarded",
            EBGP,
            BASE + "80 09 04 c0000201",
            NLRI,
            ATTRIBUTE_DISCARD,
            9,
            0),
        new Case(
            "CLUSTER_LIST of length 6 from an internal peer is treat-as-withdraw",
            IBGP,
            BASE + "80 0a 06 c0000201 0000",
            NLRI,
            TREAT_AS_WITHDRAW,
            10,
            5),
        new Case(
            "CLUSTER_LIST from an external peer is discarded",
            EBGP,
            BASE + "80 0a 04 c0000201",
            NLRI,
            ATTRIBUTE_DISCARD,
            10,
            0),
        // RFC 7607 §2: AS 0
        new Case(
            "AS 0 in AS_PATH is treat-as-withdraw",
            EBGP,
            ORIGIN + "40 02 0a 02 02 0000fde9 00000000" + NEXT_HOP,
            NLRI,
            TREAT_AS_WITHDRAW,
            2,
            11),
        new Case(
            "AS 0 in AGGREGATOR is discarded",
            EBGP,
            BASE + "c0 07 08 00000000 c0000201",
            NLRI,
            ATTRIBUTE_DISCARD,
            7,
            9),
        new Case(
            "AS 0 in AS4_AGGREGATOR is discarded",
            OLD,
            ORIGIN + "40 02 04 02 01 fde9" + NEXT_HOP + "c0 12 08 00000000 c0000201",
            NLRI,
            ATTRIBUTE_DISCARD,
            18,
            9),
        // RFC 9234 §5, RFC 6793 §6
        new Case(
            "OTC of length 2 is treat-as-withdraw",
            EBGP,
            BASE + "c0 23 02 fde9",
            NLRI,
            TREAT_AS_WITHDRAW,
            35,
            9),
        new Case(
            "malformed AS4_PATH on a 2-octet session is discarded",
            OLD,
            ORIGIN + "40 02 04 02 01 5ba0" + NEXT_HOP + "c0 11 05 02 01 fa56ea",
            NLRI,
            ATTRIBUTE_DISCARD,
            17,
            11),
        new Case(
            "AS4_PATH with a confederation segment is discarded",
            OLD,
            ORIGIN + "40 02 04 02 01 5ba0" + NEXT_HOP + "c0 11 06 03 01 fa56ea01",
            NLRI,
            ATTRIBUTE_DISCARD,
            17,
            11),
        new Case(
            "AS4_AGGREGATOR of length 6 is discarded",
            OLD,
            ORIGIN + "40 02 04 02 01 fde9" + NEXT_HOP + "c0 12 06 fde9 c0000201",
            NLRI,
            ATTRIBUTE_DISCARD,
            18,
            5),
        // §3 (c): wrong flags are malformed for the attribute
        new Case(
            "ORIGIN flagged optional is treat-as-withdraw",
            EBGP,
            "c0 01 01 00" + AS_PATH + NEXT_HOP,
            NLRI,
            TREAT_AS_WITHDRAW,
            1,
            4),
        new Case(
            "AGGREGATOR flagged well-known is discarded",
            EBGP,
            BASE + "40 07 08 0000fde9 c0000201",
            NLRI,
            ATTRIBUTE_DISCARD,
            7,
            4),
        new Case(
            "MP_REACH_NLRI flagged transitive disables its family",
            EBGP,
            ORIGIN + AS_PATH + attr("c0 0e", "0002 01 10" + V6_NEXT_HOP + "00 40 20010db800000001"),
            "",
            AFI_SAFI_DISABLE,
            14,
            4),
        // §3 (d): missing well-known mandatory attributes
        new Case(
            "missing ORIGIN is treat-as-withdraw",
            EBGP,
            AS_PATH + NEXT_HOP,
            NLRI,
            TREAT_AS_WITHDRAW,
            1,
            3),
        new Case(
            "missing NEXT_HOP with IPv4 NLRI is treat-as-withdraw",
            EBGP,
            ORIGIN + AS_PATH,
            NLRI,
            TREAT_AS_WITHDRAW,
            3,
            3),
        new Case(
            "missing AS_PATH with MP_REACH_NLRI is treat-as-withdraw",
            EBGP,
            ORIGIN + attr("80 0e", "0002 01 10" + V6_NEXT_HOP + "00 40 20010db800000001"),
            "",
            TREAT_AS_WITHDRAW,
            2,
            3),
        new Case(
            "NEXT_HOP is not needed when only MP_REACH_NLRI carries routes",
            EBGP,
            ORIGIN + AS_PATH + attr("80 0e", "0002 01 10" + V6_NEXT_HOP + "00 40 20010db800000001"),
            "",
            NONE,
            0,
            0),
        new Case(
            "an UPDATE with attributes but no routes needs no mandatory attribute",
            EBGP,
            "c0 08 04 fde80064",
            "",
            NONE,
            0,
            0),
        // §3 (g): repeated attributes
        new Case(
            "a repeated COMMUNITIES is discarded, the first kept",
            EBGP,
            BASE + "c0 08 04 fde80064 c0 08 04 fde80065",
            NLRI,
            ATTRIBUTE_DISCARD,
            8,
            1),
        new Case(
            "a repeated MP_REACH_NLRI is a session reset",
            EBGP,
            BASE
                + attr("80 0e", "0002 01 10" + V6_NEXT_HOP + "00")
                + attr("80 0e", "0002 01 10" + V6_NEXT_HOP + "00"),
            "",
            SESSION_RESET,
            14,
            1),
        new Case(
            "a repeated MP_UNREACH_NLRI is a session reset",
            EBGP,
            "80 0f 03 000201 80 0f 03 000201",
            "",
            SESSION_RESET,
            15,
            1),
        // §4: attribute lengths against the Total Path Attribute Length
        new Case(
            "an attribute overrunning the attributes is treat-as-withdraw",
            EBGP,
            BASE + "c0 08 08 fde80064",
            NLRI,
            TREAT_AS_WITHDRAW,
            8,
            5),
        new Case(
            "two octets left for an attribute header is treat-as-withdraw",
            EBGP,
            BASE + "c0 08",
            NLRI,
            TREAT_AS_WITHDRAW,
            0,
            1),
        new Case(
            "an MP_REACH_NLRI overrunning the attributes is a session reset",
            EBGP,
            ORIGIN + AS_PATH + "80 0e 30 0002 01 10" + V6_NEXT_HOP,
            "",
            SESSION_RESET,
            14,
            5),
        // §7.11, §7.12, §5.3: MP_REACH/MP_UNREACH that cannot be parsed
        new Case(
            "an IPv6 next hop of 5 octets disables IPv6 unicast",
            EBGP,
            ORIGIN + AS_PATH + attr("80 0e", "0002 01 05 2001db8000 00 40 20010db800000001"),
            "",
            AFI_SAFI_DISABLE,
            14,
            9),
        new Case(
            "an IPv6 prefix length of 129 disables IPv6 unicast",
            EBGP,
            ORIGIN
                + AS_PATH
                + attr("80 0e", "0002 01 10" + V6_NEXT_HOP + "00 81" + V6_NEXT_HOP + "00"),
            "",
            AFI_SAFI_DISABLE,
            14,
            9),
        new Case(
            "an IPv6 next hop for IPv4 routes without RFC 8950 disables IPv4 unicast",
            EBGP,
            ORIGIN + AS_PATH + attr("80 0e", "0001 01 10" + V6_NEXT_HOP + "00 18 c63364"),
            "",
            AFI_SAFI_DISABLE,
            14,
            9),
        new Case(
            "an MP_REACH_NLRI of 2 octets is a session reset",
            EBGP,
            ORIGIN + AS_PATH + "80 0e 02 0002",
            "",
            SESSION_RESET,
            14,
            9),
        new Case(
            "an MP_UNREACH_NLRI prefix overrun disables its family",
            EBGP,
            "80 0f 05 000201 40 20",
            "",
            AFI_SAFI_DISABLE,
            15,
            9),
        new Case(
            "an IPv4 NLRI prefix length of 33 disables IPv4 unicast",
            EBGP,
            BASE,
            "21 c6336400 00",
            AFI_SAFI_DISABLE,
            0,
            10),
        new Case(
            "an IPv4 NLRI prefix overrun disables IPv4 unicast",
            EBGP,
            BASE,
            "18 c633",
            AFI_SAFI_DISABLE,
            0,
            10),
        // RFC 4271 §6.3
        new Case(
            "an unrecognized well-known attribute is a session reset",
            EBGP,
            BASE + "40 63 01 00",
            NLRI,
            SESSION_RESET,
            0x63,
            2),
        // §3 (f): the strongest action wins
        new Case(
            "a discard and a treat-as-withdraw together are treat-as-withdraw",
            EBGP,
            "40 01 01 07" + AS_PATH + NEXT_HOP + "40 06 01 00",
            NLRI,
            TREAT_AS_WITHDRAW,
            1,
            6));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void eachMalformedUpdateHasTheOutcomeRfc7606Prescribes(Case c) throws Exception {
    Update u = decodeUpdate(c.options(), update("", c.attributes(), c.nlri()));
    assertEquals(c.action(), u.action(), () -> u.errors().toString());
    if (c.action() != NONE) {
      UpdateError e = u.decisiveError().orElseThrow();
      assertEquals(c.typeCode(), e.typeCode(), e::toString);
      assertEquals(c.subcode(), e.subcode(), e::toString);
      if (c.action() == AFI_SAFI_DISABLE) {
        assertEquals(true, e.family() != null, e::toString);
      }
    }
  }

  @Test
  void treatAsWithdrawStillReportsEveryRouteSoThatTheyCanBeWithdrawn() throws Exception {
    String mp = attr("80 0e", "0002 01 10" + V6_NEXT_HOP + "00 40 20010db800000001");
    Update u = decodeUpdate(EBGP, update("", "40 01 01 09" + AS_PATH + NEXT_HOP + mp, NLRI));
    assertEquals(TREAT_AS_WITHDRAW, u.action());
    assertEquals(v4("198.51.100.0/24"), u.nlri());
    assertEquals(1, u.mpReach().nlri().size());
    assertNull(u.attributes().orNull(Origin.class));
  }

  @Test
  void aDiscardedAttributeIsMissingFromTheResultAndTheRestIsUsable() throws Exception {
    Update u = decodeUpdate(EBGP, update("", BASE + "40 05 04 00000064 c0 08 04 fde80064", NLRI));
    assertEquals(ATTRIBUTE_DISCARD, u.action());
    assertNull(u.attributes().orNull(LocalPref.class));
    assertEquals(
        Communities.of(Communities.community(65000, 100)),
        u.attributes().orNull(Communities.class));
  }

  @Test
  void theFirstOfRepeatedAttributesIsTheOneKept() throws Exception {
    Update u = decodeUpdate(EBGP, update("", BASE + "c0 08 04 fde80064 c0 08 04 fde80065", NLRI));
    assertEquals(
        Communities.of(Communities.community(65000, 100)),
        u.attributes().orNull(Communities.class));
  }

  @Test
  void anUnrecognizedWellKnownAttributeResetsWithTheAttributeAsData() throws Exception {
    Update u = decodeUpdate(EBGP, update("", BASE + "40 63 01 00", NLRI));
    Notification n = u.decisiveError().orElseThrow().notification();
    assertEquals(new Notification(3, 2, Octets.fromHex("40630100")), n);
  }

  @Test
  void aWithdrawnRoutesLengthBeyondTheMessageIsMalformedAttributeList() throws Exception {
    Update u = decodeUpdate(EBGP, message(2, "0010 0000"));
    assertEquals(SESSION_RESET, u.action());
    assertEquals(new Notification(3, 1), u.decisiveError().orElseThrow().notification());
  }

  @Test
  void aTotalPathAttributeLengthBeyondTheMessageIsMalformedAttributeList() throws Exception {
    Update u = decodeUpdate(EBGP, message(2, "0000 0010 400101"));
    assertEquals(SESSION_RESET, u.action());
    assertEquals(1, u.decisiveError().orElseThrow().subcode());
  }

  @Test
  void aMalformedWithdrawnRouteDisablesIpv4Unicast() throws Exception {
    Update u = decodeUpdate(EBGP, update("28 00", "", ""));
    assertEquals(AFI_SAFI_DISABLE, u.action());
    assertEquals(Family.IPV4_UNICAST, u.decisiveError().orElseThrow().family());
  }
}
