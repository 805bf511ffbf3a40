package dev.sart.bgp.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Prefix lists match as FRR's {@code ip prefix-list} / {@code ipv6 prefix-list}: one row per rule.
 */
class PrefixListTest {

  static Arguments row(String name, String[] entries, String prefix, boolean permitted) {
    return Arguments.of(name, entries, prefix, permitted);
  }

  static String[] list(String... entries) {
    return entries;
  }

  static Stream<Arguments> rows() {
    return Stream.of(
        row(
            "an entry without ge or le matches its own prefix",
            list("192.0.2.0/24"),
            "192.0.2.0/24",
            true),
        row(
            "an entry without ge or le does not match a more specific prefix",
            list("192.0.2.0/24"),
            "192.0.2.0/25",
            false),
        row(
            "an entry without ge or le does not match a less specific prefix",
            list("192.0.2.0/24"),
            "192.0.0.0/16",
            false),
        row("le covers the prefix itself", list("10.0.0.0/8 le 24"), "10.0.0.0/8", true),
        row(
            "le covers more specific prefixes up to its length",
            list("10.0.0.0/8 le 24"),
            "10.1.1.0/24",
            true),
        row("le does not cover longer prefixes", list("10.0.0.0/8 le 24"), "10.1.1.0/25", false),
        row("ge alone covers from ge up to /32", list("10.0.0.0/8 ge 24"), "10.1.1.1/32", true),
        row(
            "ge does not cover the shorter prefixes",
            list("10.0.0.0/8 ge 24"),
            "10.1.0.0/16",
            false),
        row(
            "ge and le cover the range between them",
            list("10.0.0.0/8 ge 16 le 24"),
            "10.9.16.0/20",
            true),
        row(
            "ge and le exclude the prefix itself",
            list("10.0.0.0/8 ge 16 le 24"),
            "10.0.0.0/8",
            false),
        row(
            "a prefix outside the entry does not match",
            list("10.0.0.0/8 le 32"),
            "11.0.0.0/16",
            false),
        row(
            "the first matching entry decides (deny)",
            list("deny 10.1.0.0/16 le 32", "permit 10.0.0.0/8 le 32"),
            "10.1.2.0/24",
            false),
        row(
            "the first matching entry decides (permit)",
            list("deny 10.1.0.0/16 le 32", "permit 10.0.0.0/8 le 32"),
            "10.2.0.0/16",
            true),
        row(
            "a prefix no entry matches is denied",
            list("permit 10.0.0.0/8"),
            "203.0.113.0/24",
            false),
        row("an empty list denies everything", list(), "203.0.113.0/24", false),
        row("any permits every IPv4 prefix", list("any"), "203.0.113.0/24", true),
        row("any does not match IPv6", list("any"), "2001:db8::/32", false),
        row("any6 permits every IPv6 prefix", list("any6"), "2001:db8:1::/48", true),
        row("an IPv4 entry never matches an IPv6 prefix", list("0.0.0.0/0 le 32"), "::/0", false),
        row(
            "an IPv6 entry with le covers longer prefixes",
            list("2001:db8::/32 le 48"),
            "2001:db8:1::/48",
            true),
        row(
            "an IPv6 entry with le stops at le",
            list("2001:db8::/32 le 48"),
            "2001:db8:1::/64",
            false),
        row(
            "an IPv6 entry does not match another /32",
            list("2001:db8::/32 le 48"),
            "2001:db9::/48",
            false),
        row(
            "IPv6 bits beyond the first 64 are compared",
            list("2001:db8::1:0:0/96 le 128"),
            "2001:db8::1:0:5/128",
            true),
        row(
            "IPv6 bits beyond the first 64 can differ",
            list("2001:db8::1:0:0/96 le 128"),
            "2001:db8::2:0:5/128",
            false),
        row("host bits in an entry are ignored", list("10.1.2.3/8"), "10.0.0.0/8", true),
        row(
            "a deny entry with le denies the range",
            list("deny 0.0.0.0/0 ge 25", "permit any"),
            "192.0.2.128/25",
            false),
        row(
            "a deny entry with le lets the rest through to the next entry",
            list("deny 0.0.0.0/0 ge 25", "permit any"),
            "192.0.2.0/24",
            true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void matches(String name, String[] entries, String prefix, boolean permitted) {
    PrefixList.Entry p = PrefixList.Entry.parse(prefix);
    assertEquals(
        permitted, PrefixList.of("l", entries).permits(p.family(), p.high(), p.low(), p.length()));
  }

  static Stream<Arguments> invalid() {
    return Stream.of(
        Arguments.of("10.0.0.0/8 ge 8", "greater than the prefix length"),
        Arguments.of("10.0.0.0/8 ge 24 le 16", "greater than le"),
        Arguments.of("10.0.0.0/8 le 33", "between the prefix length"),
        Arguments.of("10.0.0.0/16 le 8", "between the prefix length"),
        Arguments.of("10.0.0.0/33", "out of range"),
        Arguments.of("2001:db8::/32 ge 129", "at most 128"),
        Arguments.of("permit", "without a prefix"),
        Arguments.of("10.0.0.0", "no /length"),
        Arguments.of("10.0.0.0/8 foo 3", "unknown word"),
        Arguments.of("10.0.0.0/8 le", "needs a value"),
        Arguments.of("300.0.0.0/8", "bad prefix list entry"));
  }

  @ParameterizedTest(name = "''{0}'' is refused: {1}")
  @MethodSource("invalid")
  void refuses(String entry, String reason) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> PrefixList.Entry.parse(entry));
    assertTrue(e.getMessage().contains(reason), e::getMessage);
  }

  @ParameterizedTest(name = "''{0}'' prints as ''{1}''")
  @MethodSource("printed")
  void printsAsFrrWritesIt(String entry, String printed) {
    assertEquals(printed, PrefixList.Entry.parse(entry).toString());
  }

  static Stream<Arguments> printed() {
    return Stream.of(
        Arguments.of("10.1.2.3/8 le 24", "permit 10.0.0.0/8 le 24"),
        Arguments.of("deny 2001:db8::/32 ge 48", "deny 2001:db8::/32 ge 48"),
        Arguments.of("any", "permit 0.0.0.0/0 le 32"));
  }
}
