package dev.sart.bgp.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sart.bgp.wire.AsPath;
import dev.sart.bgp.wire.Communities;
import dev.sart.bgp.wire.LargeCommunities;
import dev.sart.bgp.wire.LocalPref;
import dev.sart.bgp.wire.MultiExitDisc;
import dev.sart.bgp.wire.Origin;
import dev.sart.bgp.wire.PathAttributes;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Policies: which statement decides, and what its actions do to the attributes. */
class PolicyTest {
  static final long LOCAL_AS = 65001;
  static final int C100 = Communities.community(65002, 100);
  static final int C200 = Communities.community(65002, 200);
  static final PathAttributes BASE =
      PathAttributes.of(
          Origin.IGP, AsPath.sequence(65002), new MultiExitDisc(5), Communities.of(C100));

  static PathAttributes eval(Policy p, String prefix, PathAttributes a) {
    PrefixList.Entry e = PrefixList.Entry.parse(prefix);
    return p.evaluate(e.family(), e.high(), e.low(), e.length(), a, LOCAL_AS);
  }

  static final PrefixList CUSTOMERS =
      PrefixList.of("customers", "203.0.113.0/24 le 28", "2001:db8:1::/48 le 64");

  static Stream<Arguments> rows() {
    Policy rejectOthers =
        Policy.of("customers-only", false, Statement.accept(Match.prefixes(CUSTOMERS)));
    Policy rejectCustomers =
        Policy.of("no-customers", true, Statement.reject(Match.prefixes(CUSTOMERS)));
    Policy byCommunity =
        Policy.of(
            "by-community",
            true,
            Statement.accept(Match.community(C200, C100), new Action.SetLocalPref(300)));
    Policy byLarge =
        Policy.of(
            "by-large",
            false,
            Statement.accept(Match.largeCommunity(Match.LargeCommunity.parse("65002:1:1"))));
    Policy both =
        Policy.of("both", false, Statement.accept(new Match(CUSTOMERS, List.of(C200), List.of())));
    PathAttributes withLarge = BASE.with(LargeCommunities.of(65002, 1, 1));
    return Stream.of(
        Arguments.of(
            "a prefix the list permits is accepted unchanged",
            rejectOthers,
            "203.0.113.16/28",
            BASE,
            BASE),
        Arguments.of(
            "a prefix outside the list falls to the rejecting default",
            rejectOthers,
            "198.51.100.0/24",
            BASE,
            null),
        Arguments.of(
            "an IPv6 prefix the list permits is accepted",
            rejectOthers,
            "2001:db8:1:2::/64",
            BASE,
            BASE),
        Arguments.of(
            "a rejecting statement rejects what it matches",
            rejectCustomers,
            "203.0.113.0/24",
            BASE,
            null),
        Arguments.of(
            "the accepting default lets the rest through",
            rejectCustomers,
            "198.51.100.0/24",
            BASE,
            BASE),
        Arguments.of(
            "a community match holds when any listed community is carried",
            byCommunity,
            "198.51.100.0/24",
            BASE,
            BASE.with(new LocalPref(300))),
        Arguments.of(
            "a community match fails without the attribute",
            byCommunity,
            "198.51.100.0/24",
            PathAttributes.of(Origin.IGP),
            PathAttributes.of(Origin.IGP)),
        Arguments.of(
            "a large community match holds on an equal triple",
            byLarge,
            "198.51.100.0/24",
            withLarge,
            withLarge),
        Arguments.of(
            "a large community match fails on another triple",
            byLarge,
            "198.51.100.0/24",
            BASE.with(LargeCommunities.of(65002, 1, 2)),
            null),
        Arguments.of("all conditions of a match must hold", both, "203.0.113.0/24", BASE, null),
        Arguments.of(
            "a match with every condition met accepts",
            both,
            "203.0.113.0/24",
            BASE.with(Communities.of(C200)),
            BASE.with(Communities.of(C200))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void decides(
      String name, Policy policy, String prefix, PathAttributes in, PathAttributes expected) {
    assertEquals(expected, eval(policy, prefix, in));
  }

  static Stream<Arguments> actions() {
    return Stream.of(
        Arguments.of(
            "set local-pref adds LOCAL_PREF",
            new Action.SetLocalPref(200),
            BASE.with(new LocalPref(200))),
        Arguments.of(
            "set med replaces the MED", new Action.SetMed(77), BASE.with(new MultiExitDisc(77))),
        Arguments.of(
            "adding communities keeps those carried",
            new Action.SetCommunities(List.of(C200), false),
            BASE.with(Communities.of(C100, C200))),
        Arguments.of(
            "adding a carried community does not double it",
            new Action.SetCommunities(List.of(C100), false),
            BASE),
        Arguments.of(
            "replacing communities drops those carried",
            new Action.SetCommunities(List.of(C200), true),
            BASE.with(Communities.of(C200))),
        Arguments.of(
            "replacing with no community removes the attribute",
            new Action.SetCommunities(List.of(), true),
            PathAttributes.of(Origin.IGP, AsPath.sequence(65002), new MultiExitDisc(5))),
        Arguments.of(
            "adding a large community creates the attribute",
            new Action.SetLargeCommunities(List.of(Match.LargeCommunity.parse("65001:7:8")), false),
            BASE.with(LargeCommunities.of(65001, 7, 8))),
        Arguments.of(
            "prepending without an AS prepends our own",
            new Action.PrependAsPath(0, 2),
            BASE.with(AsPath.sequence(65001, 65001, 65002))),
        Arguments.of(
            "prepending a given AS prepends that one",
            new Action.PrependAsPath(65010, 1),
            BASE.with(AsPath.sequence(65010, 65002))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("actions")
  void acts(String name, Action action, PathAttributes expected) {
    Policy p = Policy.of("p", false, Statement.accept(Match.ANY, action));
    assertEquals(expected, eval(p, "192.0.2.0/24", BASE));
  }

  @Test
  void actionsApplyInOrder() {
    Policy p =
        Policy.of(
            "p", false, Statement.accept(Match.ANY, new Action.SetMed(1), new Action.SetMed(2)));
    assertEquals(BASE.with(new MultiExitDisc(2)), eval(p, "192.0.2.0/24", BASE));
  }

  @Test
  void theFirstMatchingStatementDecides() {
    Policy p =
        Policy.of(
            "p",
            false,
            Statement.accept(
                Match.prefixes(PrefixList.of("a", "192.0.2.0/24")), new Action.SetMed(1)),
            Statement.accept(Match.ANY, new Action.SetMed(2)));
    assertEquals(BASE.with(new MultiExitDisc(1)), eval(p, "192.0.2.0/24", BASE));
    assertEquals(BASE.with(new MultiExitDisc(2)), eval(p, "198.51.100.0/24", BASE));
  }

  @Test
  void prefixesThatEndAtTheSameStatementShareIt() {
    Policy p = Policy.of("p", true, Statement.reject(Match.prefixes(CUSTOMERS)));
    PrefixList.Entry a = PrefixList.Entry.parse("198.51.100.0/24");
    PrefixList.Entry b = PrefixList.Entry.parse("192.0.2.0/24");
    assertSame(
        p.decide(a.family(), a.high(), a.low(), a.length(), BASE),
        p.decide(b.family(), b.high(), b.low(), b.length(), BASE));
  }

  @Test
  void acceptAllChangesNothing() {
    assertSame(BASE, eval(Policy.ACCEPT_ALL, "192.0.2.0/24", BASE));
  }

  @Test
  void badValuesAreRefusedWithAReason() {
    assertThrows(
        IllegalArgumentException.class,
        () -> new Statement(Match.ANY, false, List.of(new Action.SetMed(1))));
    assertThrows(IllegalArgumentException.class, () -> new Action.PrependAsPath(0, 0));
    assertThrows(IllegalArgumentException.class, () -> new Action.SetLocalPref(1L << 32));
    assertThrows(IllegalArgumentException.class, () -> Match.LargeCommunity.parse("1:2"));
    assertThrows(IllegalArgumentException.class, () -> Match.parseCommunity("70000:1"));
    assertThrows(IllegalArgumentException.class, () -> new MaxPrefix(0, false, null));
    assertThrows(IllegalArgumentException.class, () -> new MaxPrefix(10, false, Duration.ZERO));
    assertThrows(IllegalArgumentException.class, () -> Policy.of(" ", true));
  }
}
