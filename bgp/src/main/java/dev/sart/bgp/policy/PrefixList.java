package dev.sart.bgp.policy;

import dev.sart.bgp.wire.Family;
import dev.sart.bgp.wire.Ip;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * An ordered list of prefix ranges with permit/deny, matched as FRR's and Cisco's {@code ip
 * prefix-list}: the first entry that matches decides; a prefix no entry matches is denied (the
 * implicit deny at the end of every list). An IPv4 entry never matches an IPv6 prefix, and the
 * other way round.
 *
 * @param name the name the configuration refers to it by
 * @param entries the entries in the order they are tried
 */
public record PrefixList(String name, List<Entry> entries) {

  public PrefixList {
    Objects.requireNonNull(name, "name");
    entries = List.copyOf(entries);
  }

  /** Parses each line with {@link Entry#parse}. */
  public static PrefixList of(String name, String... entries) {
    return new PrefixList(name, java.util.Arrays.stream(entries).map(Entry::parse).toList());
  }

  /** Whether the list permits the prefix: the action of the first matching entry, else deny. */
  public boolean permits(Family family, long high, long low, int length) {
    for (Entry e : entries) {
      if (e.matches(family, high, low, length)) {
        return e.permit();
      }
    }
    return false;
  }

  /**
   * One line: the prefix {@code address/length} and the range of prefix lengths it covers. Without
   * {@code ge}/{@code le} only the prefix itself matches; with them, every more specific prefix
   * inside it whose length is in {@code [ge or length, le or the family's maximum]}.
   *
   * @param permit permit or deny
   * @param family IPv4 or IPv6 unicast
   * @param high the address (IPv4 in the low 32 bits; IPv6 the upper 64 bits), host bits zero
   * @param low the lower 64 bits of an IPv6 address
   * @param length the prefix length
   * @param ge the smallest length that matches, 0 when not given
   * @param le the largest length that matches, 0 when not given
   */
  public record Entry(
      boolean permit, Family family, long high, long low, int length, int ge, int le) {

    public Entry {
      int max = max(family);
      if (length < 0 || length > max) {
        throw new IllegalArgumentException(
            "prefix length " + length + " out of range for " + family);
      }
      // the rule FRR and IOS enforce: length < ge <= le <= maximum, length <= le
      if (ge != 0 && (ge <= length || ge > max)) {
        throw new IllegalArgumentException(
            "ge "
                + ge
                + " must be greater than the prefix length "
                + length
                + " and at most "
                + max);
      }
      if (le != 0 && (le < length || le > max)) {
        throw new IllegalArgumentException(
            "le " + le + " must be between the prefix length " + length + " and " + max);
      }
      if (ge != 0 && le != 0 && ge > le) {
        throw new IllegalArgumentException("ge " + ge + " is greater than le " + le);
      }
      high &= mask(family, length, true);
      low &= mask(family, length, false);
    }

    /**
     * Parses {@code [permit|deny] PREFIX [ge N] [le N]}, where PREFIX is {@code a.b.c.d/len}, an
     * IPv6 prefix, or {@code any} / {@code any6} (every IPv4 / IPv6 prefix). Without a leading
     * action the entry permits.
     */
    public static Entry parse(String text) {
      String[] t = text.strip().toLowerCase(Locale.ROOT).split("\\s+");
      int i = 0;
      boolean permit = true;
      if (t[0].equals("permit") || t[0].equals("deny")) {
        permit = t[0].equals("permit");
        i++;
      }
      if (i >= t.length) {
        throw new IllegalArgumentException("prefix list entry without a prefix: '" + text + "'");
      }
      String p = t[i++];
      Family family;
      long high = 0;
      long low = 0;
      int length;
      int ge = 0;
      int le = 0;
      try {
        if (p.equals("any") || p.equals("any6")) {
          family = p.equals("any") ? Family.IPV4_UNICAST : Family.IPV6_UNICAST;
          length = 0;
          le = max(family);
        } else {
          int slash = p.indexOf('/');
          if (slash < 0) {
            throw new IllegalArgumentException("no /length");
          }
          String addr = p.substring(0, slash);
          length = Integer.parseInt(p.substring(slash + 1));
          if (addr.indexOf(':') >= 0) {
            family = Family.IPV6_UNICAST;
            long[] a = Ip.parseV6(addr);
            high = a[0];
            low = a[1];
          } else {
            family = Family.IPV4_UNICAST;
            high = Ip.parseV4(addr) & 0xffff_ffffL;
          }
        }
        while (i < t.length) {
          String k = t[i++];
          if (i >= t.length) {
            throw new IllegalArgumentException("'" + k + "' needs a value");
          }
          int v = Integer.parseInt(t[i++]);
          switch (k) {
            case "ge" -> ge = v;
            case "le" -> le = v;
            default -> throw new IllegalArgumentException("unknown word '" + k + "' (ge, le)");
          }
        }
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(
            "bad prefix list entry '" + text + "': " + e.getMessage(), e);
      }
      return new Entry(permit, family, high, low, length, ge, le);
    }

    /** Whether this entry covers the prefix (whatever its action). */
    public boolean matches(Family f, long h, long l, int len) {
      if (!family.equals(f) || len < length) {
        return false;
      }
      if ((h & mask(family, length, true)) != high || (l & mask(family, length, false)) != low) {
        return false;
      }
      if (ge == 0 && le == 0) {
        return len == length;
      }
      int from = ge != 0 ? ge : length;
      int to = le != 0 ? le : max(family);
      return len >= from && len <= to;
    }

    private static int max(Family f) {
      if (f.equals(Family.IPV4_UNICAST)) {
        return 32;
      }
      if (f.equals(Family.IPV6_UNICAST)) {
        return 128;
      }
      throw new IllegalArgumentException(
          "prefix lists hold IPv4 or IPv6 unicast prefixes, not " + f);
    }

    /** The network mask of {@code length} over the high (or low) 64-bit half of the address. */
    private static long mask(Family f, int length, boolean highHalf) {
      if (f.equals(Family.IPV4_UNICAST)) {
        return highHalf ? (length == 0 ? 0 : (0xffff_ffffL << (32 - length)) & 0xffff_ffffL) : 0;
      }
      if (highHalf) {
        return length == 0 ? 0 : length >= 64 ? -1L : -1L << (64 - length);
      }
      return length <= 64 ? 0 : length == 128 ? -1L : -1L << (128 - length);
    }

    @Override
    public String toString() {
      String p =
          family.equals(Family.IPV4_UNICAST) ? Ip.formatV4((int) high) : Ip.formatV6(high, low);
      return (permit ? "permit " : "deny ")
          + p
          + "/"
          + length
          + (ge != 0 ? " ge " + ge : "")
          + (le != 0 ? " le " + le : "");
    }
  }
}
